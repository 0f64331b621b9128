// The grading sheet's side panel (the paper's pages or answers, the criterion, the note) is as
// wide as the juror makes it: a separator between the grid and the panel is dragged with the
// pointer or moved with the arrow keys, and the width is remembered in this browser for every
// sheet. The scan viewer fits its page to the panel's width, so a wider panel reads a
// handwritten page at a size a person can read without zooming.

const KEY = "jury.sheet.side-width";
const MIN = 320; // the panel's narrowest: a criterion's guidance still reads
const GRID_MIN = 360; // the grid keeps room for the labels and a few criteria
const STEP = 40;

const layout = document.querySelector(".sheet-layout");
const handle = document.getElementById("side-resizer");
const side = document.getElementById("sheet-side");
if (layout && handle && side) setUp();

function stored() {
  try {
    const value = Number(window.localStorage.getItem(KEY));
    return Number.isFinite(value) && value > 0 ? value : null;
  } catch {
    return null; // storage refused (private mode, policy): the width is simply not kept
  }
}

function remember(width) {
  try {
    window.localStorage.setItem(KEY, String(Math.round(width)));
  } catch {
    // as above
  }
}

function setUp() {
  let width = stored() ?? side.getBoundingClientRect().width;
  const widest = () => Math.max(MIN, layout.clientWidth - GRID_MIN - handle.offsetWidth);

  function apply(next) {
    width = Math.round(Math.max(MIN, Math.min(widest(), next)));
    layout.style.setProperty("--side-width", `${width}px`);
    handle.setAttribute("aria-valuemin", String(MIN));
    handle.setAttribute("aria-valuemax", String(Math.round(widest())));
    handle.setAttribute("aria-valuenow", String(width));
    handle.setAttribute("aria-valuetext", `Side panel ${width} pixels wide`);
  }

  handle.hidden = false;
  layout.classList.add("resizable");
  apply(width);

  handle.addEventListener("keydown", (event) => {
    // The panel is on the right: moving the separator left widens it.
    const moves = {
      ArrowLeft: width + STEP,
      ArrowRight: width - STEP,
      Home: MIN,
      End: widest(),
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    apply(moves[event.key]);
    remember(width);
  });

  // Measured from where the drag starts, so that grabbing the separator does not move it.
  let dragging = null;
  handle.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    dragging = { x: event.clientX, width };
    handle.setPointerCapture(event.pointerId);
    handle.classList.add("dragging");
  });
  handle.addEventListener("pointermove", (event) => {
    if (dragging) apply(dragging.width + dragging.x - event.clientX);
  });
  const stop = () => {
    if (!dragging) return;
    dragging = null;
    handle.classList.remove("dragging");
    remember(width);
  };
  handle.addEventListener("pointerup", stop);
  handle.addEventListener("pointercancel", stop);
  // A narrower window keeps the grid usable; the remembered width comes back when it widens.
  window.addEventListener("resize", () => apply(stored() ?? width));
}
