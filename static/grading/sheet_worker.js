// The grading sheet, readable offline: a service worker that keeps a copy of every sheet page a
// juror opens (the live sheet, the calibration sheet; a seed is a row of the live sheet) and of
// what that page itself fetched (its scripts, styles and fonts, its papers' answers and scanned
// pages, a cell's history), and hands the copy back only when the network fails. Online, every
// request goes to the server as if the worker were not there, so nobody ever reads a stale page;
// what the juror typed offline lives in the sheet's own queue (static/grading/sheet_queue.js), which
// this copy of the page picks up again.
//
// Served by grading/web/offline_reading.py at /sheet-worker.js (so that its scope is the whole
// site: it sees every page opened, to know who is signed in) and registered from the sheet
// pages only (static/grading/offline_reading.js).
//
// One person's copy is never read for another: the copies go in a cache named for the reader,
// and the server names the reader of every page it sends (the Jury-Reader header,
// ReaderHeaderMiddleware). A page sent to somebody else, or to nobody (the log-in page after a
// sign-out or an ended session), deletes every other reader's cache at once, so the browser
// holds at most one person's copies, and only while that person is the one signed in. Signing
// out also clears it all from the server's side (Clear-Site-Data on the log-out's answer).
//
// Nothing is fetched on the worker's own initiative but the page that registered it and what
// that page had loaded before the worker took control (on its very first visit): the page asks.

const PREFIX = "jury-sheets-";
const SHEET_PAGE = /^\/contests\/[^/]+\/p\d+\/(calibration\/)?sheet\/$/;
// A proxy's answer while the application restarts: as good as no network for reading.
const SERVER_AWAY = new Set([502, 503, 504]);
// The sheet is no longer this reader's (unassigned, another contest's phase): its copy goes.
const GONE = new Set([403, 404, 410]);

// Who the last page from the server was for: a user id, "" for nobody signed in, or null when
// this worker has not seen a page yet (it then reads it from the one cache's name).
let reader = null;
// Cache writes and deletions run one after another, so that a reader's switch deletes the
// caches before the new reader's first copy is put.
let work = Promise.resolve();

function serially(task) {
  const run = work.then(task);
  work = run.catch(() => {});
  return run;
}

const isSheetPage = (address) => SHEET_PAGE.test(new URL(address).pathname);
// A download opened as a page (a PDF, a spreadsheet) names nobody: only pages are read.
const isHtml = (response) => (response.headers.get("Content-Type") || "").startsWith("text/html");

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      // The page's request leaves while the worker starts: no wait added to any page.
      if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
      await self.clients.claim();
    })(),
  );
});

// A save (a POST) is not answered here: it goes to the network as without a worker, is never
// copied, and the sheet's queue sees the network's answer or its failure. (Chromium's static
// routes would skip waking the worker for it, but they also skip DevTools' offline emulation,
// which the browser tests of the queue go offline with.)
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === "navigate") event.respondWith(navigate(event));
  else event.respondWith(forPage(event));
});

// A page: from the network, with the server's word on who reads it; a sheet page is copied
// for its reader, and read from the copy when the network (or the server) is away.
async function navigate(event) {
  const request = event.request;
  let response;
  try {
    response = (await event.preloadResponse) || (await fetch(request));
  } catch (error) {
    const copy = isSheetPage(request.url) ? await copied(request) : undefined;
    if (copy) return marked(copy);
    throw error;
  }
  if (SERVER_AWAY.has(response.status) && isSheetPage(request.url)) {
    const copy = await copied(request);
    if (copy) return marked(copy);
  }
  // A redirect comes back opaque (the browser follows it as a new page, seen in its turn),
  // and an error page may come from a proxy: only the application's own pages name the reader.
  if (response.type === "basic" && response.ok && isHtml(response)) {
    const named = response.headers.get("Jury-Reader") || "";
    event.waitUntil(readBy(named));
    if (named && response.status === 200 && isSheetPage(request.url)) {
      event.waitUntil(keep(named, request, response.clone()));
    }
  } else if (GONE.has(response.status) && isSheetPage(request.url)) {
    event.waitUntil(serially(() => forget(request)));
  }
  return response;
}

// A sheet page read from its copy says so on its <html> element (data-offline-copy, the time
// the server sent it): offline_reading.js then tells the juror, and brings the grid up to the
// saves made since, which the copy is too old to show.
async function marked(copy) {
  const sent = (copy.headers.get("Date") || "").replace(/[^\w ,:-]/g, "");
  const headers = new Headers(copy.headers);
  headers.delete("Content-Length");
  const page = (await copy.text()).replace("<html", `<html data-offline-copy="${sent}"`);
  return new Response(page, { status: copy.status, statusText: copy.statusText, headers });
}

// What a page fetches: from the network; for a sheet page, copied and read from the copy when
// the network fails. Other pages' requests are only passed on.
async function forPage(event) {
  const client = event.clientId ? await self.clients.get(event.clientId) : null;
  if (!client || !isSheetPage(client.url)) return fetch(event.request);
  try {
    const response = await fetch(event.request);
    const who = await currentReader();
    if (who && response.type === "basic" && response.status === 200 && !response.redirected) {
      event.waitUntil(keep(who, event.request, response.clone()));
    }
    return response;
  } catch (error) {
    const copy = await copied(event.request);
    if (copy) return copy;
    throw error;
  }
}

// A page from the server names its reader: every other reader's cache is deleted.
function readBy(named) {
  const changed = named !== reader;
  reader = named;
  if (!changed) return work;
  return serially(async () => {
    const names = await caches.keys();
    await Promise.all(
      names.filter((name) => name.startsWith(PREFIX) && name !== PREFIX + named).map((name) => caches.delete(name)),
    );
  });
}

async function currentReader() {
  if (reader !== null) return reader;
  // A worker woken after a pause: the one cache there is belongs to the last reader seen.
  const name = (await caches.keys()).find((key) => key.startsWith(PREFIX));
  return name ? name.slice(PREFIX.length) : "";
}

function keep(who, request, response) {
  return serially(async () => {
    // The reader may have changed while the answer was on its way: their copy is not kept.
    if (who !== (await currentReader())) return;
    await (await caches.open(PREFIX + who)).put(request, response);
  });
}

async function forget(request) {
  const who = await currentReader();
  if (who) await (await caches.open(PREFIX + who)).delete(request, { ignoreSearch: true });
}

// The current reader's copy: of this very address, or of the same sheet under another query
// (`?row=…`, `?ungraded=1`). Nobody's copy when nobody is known to be signed in.
async function copied(request) {
  const who = await currentReader();
  if (!who || !(await caches.has(PREFIX + who))) return undefined;
  const cache = await caches.open(PREFIX + who);
  const exact = await cache.match(request);
  if (exact || !isSheetPage(request.url)) return exact;
  return cache.match(request, { ignoreSearch: true });
}

// A sheet page asks what is copied of it (`{ copy: [] }`), or, opened before the worker
// controlled it, for itself and what it loaded to be copied (`{ copy: [addresses] }`): fetched
// once, for the reader the server names. The answer, `{ page, kept }`, comes once the copies
// on their way are in.
self.addEventListener("message", (event) => {
  const source = event.source;
  const addresses = event.data && Array.isArray(event.data.copy) ? event.data.copy : null;
  if (!addresses || !source || !isSheetPage(source.url)) return;
  event.waitUntil(copyAndAnswer(source, addresses));
});

async function copyAndAnswer(source, addresses) {
  const page = source.url;
  if (addresses.length) await copyWhatThePageLoaded(page, addresses);
  await work;
  source.postMessage({ page, kept: Boolean(await copied(new Request(page))) });
}

async function copyWhatThePageLoaded(page, addresses) {
  const own = addresses.filter((address) => {
    try {
      return new URL(address).origin === self.location.origin && address !== page;
    } catch {
      return false;
    }
  });
  try {
    const response = await fetch(page, { credentials: "same-origin" });
    if (response.status !== 200 || response.redirected || !isHtml(response)) return;
    const named = response.headers.get("Jury-Reader") || "";
    await readBy(named);
    if (!named) return;
    await keep(named, new Request(page), response);
    await Promise.all(
      own.map(async (address) => {
        const request = new Request(address, { credentials: "same-origin" });
        const answer = await fetch(request);
        if (answer.status === 200 && !answer.redirected) await keep(named, request, answer);
      }),
    );
  } catch {
    // The network went away meanwhile: copied on the next visit instead.
  }
}
