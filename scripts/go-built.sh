# Sourced by the scripts that give a Go tool of a pinned version (livekit-server.sh, s3-server.sh):
# go_built NAME VERSION PACKAGE BINARY HINT prints the path of BINARY, built from the Go module proxy
# into a cache per version the first time (a few minutes) and reused after; without Go it says HINT.
go_built() {
  local name="$1" version="$2" package="$3" binary="$4" hint="$5"
  local cache="${DHS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dhs}/$name-$version"
  if [ ! -x "$cache/$binary" ]; then
    if ! command -v go >/dev/null 2>&1; then
      echo "$name: not found. $hint" >&2
      exit 1
    fi
    echo "$name: building $version with Go into $cache; the first time takes a few minutes, later runs reuse it" >&2
    mkdir -p "$cache"
    GOBIN="$cache" GOFLAGS=-mod=mod go install "$package@$version" >&2
  fi
  echo "$cache/$binary"
}
