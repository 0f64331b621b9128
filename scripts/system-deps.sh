#!/usr/bin/env sh
# Installs the Debian packages the tests need when they are missing and we are root;
# elsewhere says what to install. Never fails the build by itself: the tests that need a
# package report it clearly.
missing=""
# Chromium's headless shell: what the browser tests drive (tests/browser/conftest.py; they fall
# back on a full `chromium` where that is all there is).
command -v chromium-headless-shell >/dev/null 2>&1 || missing="$missing chromium-headless-shell"
command -v pdftotext >/dev/null 2>&1 || missing="$missing poppler-utils"
# WeasyPrint renders through Pango.
ldconfig -p 2>/dev/null | grep -q "libpangoft2-1.0" || missing="$missing libpango-1.0-0 libpangoft2-1.0-0"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || missing="$missing postgresql"
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null \
    || echo "Could not install$missing; the tests that need them will say so." >&2
else
  echo "Please install these Debian packages (as root: apt-get install$missing);" \
       "the tests that need them will fail or be reported until then." >&2
fi
exit 0
