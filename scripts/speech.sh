#!/usr/bin/env bash
# The digital human's ears and voice from Debian's packages, when missing: PocketSphinx for Debian's
# Python with its US English model (speech recognition) and Flite (its voices). Run by the test bootstrap
# (scripts/bootstrap.sh, with --ask: sudo may ask for a password) and by `pnpm demo` before it starts the
# worker, so the quick start's commands are the whole set-up. As root, or with sudo that needs no password
# (or --ask); otherwise it says what to install and exits 1 (the demo goes on without: captions of its
# own lines only, eSpeak's voice).
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

need_apt=()
/usr/bin/python3 -c "import pocketsphinx" >/dev/null 2>&1 || need_apt+=(python3-pocketsphinx)
[ -f /usr/share/pocketsphinx/model/en-us/en-us.lm.bin ] || need_apt+=(pocketsphinx-en-us)
command -v flite >/dev/null 2>&1 || need_apt+=(flite)
[ ${#need_apt[@]} -eq 0 ] && exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if [ "${1:-}" = "--ask" ]; then
    sudo_cmd=(sudo)
  elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    sudo_cmd=(sudo -n)
  else
    echo "speech: the digital human needs ${need_apt[*]}: run as root, or: sudo apt-get install ${need_apt[*]}" >&2
    exit 1
  fi
fi
echo "speech: installing ${need_apt[*]} with apt-get"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
