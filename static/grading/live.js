// Pages that refresh themselves (see grading/resolution/live_views.py for why polling): the element with
// data-live-stamp-url names a stamp that changes whenever what the page shows may have. Every
// few seconds the script asks for it (a 304 while nothing changed); when it moved, it fetches
// the page again and brings each region marked data-live (with an id) up to date. What the
// reader is busy with stays as it is: an element holding the focus of a field, or a field whose
// value differs from the one the page came with, is kept in place (with its focus, caret and
// typed text) while everything around it is replaced.
(function () {
  "use strict";
  var source = document.querySelector("[data-live-stamp-url]");
  if (!source || !window.fetch || !window.DOMParser) return;
  var url = source.getAttribute("data-live-stamp-url");
  var interval = 1000 * (parseFloat(source.getAttribute("data-live-interval")) || 5);
  var known = null;
  var busy = false;

  function changed(field) {
    var type = field.type;
    if (type === "hidden" || type === "submit" || type === "button" || type === "reset") return false;
    if (type === "checkbox" || type === "radio") return field.checked !== field.defaultChecked;
    if (field.tagName === "SELECT") {
      for (var i = 0; i < field.options.length; i++) {
        if (field.options[i].selected !== field.options[i].defaultSelected) return true;
      }
      return false;
    }
    return field.value !== field.defaultValue;
  }

  function isField(element) {
    var tag = element.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || element.isContentEditable;
  }

  // Whether the reader is busy with something inside `element` (or with `element` itself).
  function occupied(element) {
    var active = document.activeElement;
    if (active && active !== document.body && isField(active) && element.contains(active)) return true;
    if (isField(element) && changed(element)) return true;
    var fields = element.querySelectorAll("input, textarea, select");
    for (var i = 0; i < fields.length; i++) {
      if (changed(fields[i])) return true;
    }
    return false;
  }

  function adopt(node) {
    var copy = document.importNode(node, true);
    return copy;
  }

  function activate(node) {
    if (node.nodeType === 1 && window.htmx) window.htmx.process(node);
  }

  // The element of `current`'s children that stands for `fresh` (a child of the fresh page's
  // copy of `current`): the one with its id, or, without an id, the one at the same place with
  // the same tag.
  function counterpart(current, fresh, index) {
    if (fresh.id) {
      for (var i = 0; i < current.children.length; i++) {
        if (current.children[i].id === fresh.id) return current.children[i];
      }
      return null;
    }
    var old = current.children[index];
    return old && !old.id && old.tagName === fresh.tagName ? old : null;
  }

  // Bring `current` in line with `fresh`, keeping in place every child the reader is busy with.
  function merge(current, fresh) {
    var freshNodes = Array.prototype.slice.call(fresh.childNodes);
    var kept = [];
    var keptFor = [];
    var index = 0;
    freshNodes.forEach(function (node) {
      if (node.nodeType !== 1) return;
      var old = counterpart(current, node, index);
      index += 1;
      if (old && occupied(old)) {
        kept.push(old);
        keptFor.push(node);
      }
    });
    Array.prototype.slice.call(current.childNodes).forEach(function (node) {
      if (kept.indexOf(node) === -1) node.remove();
    });
    var cursor = null;
    freshNodes.forEach(function (node) {
      var at = keptFor.indexOf(node);
      var placed;
      if (at !== -1) {
        placed = kept[at];
        if (placed.children.length) merge(placed, node);
      } else {
        placed = adopt(node);
        if (cursor) cursor.after(placed);
        else current.prepend(placed);
        activate(placed);
      }
      cursor = placed;
    });
  }

  function refresh() {
    return fetch(location.href, { credentials: "same-origin", headers: { "X-Live-Refresh": "1" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var page = new DOMParser().parseFromString(html, "text/html");
        // A folded section (<details> with an id) stays as the reader left it, open or shut.
        var folded = {};
        document.querySelectorAll("details[id]").forEach(function (details) {
          folded[details.id] = details.open;
        });
        document.querySelectorAll("[data-live][id]").forEach(function (region) {
          var fresh = page.getElementById(region.id);
          if (!fresh || fresh.innerHTML === region.innerHTML) return;
          if (occupied(region)) {
            merge(region, fresh);
          } else {
            var copy = adopt(fresh);
            region.replaceWith(copy);
            activate(copy);
          }
        });
        document.querySelectorAll("details[id]").forEach(function (details) {
          if (Object.prototype.hasOwnProperty.call(folded, details.id)) details.open = folded[details.id];
        });
        document.dispatchEvent(new CustomEvent("live:refreshed"));
      });
  }

  function poll() {
    if (busy || document.hidden) return;
    busy = true;
    fetch(url, { credentials: "same-origin", cache: "no-cache" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (stamp) {
        if (stamp === null || stamp === known) return null;
        var first = known === null;
        known = stamp;
        // Ready once the first stamp is known: a change from then on is taken in. (A test
        // waits for this before it changes what the page shows.)
        if (first) document.documentElement.setAttribute("data-live-ready", "");
        return first ? null : refresh();
      })
      .catch(function () {})
      .then(function () { busy = false; });
  }

  poll();
  window.setInterval(poll, interval);
  document.addEventListener("visibilitychange", poll);
})();
