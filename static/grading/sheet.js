// The grading sheet, keyboard first: move like a spreadsheet, save each cell when it is left,
// show in place whether the save went through or why it was refused, and keep the selected
// paper's solution, the criterion's guidance, the note and the history beside the grid.
// Every change is kept in the browser until the server has answered it (its queue of changes,
// sheet_queue.js), so that a dropped network, a closed tab or a restarted laptop loses nothing.
// The page reads fine without this module; it only adds entry.

import { setUpBank } from "./sheet_bank.js";
import { setUpQueue } from "./sheet_queue.js";

const grid = document.getElementById("sheet-grid");
if (grid) setUp(grid);

function setUp(grid) {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const locked = grid.dataset.locked === "true";
  // A mark an amendment of the scheme reopened stays open to its juror on a locked
  // (submitted) sheet: they re-confirm it (Enter) or re-mark it.
  const reopenedCount = document.getElementById("reopened-count");
  const cellReopened = document.getElementById("cell-reopened");
  const isReopened = (cell) => cell.classList.contains("reopened");
  const lockedCell = (cell) => locked && !isReopened(cell);
  const status = document.getElementById("sheet-status");
  const progress = document.getElementById("sheet-progress");
  const count = document.getElementById("sheet-count");
  const tools = document.getElementById("cell-tools");
  const cellName = document.getElementById("cell-name");
  const noteInput = document.getElementById("note-input");
  const historyPanel = document.getElementById("history-panel");
  const historyButton = document.getElementById("history-button");
  const solutionPanel = document.getElementById("solution-panel");
  const criteria = [...document.querySelectorAll(".criterion-info")];
  const headers = [...grid.tHead.querySelectorAll("th[data-code]")];
  const legend = [...document.querySelectorAll("#criteria-legend > [data-code]")];

  const rows = [...grid.tBodies[0].rows].filter((row) => row.dataset.label);
  const matrix = rows.map((row) => [...row.querySelectorAll("input.cell")]);
  const place = new Map();
  matrix.forEach((cells, r) => cells.forEach((cell, c) => place.set(cell, [r, c])));
  const flat = matrix.flat();
  const cellByName = new Map(flat.map((cell) => [`${labelOf(cell)} ${cell.dataset.code}`, cell]));

  const solutions = new Map();
  const shown = solutionPanel.querySelector(".solution-body");
  if (shown) solutions.set(shown.dataset.label, solutionPanel.innerHTML);
  let solutionTimer = null;
  let current = null;
  let historyFor = null;
  let pending = 0;

  tools.hidden = false;
  criteria.forEach((info) => (info.hidden = true));

  const url = (template, cell) => address(template, labelOf(cell), cell.dataset.code);
  const address = (template, label, code) =>
    template.replace("__LABEL__", encodeURIComponent(label)).replace("__CODE__", encodeURIComponent(code));

  function labelOf(cell) {
    return cell.closest("tr").dataset.label;
  }

  function say(text, kind = "") {
    status.textContent = text;
    status.className = `sheet-status ${kind}`;
  }

  // ---- moving -------------------------------------------------------------------------------

  function move(r, c) {
    const row = matrix[Math.max(0, Math.min(matrix.length - 1, r))];
    if (!row) return;
    const cell = row[Math.max(0, Math.min(row.length - 1, c))];
    if (cell) cell.focus();
  }

  // Moves to the next cell with neither a saved nor a typed value; false when there is none.
  function nextUngraded(from) {
    const start = from ? flat.indexOf(from) : -1;
    for (let step = 1; step <= flat.length; step += 1) {
      const cell = flat[(start + step) % flat.length];
      if (cell.dataset.saved === "" && cell.value.trim() === "") {
        cell.focus();
        return true;
      }
    }
    return false;
  }

  // What is left to grade, from what the server holds (a typed but unsaved value is not graded).
  function sayWhatIsLeft() {
    const blanks = flat.filter((cell) => cell.dataset.saved === "").length;
    const errors = flat.filter((cell) => cell.classList.contains("error")).length;
    if (errors) {
      say(`${errors} cell${errors === 1 ? " was" : "s were"} not saved; fix ${errors === 1 ? "it" : "them"} or press Esc.`, "bad");
    } else if (blanks) {
      say(`${blanks} cell${blanks === 1 ? " is" : "s are"} still blank.`);
    } else {
      say("Every cell has a value.", "ok");
    }
  }

  function sayLocked() {
    say(grid.dataset.lockReason || "This sheet cannot be changed now.", "bad");
  }

  grid.addEventListener("keydown", (event) => {
    const cell = event.target;
    if (!place.has(cell)) return;
    const [r, c] = place.get(cell);
    switch (event.key) {
      case "ArrowUp":
        move(r - 1, c);
        break;
      case "ArrowDown":
        move(r + 1, c);
        break;
      case "Enter":
        // Points offered by the comment bank are the juror's once they press Enter.
        delete cell.dataset.offered;
        // On a reopened cell, Enter re-confirms the points it shows (or saves those typed).
        if (isReopened(cell)) saveCell(cell, { confirm: true });
        move(event.shiftKey ? r - 1 : r + 1, c);
        break;
      // As in a spreadsheet's entry mode, arrows always move: a number of points is short
      // enough to retype, and a caret walk inside it would make the grid feel sticky.
      case "ArrowLeft":
        move(r, c - 1);
        break;
      case "ArrowRight":
        move(r, c + 1);
        break;
      case "Delete":
        if (lockedCell(cell)) {
          sayLocked();
          return;
        }
        cell.value = "";
        delete cell.dataset.offered;
        break;
      case "Escape":
        delete cell.dataset.offered;
        cell.value = cell.dataset.saved;
        clearError(cell);
        clearConflict(cell);
        cell.select();
        break;
      case "n":
        // In the last ungraded cell there is nowhere to go: save what was typed where it is.
        if (!nextUngraded(cell)) saveCell(cell).then(() => cell.classList.contains("error") || sayWhatIsLeft());
        break;
      case ";":
        noteInput.focus();
        noteInput.select();
        break;
      case "F2":
        if (!event.shiftKey) return;
        noteInput.focus();
        noteInput.select();
        break;
      case "h":
        showHistory(cell);
        break;
      case "c":
        if (locked) sayLocked();
        else bank.open(cell);
        break;
      default:
        // Leave shortcuts (copy, paste, reload) and editing keys alone. Every other printable
        // key is typed as it is, a minus or a letter too: dropping it would turn "-1" into a
        // saved 1. What is not a number of points is refused by the server on leaving the
        // cell, with its own sentence in the cell's bubble, and nothing is saved.
        if (event.ctrlKey || event.metaKey || event.altKey || event.key.length !== 1) {
          if (lockedCell(cell) && event.key === "Backspace") sayLocked();
          if (event.key === "Backspace") delete cell.dataset.offered;
          return;
        }
        if (lockedCell(cell)) {
          sayLocked();
          break;
        }
        delete cell.dataset.offered;
        return;
    }
    event.preventDefault();
  });

  grid.addEventListener("click", (event) => {
    const link = event.target.closest("a.row-label");
    if (!link) return;
    event.preventDefault();
    const row = matrix[rows.indexOf(link.closest("tr"))];
    if (row && row.length) row[0].focus();
  });

  grid.addEventListener("focusin", (event) => {
    const cell = event.target;
    if (!place.has(cell)) return;
    current = cell;
    cell.select();
    const code = cell.dataset.code;
    criteria.forEach((info) => (info.hidden = info.dataset.code !== code));
    // The headers show codes only: the focused cell's column and legend entry light up, and
    // the cell's name beside the grid carries the criterion's full title.
    headers.forEach((th) => th.classList.toggle("current", th.dataset.code === code));
    legend.forEach((item) => item.classList.toggle("current", item.dataset.code === code));
    const header = headers.find((th) => th.dataset.code === code);
    cellName.textContent = `Paper ${labelOf(cell)} · criterion ${code}${header ? `: ${header.title}` : ""}`;
    noteInput.value = queuedValue(cell, "note") ?? cell.dataset.note;
    showReopened(cell);
    showConflict(cell);
    if (historyFor !== cell) {
      historyPanel.textContent = "";
      historyFor = null;
    }
    if (cell.classList.contains("error")) say(cell.dataset.error, "bad");
    selectRow(cell.closest("tr"));
  });

  grid.addEventListener("focusout", (event) => {
    const cell = event.target;
    if (!place.has(cell)) return;
    if (cell.dataset.offered) {
      // Offered points the juror neither kept (Enter) nor typed over are dropped, never saved.
      delete cell.dataset.offered;
      cell.value = cell.dataset.saved;
    }
    saveCell(cell);
  });

  // ---- saving -------------------------------------------------------------------------------

  async function fetchText(address) {
    try {
      const response = await fetch(address, { credentials: "same-origin" });
      return response.ok ? await response.text() : null;
    } catch {
      return null;
    }
  }

  // What the sheet's comment bank posts (a note's use, a proposal): sent at once, not queued.
  function post(target, fields) {
    const body = new URLSearchParams(fields);
    pending += 1;
    return fetch(target, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf, Accept: "application/json" },
    })
      .then(async (response) => {
        let data = null;
        try {
          data = await response.json();
        } catch {
          data = { error: `The server answered ${response.status}; nothing was saved.` };
        }
        return { ok: response.ok, data };
      })
      .catch(() => ({
        ok: false,
        data: { error: "The server could not be reached; nothing was changed. Try again once it is back." },
      }))
      .finally(() => {
        pending -= 1;
      });
  }

  // The tab sends one request at a time: saves land in the order they were typed, each carries
  // the version the previous save of its cell returned (so a tab never refuses its own second
  // save as stale), and the server never sees one juror's writes race each other.
  let chain = Promise.resolve();
  function serial(task) {
    const run = chain.then(task);
    chain = run.catch(() => {});
    return run;
  }

  // ---- the queue of changes (sheet_queue.js) -------------------------------------------------

  const queue = setUpQueue({
    grid,
    csrf,
    cellByName,
    labelOf,
    address,
    serial,
    say,
    noteInput,
    currentCell: () => current,
    showError,
    clearError,
    applied,
    takeServers,
  });
  const { queuedValue, lastSettled, enqueue, flush, conflictOf, showConflict, clearConflict } = queue;

  // A change the server saved, shown in its cell.
  function applied(entry, cell, data) {
    if (entry.kind === "note") {
      noteInput.classList.remove("error");
      cell.dataset.note = data.note;
      cell.dataset.version = data.version;
      cell.classList.toggle("has-note", data.note !== "");
      if (!cell.classList.contains("error")) cell.title = data.note;
      if (current === cell && document.activeElement !== noteInput) {
        noteInput.value = queuedValue(cell, "note") ?? data.note;
      }
      say(`Saved the note of ${labelOf(cell)} ${cell.dataset.code}.`, "ok");
    } else {
      const before = cell.dataset.saved;
      cell.dataset.saved = data.points;
      cell.dataset.version = data.version;
      // What was typed since (or waits behind this change) stays in the cell.
      if (cell.value.trim() === entry.value && queuedValue(cell, "points") === undefined) {
        cell.value = data.points;
      }
      clearError(cell);
      clearConflict(cell);
      flashSaved(cell);
      countChange(before, data.points);
      updateTotal(cell.closest("tr"));
      if (isReopened(cell)) {
        closeReopened(cell);
        const done = data.points === before ? "Re-confirmed" : "Re-marked";
        say(`${done} ${labelOf(cell)} ${cell.dataset.code}: ${data.points}.`, "ok");
      } else {
        say(`Saved ${labelOf(cell)} ${cell.dataset.code}: ${data.points || "blank"}.`, "ok");
      }
    }
    if (historyFor === cell) showHistory(cell);
  }

  // "Use the server's" on a refused change: the server's value, as it holds it, into the cell.
  function takeServers(cell, conflict) {
    if (conflict.kind === "note") {
      cell.dataset.note = conflict.theirs;
      cell.dataset.version = conflict.version;
      cell.classList.toggle("has-note", conflict.theirs !== "");
      cell.title = conflict.theirs;
      noteInput.value = conflict.theirs;
      say(`The note of ${labelOf(cell)} ${cell.dataset.code} is the server's.`, "ok");
    } else {
      const before = cell.dataset.saved;
      cell.dataset.saved = conflict.theirs;
      cell.dataset.version = conflict.version;
      cell.value = conflict.theirs;
      countChange(before, conflict.theirs);
      updateTotal(cell.closest("tr"));
      say(`${labelOf(cell)} ${cell.dataset.code} is the server's: ${conflict.theirs || "blank"}.`, "ok");
    }
  }

  // Resolves once this change (and every one before it) has been answered.
  function saveCell(cell, { confirm = false } = {}) {
    if (lockedCell(cell)) return Promise.resolve();
    const value = cell.value.trim();
    // A refused change is not sent again by leaving its cell: "Keep mine" or "Use the
    // server's" decides it, or a new value typed over it.
    if (cell.dataset.conflict && value === conflictOf(cell).mine) {
      return Promise.resolve();
    }
    const last = queuedValue(cell, "points");
    if (value === (last ?? cell.dataset.saved) && !(confirm && isReopened(cell))) {
      if (last === undefined && !cell.dataset.conflict) clearError(cell);
      return flush().then(() => chain);
    }
    return enqueue(cell, "points", value, { confirm });
  }

  // ---- reopened marks ------------------------------------------------------------------------

  function showReopened(cell) {
    if (!cellReopened) return;
    cellReopened.hidden = !isReopened(cell);
    // The page writes the cell's sentence (which version, why, and whether Enter re-confirms
    // its points or they no longer fit and new ones are typed); read aloud with the cell too.
    cellReopened.textContent = isReopened(cell) ? cell.getAttribute("aria-description") : "";
  }

  function closeReopened(cell) {
    cell.classList.remove("reopened");
    cell.closest("td").classList.remove("reopened");
    cell.closest("td").querySelector(".reopened-tag")?.remove();
    cell.removeAttribute("aria-description");
    delete cell.dataset.reopened;
    if (locked) cell.readOnly = true;
    if (current === cell) showReopened(cell);
    if (reopenedCount) {
      const left = Number(reopenedCount.dataset.count) - 1;
      reopenedCount.dataset.count = left;
      reopenedCount.querySelector("strong").textContent =
        left === 1 ? "1 mark to re-confirm" : `${left} marks to re-confirm`;
    }
  }

  // Resolves to whether the note is saved (or was already).
  function saveNote(cell, note) {
    if (locked) return Promise.resolve(false);
    // The same note again waits for the one on its way, so that what follows reads it saved.
    if (note.trim() === (queuedValue(cell, "note") ?? cell.dataset.note)) return lastSettled(cell);
    const conflict = conflictOf(cell);
    if (conflict?.kind === "note" && note.trim() === conflict.mine) return Promise.resolve(false);
    return enqueue(cell, "note", note.trim());
  }

  function showError(cell, message) {
    cell.classList.add("error");
    cell.setAttribute("aria-invalid", "true");
    cell.dataset.error = message;
    cell.title = message;
    const td = cell.parentElement;
    let bubble = td.querySelector(".cell-msg");
    if (!bubble) {
      // Kept in the accessibility tree while out of sight (see sheet.css), so that the alert is
      // announced when it is inserted and the cell can name it as its description.
      bubble = document.createElement("span");
      bubble.className = "cell-msg";
      bubble.id = `cell-msg-${flat.indexOf(cell)}`;
      bubble.setAttribute("role", "alert");
    }
    bubble.textContent = message;
    if (!bubble.isConnected) td.append(bubble);
    cell.setAttribute("aria-describedby", bubble.id);
    say(message, "bad");
  }

  function clearError(cell) {
    if (!cell.classList.contains("error")) return;
    cell.classList.remove("error");
    cell.removeAttribute("aria-invalid");
    cell.removeAttribute("aria-describedby");
    delete cell.dataset.error;
    cell.title = cell.dataset.note;
    cell.parentElement.querySelector(".cell-msg")?.remove();
  }

  function flashSaved(cell) {
    cell.classList.add("saved");
    setTimeout(() => cell.classList.remove("saved"), 1200);
  }

  function countChange(before, after) {
    const delta = (after !== "" ? 1 : 0) - (before !== "" ? 1 : 0);
    if (!delta) return;
    const graded = Number(count.dataset.graded) + delta;
    count.dataset.graded = graded;
    count.textContent = `${graded} of ${count.dataset.cells}`;
    progress.value = graded;
  }

  function updateTotal(row) {
    let total = 0;
    let graded = 0;
    row.querySelectorAll("input.cell").forEach((cell) => {
      if (cell.dataset.saved === "") return;
      total += Number(cell.dataset.saved);
      graded += 1;
    });
    // A row with nothing graded has no total yet: blank, never 0.
    row.querySelector("[data-total]").textContent = graded ? String(Number(total.toFixed(2))) : "";
  }

  // ---- note and history -----------------------------------------------------------------------

  noteInput.addEventListener("keydown", (event) => {
    if (!current) return;
    if (locked && (event.key.length === 1 || event.key === "Backspace" || event.key === "Delete")) {
      sayLocked();
      return;
    }
    if (event.key === "Enter") {
      event.preventDefault();
      current.focus(); // leaving the note saves it
    } else if (event.key === "Escape") {
      event.preventDefault();
      noteInput.value = queuedValue(current, "note") ?? current.dataset.note;
      current.focus();
    }
  });

  noteInput.addEventListener("focusout", () => {
    if (current) saveNote(current, noteInput.value);
  });

  historyButton.addEventListener("click", () => {
    if (current) showHistory(current);
  });

  async function showHistory(cell) {
    historyFor = cell;
    const html = await serial(() => fetchText(`${url(grid.dataset.historyUrl, cell)}?partial=1`));
    if (historyFor !== cell) return;
    historyPanel.innerHTML = html ?? '<p class="error">The history could not be loaded.</p>';
  }

  // ---- the selected paper's solution ----------------------------------------------------------

  function selectRow(row) {
    if (row.classList.contains("selected")) return;
    grid.querySelectorAll("tr.selected").forEach((other) => other.classList.remove("selected"));
    row.classList.add("selected");
    const label = row.dataset.label;
    clearTimeout(solutionTimer);
    if (solutions.has(label)) {
      solutionPanel.innerHTML = solutions.get(label);
      return;
    }
    // Arrowing through rows should not fire a request per row passed.
    solutionTimer = setTimeout(async () => {
      const address = grid.dataset.solutionUrl.replace("__LABEL__", encodeURIComponent(label));
      const html = await serial(() => fetchText(address));
      if (html === null) return;
      solutions.set(label, html);
      if (row.classList.contains("selected")) solutionPanel.innerHTML = solutions.get(label);
    }, 150);
  }

  const bank = setUpBank({ post, say, saveNote, noteInput, currentCell: () => current });

  let submitting = false;
  window.addEventListener("beforeunload", (event) => {
    if (submitting && !queue.waiting()) return;
    const dirty =
      current && !current.classList.contains("error") && current.value.trim() !== current.dataset.saved;
    if (queue.waiting() || pending > 0 || dirty) event.preventDefault();
  });

  // Submitting first saves the cell being typed and waits for every save to land, so that the
  // server sees the sheet as the juror does; then it asks, since a submitted sheet is final
  // until the resolution phase. The server checks the blanks again under the sheet's lock.
  const submitForm = document.getElementById("submit-form");
  if (submitForm && !locked) {
    submitForm.addEventListener("submit", async (event) => {
      if (submitting) return;
      event.preventDefault();
      if (current) saveCell(current);
      say("Saving before submitting…");
      await flush();
      await chain;
      if (queue.waiting()) {
        const n = queue.waiting();
        say(`Not submitted: ${n} change${n === 1 ? " is" : "s are"} still waiting for the server; submit again once ${n === 1 ? "it is" : "they are"} saved.`, "bad");
        return;
      }
      const blanks = flat.filter((cell) => cell.dataset.saved === "").length;
      const errors = flat.filter((cell) => cell.classList.contains("error")).length;
      if (errors) {
        say(`${errors} cell${errors === 1 ? " was" : "s were"} not saved; fix ${errors === 1 ? "it" : "them"} before submitting.`, "bad");
        return;
      }
      const filled = flat.length - blanks;
      const question =
        `Submit ${submitForm.dataset.problem}: ${filled} of ${flat.length} cells graded. ` +
        // A calibration sheet says what follows its own submission (data-afterwards).
        (submitForm.dataset.afterwards || "You cannot change them afterwards, until the resolution phase.");
      if (!window.confirm(question)) {
        say("Not submitted.");
        return;
      }
      submitting = true;
      submitForm.submit();
    });
  }

  const first = rows.find((row) => row.classList.contains("selected"));
  if (first) first.classList.remove("selected");
  // What waits from an earlier visit (a reload, a closed tab) shows in its cells and is sent.
  queue.showWaiting();

  if (locked || !nextUngraded(null)) {
    if (flat.length) flat[0].focus();
    if (!locked && flat.length) sayWhatIsLeft();
  }
  queue.sendWaiting();
}
