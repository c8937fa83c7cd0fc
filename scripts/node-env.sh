# Sourced, not run (`. scripts/node-env.sh`): puts Node.js 24 first on this shell's PATH when the
# machine's Node is older than 24.18 (package.json's engines), fetched once from the npm registry (the
# package node-linux-<arch> ships the binary) into ~/.cache/dhs/node-<version>, with the pnpm that
# package.json's packageManager names beside it. Nothing outside that folder changes: the system's Node
# stays what every other program runs. npm under the fetched Node would look for its global
# configuration beside that binary, so the machine's is named explicitly and linked there (a registry's CA,
# a proxy or a mirror set there keep working). Safe to source again.
dhs_node_version="${DHS_NODE_VERSION:-24.22.3}"
# The machine's Node as one number (24.18.0 is 2418), 0 when there is none.
dhs_node_major=$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a * 100 + Math.min(b, 99)' 2>/dev/null || echo 0)
if [ "$dhs_node_major" -lt 2418 ]; then
  if [ -z "${NPM_CONFIG_GLOBALCONFIG:-}" ] && command -v npm >/dev/null 2>&1; then
    NPM_CONFIG_GLOBALCONFIG=$(npm config get globalconfig 2>/dev/null)
    export NPM_CONFIG_GLOBALCONFIG
  fi
  # The version package.json's packageManager names, which pnpm would otherwise fetch for itself.
  dhs_pnpm_version=$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$(dirname "${BASH_SOURCE[0]:-$0}")/../package.json" 2>/dev/null)
  dhs_pnpm_version="${dhs_pnpm_version:-10}"
  dhs_node_arch=$(uname -m | sed 's/x86_64/x64/; s/aarch64/arm64/')
  dhs_node_dir="${DHS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dhs}/node-$dhs_node_version"
  if [ ! -x "$dhs_node_dir/node_modules/.bin/node" ] || [ ! -x "$dhs_node_dir/node_modules/.bin/pnpm" ]; then
    echo "node-env: fetching Node.js $dhs_node_version and pnpm $dhs_pnpm_version from the npm registry into $dhs_node_dir" >&2
    mkdir -p "$dhs_node_dir" &&
      npm install --prefix "$dhs_node_dir" --no-audit --no-fund --loglevel=error \
        "node-linux-$dhs_node_arch@$dhs_node_version" "pnpm@$dhs_pnpm_version" >/dev/null
  fi
  # npm under this Node reads its global configuration beside the binary (prefix/etc/npmrc), and turbo
  # passes no NPM_CONFIG_* to the tasks it runs: the machine's configuration is linked there, so an npm a
  # test starts reads it too.
  dhs_node_prefix="$dhs_node_dir/node_modules/node-linux-$dhs_node_arch"
  if [ -n "${NPM_CONFIG_GLOBALCONFIG:-}" ] && [ -f "$NPM_CONFIG_GLOBALCONFIG" ] && [ -d "$dhs_node_prefix" ]; then
    mkdir -p "$dhs_node_prefix/etc" && ln -sfn "$NPM_CONFIG_GLOBALCONFIG" "$dhs_node_prefix/etc/npmrc"
  fi
  case ":$PATH:" in
    *":$dhs_node_dir/node_modules/.bin:"*) ;;
    *) PATH="$dhs_node_dir/node_modules/.bin:$PATH" ;;
  esac
  export PATH
fi
unset dhs_node_version dhs_node_major dhs_node_arch dhs_node_dir dhs_node_prefix dhs_pnpm_version
