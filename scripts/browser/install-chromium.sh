#!/usr/bin/env bash
# Installs Debian's chromium package (the browser the dashboard test drives through playwright-core) unless it is
# already installed, and prints the browser's path. Needs root (or sudo) for apt-get; fails saying so otherwise.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo /usr/bin/chromium
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "install-chromium: /usr/bin/chromium is missing and apt-get needs root: run 'apt-get install chromium' as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >&2
"${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
echo /usr/bin/chromium
