#!/usr/bin/env bash
# Installs the Kafka client (@confluentinc/kafka-javascript, an optional peer dependency) for this checkout.
#
# The client is a native addon around librdkafka; here it must be compiled (CKJS_LINKING=dynamic: 2-4 minutes
# on an idle 2-core machine, far more on a busy one). So it is not in package.json's dependencies, where every
# `npm ci` of every checkout would pay that: it is built once per machine into ~/.cache/weir/kafka-client/<version>
# and linked into node_modules, which takes no time. Only the Kafka tests, examples and benchmarks need it.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(node -p "require('$root/package.json').peerDependencies['@confluentinc/kafka-javascript'].replace(/^[~^]/, '')")"
cache="${WEIR_KAFKA_CLIENT_CACHE:-$HOME/.cache/weir/kafka-client}/$version"
addon="$cache/node_modules/@confluentinc/kafka-javascript/build/Release/confluent-kafka-javascript.node"
if [[ ! -f "$addon" ]]; then
  echo "install-client.sh: building @confluentinc/kafka-javascript@$version into $cache (once per machine)" >&2
  rm -rf "$cache"
  mkdir -p "$cache"
  start=$SECONDS
  (cd "$cache" && echo '{"private":true}' >package.json &&
    CKJS_LINKING=dynamic npm install --no-audit --no-fund --no-save --loglevel=error \
      "@confluentinc/kafka-javascript@$version" >&2)
  [[ -f "$addon" ]] || { echo "install-client.sh: the build produced no addon at $addon" >&2; exit 1; }
  echo "install-client.sh: built in $((SECONDS - start)) s" >&2
fi
mkdir -p "$root/node_modules/@confluentinc"
ln -sfn "$cache/node_modules/@confluentinc/kafka-javascript" "$root/node_modules/@confluentinc/kafka-javascript"
