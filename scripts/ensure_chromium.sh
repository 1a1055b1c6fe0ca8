#!/bin/sh
# Install Debian's Chromium (and a CJK font, so `--lang zh` screenshots show Chinese, not boxes) for the
# browser tests when they are missing and we may (root + apt). When we cannot, the browser tests skip
# themselves and say why.
need=""
[ -x /usr/bin/chromium ] || need="$need chromium"
[ -f /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc ] || need="$need fonts-wqy-zenhei"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages for the browser tests:$need"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null) \
    || echo "could not install$need; browser tests may be skipped (see their skip reason)"
else
  echo "missing$need and not root: browser tests will be skipped (apt-get install$need)"
fi
exit 0
