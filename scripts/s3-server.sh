#!/usr/bin/env bash
# Prints the path of a versitygw binary (an S3-compatible gateway, Apache-2.0) of the pinned version,
# building it from the Go module proxy the first time and reusing it after, as livekit-server is: the
# recordings' S3 adapter is tested against a real S3 API that checks SigV4 signatures and their expiry.
set -euo pipefail
source "$(dirname "$0")/go-built.sh"
go_built versitygw "${VERSITYGW_VERSION:-v1.8.0}" github.com/versity/versitygw/cmd/versitygw versitygw \
  "Install Go 1.24+ (https://go.dev/dl/) so it can be built."
