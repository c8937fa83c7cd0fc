#!/usr/bin/env bash
# Prints the path of a livekit-server binary of the pinned version, building it from the Go module proxy
# the first time (a few minutes) and reusing it after: the build is cached per version. `pnpm demo` and
# the end-to-end tier share the cache.
set -euo pipefail
version="${LIVEKIT_SERVER_VERSION:-v1.13.5}"
cache="${DHS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dhs}/livekit-server-$version"
if [ ! -x "$cache/server" ]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "livekit-server: not found. Install Go 1.24+ (https://go.dev/dl/) so it can be built, or put a livekit-server binary on PATH (https://docs.livekit.io/home/self-hosting/local/)." >&2
    exit 1
  fi
  echo "livekit-server: building $version with Go into $cache; the first time takes a few minutes, later runs reuse it" >&2
  mkdir -p "$cache"
  GOBIN="$cache" GOFLAGS=-mod=mod go install "github.com/livekit/livekit-server/cmd/server@$version" >&2
fi
echo "$cache/server"
