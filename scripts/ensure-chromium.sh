#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing and we may install it.
set -euo pipefail
if [ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Chromium (Debian package) for the browser tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
else
  echo "Chromium is missing and cannot be installed here (not root or no apt-get): browser tests will skip unless OO_REQUIRE_BROWSER is set." >&2
fi
