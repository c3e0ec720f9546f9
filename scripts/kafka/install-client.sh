#!/usr/bin/env bash
# Installs the Kafka client (@confluentinc/kafka-javascript, an optional peer dependency) for this checkout.
#
# The client is a native addon around librdkafka; here it must be compiled (CKJS_LINKING=dynamic: 2-4 minutes
# on an idle 2-core machine, far more on a busy one). So it is not in package.json's dependencies, where every
# `npm ci` of every checkout would pay that: it is built once per machine and Node ABI into
# ~/.cache/weir/kafka-client/<version>/node-abi-<abi> and linked into node_modules, which takes no time. Only the
# Kafka tests, examples and benchmarks need it.
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
  rm -rf "$cache"
  mkdir -p "$cache"
  start=$SECONDS
  (cd "$cache" && echo '{"private":true}' >package.json &&
    CKJS_LINKING=dynamic npm install --no-audit --no-fund --no-save --loglevel=error \
      "@confluentinc/kafka-javascript@$version" >&2)
  [[ -f "$addon" ]] || { echo "install-client.sh: the build produced no addon at $addon" >&2; exit 1; }
  # node-gyp compiles against the headers it finds (on Debian, /usr/include/node: the system Node's) unless it can
  # download the running Node's, so a Node without headers on the machine gets an addon it cannot load.
  if ! node -e "require(process.argv[1])" "$addon" 2>/dev/null; then
    built="$(node -e "try { require(process.argv[1]) } catch (e) { console.log(/NODE_MODULE_VERSION (\d+)/.exec(e.message)?.[1] ?? '?') }" "$addon")"
    rm -rf "$cache"
    echo "install-client.sh: the build for Node $(node --version) (ABI $abi) was compiled against other headers (ABI $built) and does not load: node-gyp found no headers of this Node on the machine and could not fetch them; run the Kafka parts with the Node whose headers are installed" >&2
    exit 1
  fi
  echo "install-client.sh: built in $((SECONDS - start)) s" >&2
fi
mkdir -p "$root/node_modules/@confluentinc"
ln -sfn "$cache/node_modules/@confluentinc/kafka-javascript" "$root/node_modules/@confluentinc/kafka-javascript"
