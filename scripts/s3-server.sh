#!/usr/bin/env bash
# Prints the path of a versitygw binary (an S3-compatible gateway, Apache-2.0) of the pinned version,
# building it from the Go module proxy the first time and reusing it after, as livekit-server is: the
# recordings' S3 adapter is tested against a real S3 API that checks SigV4 signatures and their expiry.
set -euo pipefail
version="${VERSITYGW_VERSION:-v1.8.0}"
cache="${DHS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dhs}/versitygw-$version"
if [ ! -x "$cache/versitygw" ]; then
  if ! command -v go >/dev/null 2>&1; then
    echo "versitygw: not found. Install Go 1.24+ (https://go.dev/dl/) so it can be built." >&2
    exit 1
  fi
  echo "versitygw: building $version with Go into $cache; the first time takes a few minutes, later runs reuse it" >&2
  mkdir -p "$cache"
  GOBIN="$cache" GOFLAGS=-mod=mod go install "github.com/versity/versitygw/cmd/versitygw@$version" >&2
fi
echo "$cache/versitygw"
