#!/usr/bin/env bash
# Prints the path of a livekit-server binary of the pinned version, building it from the Go module proxy
# the first time (a few minutes) and reusing it after: the build is cached per version. `pnpm demo` and
# the end-to-end tier share the cache.
set -euo pipefail
source "$(dirname "$0")/go-built.sh"
go_built livekit-server "${LIVEKIT_SERVER_VERSION:-v1.13.5}" github.com/livekit/livekit-server/cmd/server server \
  "Install Go 1.24+ (https://go.dev/dl/) so it can be built, or put a livekit-server binary on PATH (https://docs.livekit.io/home/self-hosting/local/)."
