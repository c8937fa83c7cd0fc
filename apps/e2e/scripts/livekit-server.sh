#!/usr/bin/env bash
# Prints the path of a livekit-server binary of the pinned version, building it from the Go module proxy
# the first time (about two minutes) and reusing it after: the build is cached per version.
set -euo pipefail
version="${LIVEKIT_SERVER_VERSION:-v1.13.5}"
cache="${DHS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dhs}/livekit-server-$version"
if [ ! -x "$cache/server" ]; then
  command -v go >/dev/null 2>&1 || { echo "livekit-server: Go is needed to build it (go install)" >&2; exit 1; }
  echo "livekit-server: building $version into $cache (cached for later runs)" >&2
  mkdir -p "$cache"
  GOBIN="$cache" GOFLAGS=-mod=mod go install "github.com/livekit/livekit-server/cmd/server@$version" >&2
fi
echo "$cache/server"
