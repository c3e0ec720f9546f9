#!/usr/bin/env bash
# Runs a command with a fresh Kafka broker: installs the client, starts the broker, exports WEIR_KAFKA_BOOTSTRAP
# (and WEIR_KAFKA_TLS_BOOTSTRAP, WEIR_KAFKA_TLS_DIR for its TLS listener), runs the command, and always stops the
# broker (also on failure or Ctrl-C), and the three-node cluster a test may have started with cluster.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/install-client.sh"
trap 'bash "$here/broker.sh" stop; bash "$here/cluster.sh" stop' EXIT
WEIR_KAFKA_BOOTSTRAP="$(bash "$here/broker.sh" start)"
export WEIR_KAFKA_BOOTSTRAP
read -r WEIR_KAFKA_TLS_BOOTSTRAP WEIR_KAFKA_TLS_DIR < <(bash "$here/broker.sh" tls)
export WEIR_KAFKA_TLS_BOOTSTRAP WEIR_KAFKA_TLS_DIR
"$@"
