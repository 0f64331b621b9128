// The scan viewer (templates/grading/_scan_viewer.html): one page of a paper's scanned answer
// at a time, with zoom, pan and page keys. Keyboard first: the keys work wherever the focus
// is, the grading sheet's cells included, so that a juror turns pages and zooms without
// leaving the cell being graded. The sheet swaps its solution pane's HTML as rows change, so
// viewers are found when a key is pressed and set up as they appear.

const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4];
const FIT = ZOOMS.indexOf(1);

// The page and zoom of the last viewer shown: a page that swaps its HTML for the same paper
// (a comment posted on the discussion page, a live refresh) keeps them; another paper starts
// at its first page.
let last = { paper: null, page: 0, zoom: FIT };

function paperOf(view) {
  return view.querySelector("[data-scan-frame]").getAttribute("aria-label");
}

function viewer() {
  return document.querySelector("[data-scan-viewer]");
}

function setUp(view) {
  if (view.dataset.ready) return;
  view.dataset.ready = "1";
  const same = last.paper === paperOf(view);
  view.dataset.page = String(same ? Math.min(last.page, pages(view).length - 1) : 0);
  view.dataset.zoom = String(same ? last.zoom : FIT);
  view.classList.add("scripted");
  view.querySelectorAll(".scan-toolbar, .scan-keys").forEach((element) => (element.hidden = false));
  view.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-scan]");
    if (button) act(view, button.dataset.scan);
  });
  // Buttons act without taking the focus, so that a juror clicking them stays in the cell.
  view.addEventListener("mousedown", (event) => {
    if (event.target.closest("button[data-scan]")) event.preventDefault();
  });
  const frame = view.querySelector("[data-scan-frame]");
  drag(frame);
  show(view);
  // The juror sets the side panel's width (side_panel.js): a fitted page follows it by CSS, a
  // zoomed one is sized again from the frame's new width.
  let seen = frame.clientWidth;
  new ResizeObserver(() => {
    if (frame.clientWidth === seen) return;
    seen = frame.clientWidth;
    if (view.classList.contains("zoomed")) show(view, { keepReading: true });
  }).observe(frame);
}

function pages(view) {
  return [...view.querySelectorAll(".scan-page")];
}

// The reading position: the point of the shown page at the view's top left corner, where a
// juror reads a line from, as a share of the page's width and height. A zoom keeps that point
// where it is (zooming about the middle pushed the start of every line out of view).
function readingPoint(frame, image) {
  const box = image.getBoundingClientRect();
  if (!box.width || !box.height) return null;
  const corner = frame.getBoundingClientRect();
  return [
    (corner.left + frame.clientLeft - box.left) / box.width,
    (corner.top + frame.clientTop - box.top) / box.height,
  ];
}

function putBack(frame, image, point) {
  const box = image.getBoundingClientRect();
  const corner = frame.getBoundingClientRect();
  frame.scrollLeft += box.left + point[0] * box.width - (corner.left + frame.clientLeft);
  frame.scrollTop += box.top + point[1] * box.height - (corner.top + frame.clientTop);
}

function show(view, { keepReading: keep = false } = {}) {
  const frame = view.querySelector("[data-scan-frame]");
  const all = pages(view);
  const at = Number(view.dataset.page);
  const zoom = ZOOMS[Number(view.dataset.zoom)];
  const shown = all[at] && all[at].querySelector("img");
  const point = keep && shown && !all[at].hidden ? readingPoint(frame, shown) : null;
  all.forEach((page, index) => {
    page.hidden = index !== at;
    const image = page.querySelector("img");
    image.style.width = zoom === 1 ? "" : `${Math.round(frame.clientWidth * zoom)}px`;
    image.style.maxWidth = zoom === 1 ? "" : "none";
  });
  view.classList.toggle("zoomed", zoom !== 1);
  last = { paper: paperOf(view), page: at, zoom: Number(view.dataset.zoom) };
  view.querySelector("[data-scan-where]").textContent = `Page ${at + 1} of ${all.length}`;
  view.querySelector("[data-scan-zoom]").textContent = zoom === 1 ? "fit" : `${Math.round(zoom * 100)} %`;
  if (point) putBack(frame, shown, point);
}

function act(view, action) {
  const count = pages(view).length;
  const page = Number(view.dataset.page);
  const zoom = Number(view.dataset.zoom);
  const frame = view.querySelector("[data-scan-frame]");
  switch (action) {
    case "prev":
    case "next": {
      const next = Math.max(0, Math.min(count - 1, page + (action === "next" ? 1 : -1)));
      if (next === page) return;
      view.dataset.page = String(next);
      show(view);
      frame.scrollTop = 0;
      frame.scrollLeft = 0;
      return;
    }
    case "in":
      view.dataset.zoom = String(Math.min(ZOOMS.length - 1, zoom + 1));
      break;
    case "out":
      view.dataset.zoom = String(Math.max(0, zoom - 1));
      break;
    case "fit":
      view.dataset.zoom = String(FIT);
      break;
    default:
      return;
  }
  show(view, { keepReading: true });
}

// Dragging a page pans it, as in any image viewer; the wheel and the frame's own keys scroll.
function drag(frame) {
  let start = null;
  frame.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    // No focus change: a juror typing in a cell keeps it while looking around the page.
    event.preventDefault();
    start = { x: event.clientX, y: event.clientY, left: frame.scrollLeft, top: frame.scrollTop };
    frame.setPointerCapture(event.pointerId);
    frame.classList.add("dragging");
  });
  frame.addEventListener("pointermove", (event) => {
    if (!start) return;
    frame.scrollLeft = start.left - (event.clientX - start.x);
    frame.scrollTop = start.top - (event.clientY - start.y);
  });
  const stop = () => {
    start = null;
    frame.classList.remove("dragging");
  };
  frame.addEventListener("pointerup", stop);
  frame.addEventListener("pointercancel", stop);
}

const KEYS = {
  PageUp: "prev",
  PageDown: "next",
  "[": "prev",
  "]": "next",
  "+": "in",
  "=": "in",
  "-": "out",
  _: "out",
  w: "fit",
};

// Typing in a text field other than a sheet's cell (a note, a comment) keeps its characters;
// the page keys proper still turn pages there.
function typing(target) {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === "TEXTAREA" || target.tagName === "SELECT") return true;
  return target.tagName === "INPUT" && !target.classList.contains("cell");
}

// A minus typed in a sheet's cell is part of what is typed: "-1" goes to the server, which
// refuses it, rather than zooming out and leaving a 1 to be saved. "_" zooms out there.
function minusInCell(event) {
  return event.key === "-" && event.target instanceof HTMLElement && event.target.matches("input.cell");
}

// In the capture phase, before the sheet's own keys: in a cell, "[" or "+" turns a page or
// zooms rather than being typed.
window.addEventListener(
  "keydown",
  (event) => {
    const action = KEYS[event.key];
    if (!action || event.ctrlKey || event.metaKey || event.altKey) return;
    const view = viewer();
    if (!view) return;
    if (event.key.length === 1 && typing(event.target)) return;
    if (minusInCell(event)) return;
    setUp(view);
    event.preventDefault();
    event.stopPropagation();
    act(view, action);
  },
  true,
);

document.querySelectorAll("[data-scan-viewer]").forEach(setUp);
new MutationObserver(() => {
  const view = viewer();
  if (view) setUp(view);
}).observe(document.body, { childList: true, subtree: true });
