// The discussion page without the mouse: j / k (or n / p) walk the chair's queue, 1, 2, 3 …
// take that juror's mark, l and h the lower and the higher, Enter decides with the reason
// chosen, c goes to the comment box. No key does anything while the focus is in a field, so
// typing a reason or a comment is never taken for a command. The page works without this
// module: every key has a link or a button.

const FIELDS = "input, textarea, select, [contenteditable]";

function typing(element) {
  return element instanceof Element && element.closest(FIELDS) !== null;
}

function go(id) {
  const link = document.getElementById(id);
  if (link) window.location.assign(link.href);
}

function decide() {
  const form = document.getElementById("decide-form");
  const button = document.getElementById("decide-button");
  if (form && button) form.requestSubmit(button);
}

// Taking a mark by key fills the points with it and moves to the reason: Enter there decides.
function choose(take) {
  const points = document.getElementById("decide-points");
  for (const other of document.querySelectorAll("#decide-form button.take")) {
    other.setAttribute("aria-pressed", String(other === take));
  }
  points.value = take.dataset.points;
  const label = take.textContent.replace(/^\s*\S+\s+/, "").trim();
  document.getElementById("decide-hint").textContent =
    `${label}: choose or write the reason, then press Enter to decide.`;
  document.getElementById("decide-reason-choice").focus();
}

// On the queue page, j and k move between the rows' links; Enter opens the one in focus.
function stepRows(by) {
  const links = [...document.querySelectorAll("#queue a.open-cell")];
  if (!links.length) return;
  const at = links.indexOf(document.activeElement);
  const next = at < 0 ? (by > 0 ? 0 : links.length - 1) : at + by;
  if (next >= 0 && next < links.length) links[next].focus();
}

document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (document.getElementById("queue") && !typing(target)) {
    if (event.key === "j" || event.key === "n") stepRows(1);
    if (event.key === "k" || event.key === "p") stepRows(-1);
    return;
  }
  if (typing(target)) {
    // A select does not submit its form on Enter as a text field does: the reason list does.
    if (event.key === "Enter" && target.id === "decide-reason-choice") {
      event.preventDefault();
      decide();
    }
    return;
  }
  const key = event.key;
  if (key === "j" || key === "n") {
    go("queue-next");
  } else if (key === "k" || key === "p") {
    go("queue-previous");
  } else if (key === "c") {
    const box = document.getElementById("comment-text");
    if (!box) return;
    event.preventDefault();
    box.focus();
  } else if (/^[1-9lh]$/.test(key)) {
    const take = document.querySelector(`#decide-form button.take[data-key="${key}"]`);
    if (!take) return;
    event.preventDefault();
    choose(take);
  } else {
    return;
  }
});

// A refused decision or comment comes back with what was typed and the refusal: read it first.
document.addEventListener("htmx:afterSwap", () => {
  const error = document.getElementById("decide-error") || document.getElementById("comment-error");
  if (error) error.focus();
});
