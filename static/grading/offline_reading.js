// Keeps the sheet readable offline: registers the site's service worker (static/grading/
// sheet_worker.js, served at the address the script tag's data-worker names), which copies this
// page and what it fetches and reads them back when the network fails. On the sheet's first
// visit the worker takes control only after the page has loaded, so the page then asks it to
// copy the page and the files it already loaded.
//
// A sheet read from its copy shows the marks as they were when it was copied. The saves made
// since then are remembered here, in this browser, under the juror's and the sheet's key (as
// the sheet's queue of waiting changes is, static/grading/sheet_queue.js): a copy read offline is
// brought up to them before sheet.js reads the grid (this module comes first in the page), and
// then sheet.js shows what still waits. A page from the server is never touched: it is the
// truth, and the saves remembered before it are forgotten.
//
// <html data-offline-reading> says how far it got, once the worker has answered: "kept" when a
// copy of this page is in the reader's cache, "not kept" when not (nobody signed in, the network
// gone meanwhile), "unavailable" where the browser has no service workers.

const root = document.documentElement;
const grid = document.getElementById("sheet-grid");
const savedKey = grid && grid.dataset.queueKey ? `jury-saved:${grid.dataset.queueKey}` : null;
if (savedKey) {
  if (root.dataset.offlineCopy !== undefined) catchUp();
  else forget();
  forgetOtherReaders();
  rememberSaves();
}
const tag = document.querySelector("script[data-worker]");
if (tag) register(tag.dataset.worker);

async function register(address) {
  if (!("serviceWorker" in navigator)) {
    root.dataset.offlineReading = "unavailable";
    return;
  }
  const container = navigator.serviceWorker;
  const controlledFromTheStart = Boolean(container.controller);
  container.addEventListener("message", (event) => {
    if (!event.data || event.data.page !== location.href) return;
    root.dataset.offlineReading = event.data.kept ? "kept" : "not kept";
  });
  // Offline the worker's script cannot be fetched; the registration already made stays.
  container.register(address).catch(() => {});
  const registration = await container.ready;
  // Controlled from the start, the worker copied the page as it came: it only says so.
  registration.active.postMessage({ copy: controlledFromTheStart ? [] : [location.href, ...loaded()] });
}

// The files this page loaded from the server: its scripts, styles, fonts and images (a paper's
// scanned pages). What its scripts fetched or posted is left out: a save is never sent again.
function loaded() {
  const kinds = new Set(["script", "link", "css", "img", "other"]);
  return performance
    .getEntriesByType("resource")
    .filter((entry) => kinds.has(entry.initiatorType) && new URL(entry.name).origin === location.origin)
    .map((entry) => entry.name);
}

// ---- the saves made since the page was copied ------------------------------------------------

function cellName(cell) {
  return `${cell.closest("tr").dataset.label} ${cell.dataset.code}`;
}

function readSaves() {
  try {
    const saves = JSON.parse(localStorage.getItem(savedKey) || "{}");
    return saves && typeof saves === "object" ? saves : {};
  } catch {
    return {};
  }
}

function forget() {
  try {
    localStorage.removeItem(savedKey);
  } catch {
    // Storage refused: nothing was remembered either.
  }
}

// Whoever signed in before on this browser without signing out (an ended session) leaves
// nothing here for the next person: their remembered saves go (not their waiting changes,
// which are theirs to send when they are back).
function forgetOtherReaders() {
  const mine = `jury-saved:${grid.dataset.queueKey.split(":")[0]}:`;
  try {
    Object.keys(localStorage)
      .filter((key) => key.startsWith("jury-saved:") && !key.startsWith(mine))
      .forEach((key) => localStorage.removeItem(key));
  } catch {
    // Storage refused: nothing was remembered either.
  }
}

// Every save the server acknowledges moves its cell's version (sheet.js writes the points or
// the note first, then the version): each one is remembered with what it stored.
function rememberSaves() {
  const saves = readSaves();
  const observer = new MutationObserver((changes) => {
    changes.forEach(({ target: cell }) => {
      if (!cell.matches("input.cell")) return;
      const { saved, version, note } = cell.dataset;
      saves[cellName(cell)] = { saved, version, note };
    });
    try {
      localStorage.setItem(savedKey, JSON.stringify(saves));
    } catch {
      // Storage refused or full: a copy read offline shows the marks as they were copied.
    }
  });
  observer.observe(grid, { subtree: true, attributes: true, attributeFilter: ["data-version"] });
}

// A copy read offline: each cell saved since it was copied shows what the server stored, with
// the version its next change is based on; the row's total and the count follow, as sheet.js
// keeps them (a row with nothing graded has no total: blank, never 0).
function catchUp() {
  const saves = readSaves();
  const count = document.getElementById("sheet-count");
  const progress = document.getElementById("sheet-progress");
  const rows = new Set();
  let graded = Number(count?.dataset.graded);
  grid.querySelectorAll("input.cell").forEach((cell) => {
    const save = saves[cellName(cell)];
    if (!save || !(Number(save.version) > Number(cell.dataset.version))) return;
    const before = cell.dataset.saved;
    if (cell.value === before) cell.value = save.saved;
    cell.dataset.saved = save.saved;
    cell.dataset.version = save.version;
    cell.dataset.note = save.note;
    cell.classList.toggle("has-note", save.note !== "");
    graded += (save.saved !== "" ? 1 : 0) - (before !== "" ? 1 : 0);
    rows.add(cell.closest("tr"));
  });
  rows.forEach((row) => {
    const marks = [...row.querySelectorAll("input.cell")].filter((cell) => cell.dataset.saved !== "");
    const total = marks.reduce((sum, cell) => sum + Number(cell.dataset.saved), 0);
    row.querySelector("[data-total]").textContent = marks.length ? String(Number(total.toFixed(2))) : "";
  });
  if (count && rows.size) {
    count.dataset.graded = graded;
    count.textContent = `${graded} of ${count.dataset.cells}`;
    if (progress) progress.value = graded;
  }
  sayItIsACopy();
}

function sayItIsACopy() {
  const notice = document.createElement("p");
  notice.className = "notice";
  notice.id = "offline-copy";
  const sent = new Date(root.dataset.offlineCopy);
  const when = Number.isNaN(sent.getTime())
    ? ""
    : ` as it was at ${sent.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
  notice.textContent =
    `The server cannot be reached: this is the copy of your sheet kept in this browser${when}, ` +
    "with your marks saved since. What you type waits here and is sent once the server is back.";
  document.querySelector(".sheet-bar")?.before(notice);
}
