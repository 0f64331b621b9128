// Pages that refresh themselves (see grading/views/live.py for why polling): the element with
// data-live-stamp-url names a stamp that changes whenever what the page shows may have; every
// few seconds the script asks for it (a 304 when nothing changed) and, when it moved, fetches
// the page again and swaps in each region marked data-live (with an id) — except a region
// holding focus or an input whose value the reader has changed, which keeps what is being typed
// and is brought up to date at a later poll, once left alone.
(function () {
  "use strict";
  var source = document.querySelector("[data-live-stamp-url]");
  if (!source || !window.fetch || !window.DOMParser) return;
  var url = source.getAttribute("data-live-stamp-url");
  var interval = 1000 * (parseFloat(source.getAttribute("data-live-interval")) || 5);
  var known = null;
  var busy = false;

  function changed(field) {
    if (field.type === "hidden" || field.type === "submit" || field.type === "button") return false;
    if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
    if (field.tagName === "SELECT") {
      for (var i = 0; i < field.options.length; i++) {
        if (field.options[i].selected !== field.options[i].defaultSelected) return true;
      }
      return false;
    }
    return field.value !== field.defaultValue;
  }

  function busyRegion(region) {
    var active = document.activeElement;
    if (active && active !== document.body && region.contains(active)) {
      var tag = active.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || active.isContentEditable) return true;
    }
    var fields = region.querySelectorAll("input, textarea, select");
    for (var i = 0; i < fields.length; i++) {
      if (changed(fields[i])) return true;
    }
    return false;
  }

  // Swaps what changed; true when every region is up to date.
  function refresh() {
    return fetch(location.href, { credentials: "same-origin", headers: { "X-Live-Refresh": "1" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html === null) return false;
        var fresh = new DOMParser().parseFromString(html, "text/html");
        var complete = true;
        document.querySelectorAll("[data-live][id]").forEach(function (region) {
          var next = fresh.getElementById(region.id);
          if (!next || next.innerHTML === region.innerHTML) return;
          if (busyRegion(region)) {
            complete = false;
            return;
          }
          var copy = document.importNode(next, true);
          region.replaceWith(copy);
          if (window.htmx) window.htmx.process(copy);
        });
        document.dispatchEvent(new CustomEvent("live:refreshed"));
        return complete;
      });
  }

  function poll() {
    if (busy || document.hidden) return;
    busy = true;
    fetch(url, { credentials: "same-origin", cache: "no-cache" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (stamp) {
        if (stamp === null) return null;
        if (known === null) {
          known = stamp;
          return null;
        }
        if (stamp === known) return null;
        return refresh().then(function (complete) {
          // A region left alone for its reader is brought up to date at a later poll.
          if (complete) known = stamp;
        });
      })
      .catch(function () {})
      .then(function () { busy = false; });
  }

  poll();
  window.setInterval(poll, interval);
  document.addEventListener("visibilitychange", poll);
})();
