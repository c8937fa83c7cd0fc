#!/usr/bin/env bash
# Installs what the test suite needs beyond Node.js, when it is missing: pnpm 10, redis-server (tests start
# their own on a free port), PostgreSQL's client tools, Debian's Chromium (the docs page and the end-to-end tier run in a real
# browser), PocketSphinx for Debian's Python with its US English model (the digital human's speech recognition) and Flite (its
# voices). Go, which builds livekit-server for the end-to-end tier, comes with the machine.
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

node_at=$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a * 100 + Math.min(b, 99)' 2>/dev/null || echo 0)
if [ "$node_at" -lt 2418 ]; then
  echo "bootstrap: Node.js $(node --version 2>/dev/null || echo '(none)') is older than the 24.18 this repository runs on; in this shell, \`. scripts/node-env.sh\` puts Node.js 24 first on PATH (fetched once from the npm registry), then run this again" >&2
  exit 1
fi

need_apt=()
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need_apt+=(redis-tools)
# PostgreSQL's server runs on the machine (127.0.0.1:5432); docs/storage.md's history example uses its client tools.
command -v createdb >/dev/null 2>&1 || need_apt+=(postgresql-client)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || need_apt+=(chromium)

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need_apt[*]} with apt-get"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# The digital human's ears and voice (PocketSphinx and its model, Flite), as `pnpm demo` installs them.
bash "$(dirname "$0")/speech.sh" --ask

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version | cut -d. -f1)" != "10" ]; then
  echo "bootstrap: installing pnpm 10 with npm"
  npm install -g pnpm@10 >/dev/null
fi

# The end-to-end tier builds livekit-server with Go (go install, from the Go module proxy).
command -v go >/dev/null 2>&1 || echo "bootstrap: warning: no Go toolchain; the end-to-end tier cannot build livekit-server" >&2

echo "bootstrap: node $(node --version), pnpm $(pnpm --version), $(redis-server --version | cut -d' ' -f1-3), $("${CHROMIUM_PATH:-/usr/bin/chromium}" --version 2>/dev/null)"
