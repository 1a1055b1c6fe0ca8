#!/bin/sh
# Install Debian's Chromium for the browser tests when it is missing and we may (root + apt).
# When we cannot, the browser tests skip themselves and say why.
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian chromium for the browser tests..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "could not install chromium; browser tests will be skipped"
else
  echo "chromium missing and not root: browser tests will be skipped (apt-get install chromium)"
fi
exit 0
