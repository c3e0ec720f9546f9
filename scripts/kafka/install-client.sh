#!/usr/bin/env bash
# Installs the Kafka client (@confluentinc/kafka-javascript, an optional peer dependency) for this checkout.
#
# The client is a native addon around librdkafka; here it must be compiled (CKJS_LINKING=dynamic: 2-4 minutes
# on an idle 2-core machine, far more on a busy one). So it is not in package.json's dependencies, where every
# `npm ci` of every checkout would pay that: it is built once per machine and Node ABI into
# ~/.cache/weir/kafka-client/<version>/node-abi-<abi> and linked into node_modules, which takes no time. Only the
# Kafka tests, examples and benchmarks need it. It builds for the Node that runs it (`npx -y -p node@24 bash
# scripts/kafka/install-client.sh` for Node 24), against that Node's headers (scripts/node-headers.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(node -p "require('$root/package.json').peerDependencies['@confluentinc/kafka-javascript'].replace(/^[~^]/, '')")"
# The addon is compiled against the ABI of the Node that builds it (NODE_MODULE_VERSION: 115 for Node 20, 127 for 22,
# 137 for 24) and loads in no other, so each ABI has a build of its own: the Node that runs this script is the one
# whose build is linked.
abi="$(node -p process.versions.modules)"
base="${WEIR_KAFKA_CLIENT_CACHE:-$HOME/.cache/weir/kafka-client}/$version"
cache="$base/node-abi-$abi"
addon_path="node_modules/@confluentinc/kafka-javascript/build/Release/confluent-kafka-javascript.node"
addon="$cache/$addon_path"
# A build kept in the earlier layout (one per version, whatever the ABI) moves into its ABI's folder when it loads
# here, instead of being compiled again (the addon finds librdkafka relative to itself, $ORIGIN/../deps).
if [[ ! -f "$addon" && -f "$base/$addon_path" ]] && node -e "require(process.argv[1])" "$base/$addon_path" 2>/dev/null; then
  mkdir -p "$cache"
  mv "$base/node_modules" "$base/package.json" "$cache/"
fi
if [[ ! -f "$addon" ]]; then
  echo "install-client.sh: building @confluentinc/kafka-javascript@$version for Node $(node --version) into $cache (once per machine and Node ABI)" >&2
  start=$SECONDS
  # node-gyp compiles against npm's nodedir (on Debian /usr, whose include/node is the system Node's), so a Node of
  # another ABI would get an addon it cannot load: the headers of exactly the running Node are passed instead.
  nodedir="$(bash "$root/scripts/node-headers.sh")"
  rm -rf "$cache"
  mkdir -p "$cache"
  (cd "$cache" && echo '{"private":true}' >package.json &&
    CKJS_LINKING=dynamic npm_config_nodedir="$nodedir" npm install --no-audit --no-fund --no-save --loglevel=error \
      "@confluentinc/kafka-javascript@$version" >&2)
  [[ -f "$addon" ]] || { echo "install-client.sh: the build produced no addon at $addon" >&2; exit 1; }
  if ! node -e "require(process.argv[1])" "$addon" 2>/dev/null; then
    built="$(node -e "try { require(process.argv[1]) } catch (e) { const abi = /NODE_MODULE_VERSION (\d+)/.exec(e.message)?.[1]; console.log(abi ? 'it was compiled for ABI ' + abi : e.message) }" "$addon")"
    rm -rf "$cache"
    echo "install-client.sh: the build for Node $(node --version) (ABI $abi), compiled against the headers in $nodedir, does not load: $built" >&2
    exit 1
  fi
  echo "install-client.sh: built in $((SECONDS - start)) s" >&2
fi
mkdir -p "$root/node_modules/@confluentinc"
ln -sfn "$cache/node_modules/@confluentinc/kafka-javascript" "$root/node_modules/@confluentinc/kafka-javascript"
