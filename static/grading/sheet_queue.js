// The sheet's queue of changes (static/grading/sheet.js): a change (a cell's points, a note)
// joins the queue the moment its cell is left, and the queue is kept in localStorage under the
// signed-in juror's and the sheet's key until the server has answered each change: sent in
// order, one at a time, and again with backoff while the network or the server is away (a
// network error; a server fault: 429, any 5xx, or an answer that is not the app's JSON, such as
// a proxy's error page), except a change the server keeps failing on while it answers the next
// one, which is refused in its cell (`sendPast`). Each change carries a random key and the
// version it was based on, so that a change whose answer was lost (or that was applied just
// before a fault) is recognised by the server and never applied twice
// (grading.marking.change_keys). A change the server refuses (the app's own JSON sentence)
// leaves the queue and stays in its cell with both values, for the juror to keep or drop (the
// conflict panel).
// The sheet passes in what only it knows: how to show a saved change in its cell (`applied`),
// how to take the server's value into a cell (`takeServers`), a cell's error bubble.

export function setUpQueue({
  grid,
  csrf,
  cellByName,
  labelOf,
  address,
  serial,
  say,
  noteInput,
  currentCell,
  showError,
  clearError,
  applied,
  takeServers,
}) {
  // Each tab keeps its own queue (under the sheet's key and the tab's), so that two tabs on
  // one sheet never overwrite each other's; a tab opening the sheet takes over every queue left
  // for it, and a change sent by two tabs is applied once all the same (its key).
  const sheetKey = grid.dataset.queueKey ? `jury-pending:${grid.dataset.queueKey}:` : null;
  const storeKey = sheetKey ? `${sheetKey}${newKey()}` : null;
  const RETRY_FIRST_MS = 1000;
  const RETRY_MOST_MS = 30000;
  // Server errors (500) one change meets before the next is tried past it (`sendPast`).
  const STUCK_AFTER = 3;
  const queue = readQueue();
  const settlers = new Map();
  const settling = new Map();
  const conflictPanel = makeConflictPanel();
  let sending = false;
  let idle = Promise.resolve();
  let retryDelay = 0;
  let retryTimer = null;
  // What the status line says the changes wait for: the network ("offline"), the server
  // ("server"), or the juror signing in again ("signed-out").
  let retryReason = "offline";
  let wasWaiting = false;
  // The sentence for a change the server failed on (`sendPast`), said once the queue is done.
  let failedSentence = null;

  // ---- storage ----------------------------------------------------------------------------

  function readQueue() {
    if (!sheetKey) return [];
    const taken = [];
    try {
      Object.keys(localStorage)
        .filter((key) => key.startsWith(sheetKey))
        .forEach((key) => {
          const stored = JSON.parse(localStorage.getItem(key) || "[]");
          if (Array.isArray(stored)) taken.push(...stored);
          localStorage.removeItem(key);
        });
    } catch {
      // Storage refused or a queue unreadable: what could be read is taken.
    }
    // The order the changes were typed in, whichever tab typed them.
    taken.sort((a, b) => (a.typed ?? 0) - (b.typed ?? 0));
    if (taken.length) {
      try {
        localStorage.setItem(storeKey, JSON.stringify(taken));
      } catch {
        // Kept in this tab only.
      }
    }
    return taken;
  }

  function writeQueue() {
    if (!storeKey) return;
    try {
      if (queue.length) localStorage.setItem(storeKey, JSON.stringify(queue));
      else localStorage.removeItem(storeKey);
    } catch {
      // Storage refused (private mode, full): the queue still lives as long as the tab does.
    }
  }

  // Not crypto.randomUUID: that one exists only on https and localhost, and a jury's server
  // on a room's network may be neither.
  function newKey() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  }

  // Signing out clears this juror's waiting changes from the browser (the leaving already asked
  // if any wait): a shared computer keeps nothing of theirs for the next person.
  let signingOut = false;
  const storePrefix = storeKey ? `jury-pending:${grid.dataset.queueKey.split(":")[0]}:` : null;
  document.querySelectorAll('form[action$="/accounts/logout/"]').forEach((form) =>
    form.addEventListener("submit", () => {
      signingOut = true;
    }),
  );
  window.addEventListener("pagehide", () => {
    if (!signingOut || !storePrefix) return;
    Object.keys(localStorage)
      .filter((key) => key.startsWith(storePrefix))
      .forEach((key) => localStorage.removeItem(key));
  });

  // ---- what waits -------------------------------------------------------------------------

  const ofCell = (entry, cell) => entry.label === labelOf(cell) && entry.code === cell.dataset.code;

  // The value the cell will hold once the queue has gone through; undefined when none waits.
  function queuedValue(cell, kind) {
    return lastQueued(cell, kind)?.value;
  }

  function lastQueued(cell, kind) {
    const waiting = queue.filter((entry) => entry.kind === kind && ofCell(entry, cell));
    return waiting[waiting.length - 1];
  }

  // Resolves once every change waiting for the cell is answered: to whether the last one was
  // saved (at once to true when none waits).
  function lastSettled(cell) {
    const waiting = queue.filter((entry) => ofCell(entry, cell));
    const last = waiting[waiting.length - 1];
    return (last && settling.get(last.key)) || Promise.resolve(true);
  }

  // Resolves once this change (and every one before it) has been answered: to whether it was
  // saved.
  function enqueue(cell, kind, value, { confirm = false, version = null } = {}) {
    // A change's base is the version its cell is at; a change behind another of the same mark
    // still waiting takes the version that one's answer gives, when it is sent.
    const behind = queue.some((entry) => ofCell(entry, cell));
    const entry = {
      key: newKey(),
      kind,
      label: labelOf(cell),
      code: cell.dataset.code,
      value,
      confirm,
      version: version ?? (behind ? null : Number(cell.dataset.version)),
      typed: Date.now(),
    };
    queue.push(entry);
    writeQueue();
    showPending(cell);
    const settled = new Promise((resolve) => settlers.set(entry.key, resolve));
    settling.set(entry.key, settled);
    flush();
    sayQueue();
    return settled;
  }

  function showPending(cell) {
    const waiting = queue.some((entry) => ofCell(entry, cell));
    cell.classList.toggle("pending", waiting);
    const td = cell.parentElement;
    let tag = td.querySelector(".pending-tag");
    if (waiting && !tag) {
      tag = document.createElement("span");
      tag.className = "pending-tag visually-hidden";
      tag.textContent = "not saved yet";
      td.append(tag);
    } else if (!waiting && tag) {
      tag.remove();
    }
  }

  function sayQueue() {
    const n = queue.length;
    const changes = `${n} change${n === 1 ? "" : "s"} waiting`;
    if (n && retryTimer) {
      const waitingFor = {
        server: `The server is not answering: ${changes}`,
        "signed-out": `You are signed out: sign in again (in another tab) and they are sent; ${changes}`,
      };
      say(waitingFor[retryReason] || `Offline: ${changes}`, "bad");
    } else if (n && wasWaiting) {
      say("Saving…");
    }
  }

  // ---- sending ----------------------------------------------------------------------------

  // Resolves once the queue is empty or waits for a retry.
  function flush() {
    if (sending || retryTimer || !queue.length) return idle;
    sending = true;
    idle = sendAll().finally(() => {
      sending = false;
    });
    return idle;
  }

  async function sendAll() {
    sayQueue();
    let refusals = 0;
    while (queue.length) {
      const entry = queue[0];
      const answer = await serial(() => send(withVersion(entry)));
      if (answer.retry) {
        if (answer.status === 500) entry.faults = (entry.faults || 0) + 1;
        if (entry.faults >= STUCK_AFTER && queue.length > 1) {
          const past = await sendPast(entry);
          refusals += past;
          if (past) continue;
        }
        scheduleRetry(answer.retry);
        return;
      }
      queue.shift();
      writeQueue();
      retryDelay = 0;
      if (!answered(entry, answer)) refusals += 1;
    }
    // A refusal's sentence stays on the status line: not everything was saved. A change the
    // server failed on is said last, over the saves that went on after it.
    if (wasWaiting && !refusals) say("All changes saved", "ok");
    if (failedSentence) say(failedSentence, "bad");
    failedSentence = null;
    wasWaiting = false;
  }

  // A change behind another of its mark takes the version that one's answer gave, when sent.
  function withVersion(entry) {
    const cell = cellByName.get(`${entry.label} ${entry.code}`);
    if (entry.version === null && cell) {
      entry.version = Number(cell.dataset.version);
      writeQueue();
    }
    return entry;
  }

  // What the server answered a change, shown in its cell (or on the status line when its row
  // has left the sheet); whether it was saved.
  function answered(entry, answer) {
    const cell = cellByName.get(`${entry.label} ${entry.code}`);
    if (!cell) {
      // Its row is no longer on this sheet (the paper moved away since the change was typed).
      say(`Not saved: ${entry.label} ${entry.code}: ${answer.data.error || "this cell is no longer on your sheet."}`, "bad");
    } else {
      showPending(cell);
      if (answer.ok) applied(entry, cell, answer.data);
      else refused(entry, cell, answer.data, answer.status);
    }
    settlers.get(entry.key)?.(answer.ok);
    settlers.delete(entry.key);
    settling.delete(entry.key);
    return answer.ok;
  }

  // A change the server keeps failing on (its own error, 500) holds back every change behind
  // it. The next one is tried once: if the server takes or refuses it, the fault is this
  // change's alone (a bug, not a server that is away), so it leaves the queue, refused in its
  // cell with a sentence, and the rest goes on. If the next one fails too, the server is what
  // is wrong, and both wait. Alone in the queue, a change holds nothing back and waits.
  // How many changes were not saved (the stuck one, and the next if refused); 0 when both wait.
  async function sendPast(stuck) {
    const next = queue[1];
    // A change behind another of its mark takes that one's version only once it is answered:
    // tried past it and failing too, it waits for that answer again.
    const behind = next.version === null;
    const answer = await serial(() => send(withVersion(next)));
    if (answer.retry) {
      if (behind) next.version = null;
      writeQueue();
      return 0;
    }
    queue.splice(0, 2);
    writeQueue();
    retryDelay = 0;
    const failed =
      `The server failed on this change ${stuck.faults} times (an error of its own) while it ` +
      "answered your next one; it is not saved. Type it again to try once more.";
    answered(stuck, { ok: false, status: 500, data: { error: failed } });
    failedSentence = `Not saved: ${stuck.label} ${stuck.code}: ${failed}`;
    return answered(next, answer) ? 1 : 2;
  }

  async function send(entry) {
    const template = entry.kind === "note" ? grid.dataset.noteUrl : grid.dataset.cellUrl;
    const fields = { version: entry.version, change_key: entry.key };
    fields[entry.kind === "note" ? "note" : "points"] = entry.value;
    let response;
    try {
      response = await fetch(address(template, entry.label, entry.code), {
        method: "POST",
        body: new URLSearchParams(fields),
        credentials: "same-origin",
        headers: { "X-CSRFToken": csrfNow(), Accept: "application/json" },
      });
    } catch {
      return { retry: "offline" };
    }
    // A session that ended is sent to the sign-in page: the change waits for the juror's return
    // (signing in again in another tab), and the status line says so.
    if (response.redirected) {
      const signIn = new URL(response.url).pathname.startsWith("/accounts/login/");
      return { retry: signIn ? "signed-out" : "offline" };
    }
    // A server fault (a restart, a locked database, an overloaded server, a proxy in front of
    // it) is waited out as a dropped network is: the change may have been applied before the
    // fault, and its key makes the retry harmless.
    if (response.status === 429 || response.status >= 500) {
      return { retry: "server", status: response.status };
    }
    const data = await appAnswer(response);
    if (data === null) {
      // Not the app's own answer: a proxy's or a captive portal's page. Only a 4xx stays a
      // refusal (the app's own "not found" or "forbidden" page, which a retry would not change).
      if (response.ok) return { retry: "server" };
      return {
        ok: false,
        status: response.status,
        data: { error: `The server answered ${response.status}; nothing was saved.` },
      };
    }
    return { ok: response.ok, status: response.status, data };
  }

  // The CSRF token as the browser holds it now: signing in again (after a session ended, in
  // another tab) gives a new one, which the copy this page came with would no longer match.
  function csrfNow() {
    for (const part of document.cookie.split("; ")) {
      const [name, value] = part.split("=");
      if (name === "__Host-csrftoken" || name === "csrftoken") return decodeURIComponent(value);
    }
    return csrf;
  }

  // The app's JSON answer (a save's, a refusal's), or null when the answer is anything else.
  async function appAnswer(response) {
    if (!(response.headers.get("Content-Type") || "").startsWith("application/json")) return null;
    try {
      const data = await response.json();
      return data && typeof data === "object" ? data : null;
    } catch {
      return null;
    }
  }

  function scheduleRetry(reason) {
    retryReason = reason;
    retryDelay = retryDelay ? Math.min(retryDelay * 2, RETRY_MOST_MS) : RETRY_FIRST_MS;
    wasWaiting = true;
    retryTimer = setTimeout(retryNow, retryDelay);
    sayQueue();
  }

  function retryNow() {
    clearTimeout(retryTimer);
    retryTimer = null;
    flush();
  }

  window.addEventListener("online", () => {
    if (retryTimer) retryNow();
  });
  // Back on the sheet (from signing in again in another tab, or a laptop waking): try at once
  // rather than after the backoff.
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && retryTimer) retryNow();
  });

  // ---- refusals and the conflict panel ----------------------------------------------------

  // A refusal the juror can settle by choosing (a stale version, the chair's decision, a locked
  // sheet) keeps both values; bad input (422, 400) is only retyped.
  function refused(entry, cell, data, status) {
    const conflict = (status === 403 || status === 409) && data.version !== undefined;
    if (entry.kind === "note") {
      say(`Note not saved: ${data.error}`, "bad");
      noteInput.classList.add("error");
    } else {
      showError(cell, data.error);
    }
    if (!conflict) return;
    const theirs = entry.kind === "note" ? data.note : data.points;
    cell.dataset.conflict = JSON.stringify({
      kind: entry.kind,
      mine: entry.value,
      theirs,
      version: data.version,
      error: data.error,
    });
    if (entry.kind !== "note") {
      const bubble = cell.parentElement.querySelector(".cell-msg");
      const both = document.createElement("span");
      both.className = "both-values";
      both.textContent = ` Yours: ${entry.value || "blank"}; the server's: ${theirs || "blank"}.`;
      bubble.append(both);
    }
    if (currentCell() === cell) showConflict(cell);
  }

  function makeConflictPanel() {
    const panel = document.createElement("div");
    panel.className = "cell-conflict";
    panel.id = "cell-conflict";
    panel.hidden = true;
    const text = document.createElement("p");
    const keep = document.createElement("button");
    keep.type = "button";
    keep.textContent = "Keep mine";
    const drop = document.createElement("button");
    drop.type = "button";
    drop.textContent = "Use the server's";
    panel.append(text, keep, " ", drop);
    keep.addEventListener("click", () => settleConflict(true));
    drop.addEventListener("click", () => settleConflict(false));
    document.getElementById("cell-name").after(panel);
    return panel;
  }

  function conflictOf(cell) {
    return cell.dataset.conflict ? JSON.parse(cell.dataset.conflict) : null;
  }

  function showConflict(cell) {
    const conflict = conflictOf(cell);
    conflictPanel.hidden = !conflict;
    if (!conflict) return;
    const what = conflict.kind === "note" ? "note" : "points";
    const shown = (value) => (conflict.kind === "note" ? `“${value}”` : value || "blank");
    conflictPanel.querySelector("p").textContent =
      `Your ${what} were not saved: ${conflict.error} Yours: ${shown(conflict.mine)}; ` +
      `the server's: ${shown(conflict.theirs)}.`;
  }

  // "Keep mine" sends the juror's value again, based on the version the server holds (and is
  // checked again like any save: a chair's decision still refuses it); "Use the server's" takes
  // the server's value into the cell.
  function settleConflict(keepMine) {
    const cell = currentCell();
    if (!cell || !cell.dataset.conflict) return;
    const conflict = conflictOf(cell);
    clearConflict(cell);
    clearError(cell);
    noteInput.classList.remove("error");
    if (keepMine) {
      if (conflict.kind === "points") cell.value = conflict.mine;
      enqueue(cell, conflict.kind, conflict.mine, { version: conflict.version, confirm: false });
    } else {
      takeServers(cell, conflict);
    }
    cell.focus();
  }

  function clearConflict(cell) {
    if (!cell.dataset.conflict) return;
    delete cell.dataset.conflict;
    if (currentCell() === cell) showConflict(cell);
  }

  // What waits from an earlier visit (a reload, a closed tab) shows in its cells ...
  function showWaiting() {
    queue.forEach((entry) => {
      const cell = cellByName.get(`${entry.label} ${entry.code}`);
      if (!cell) return;
      if (entry.kind === "points") cell.value = entry.value;
      showPending(cell);
    });
  }

  // ... and is sent, once the sheet has said what is left to grade.
  function sendWaiting() {
    if (!queue.length) return;
    wasWaiting = true;
    flush();
  }

  return {
    enqueue,
    queuedValue,
    lastSettled,
    flush,
    waiting: () => queue.length,
    conflictOf,
    showConflict,
    clearConflict,
    showWaiting,
    sendWaiting,
  };
}
