// The reader's time zone, for the server to show times in it (grading/web/middleware.py): kept in
// a cookie for a year, rewritten only when the browser's zone changes (travel, a new machine).
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (error) {
    return;
  }
  if (!zone || !/^[A-Za-z0-9_+\-\/]{1,80}$/.test(zone)) return;
  var current = document.cookie.split("; ").filter(function (part) {
    return part.indexOf("tz=") === 0;
  })[0];
  if (current === "tz=" + zone) return;
  var secure = location.protocol === "https:" ? "; Secure" : "";
  document.cookie = "tz=" + zone + "; Path=/; Max-Age=31536000; SameSite=Lax" + secure;
})();
