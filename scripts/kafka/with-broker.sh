#!/usr/bin/env bash
# Runs a command with a fresh Kafka broker: installs the client, starts the broker, exports
# WEIR_KAFKA_BOOTSTRAP, runs the command, and always stops the broker (also on failure or Ctrl-C).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/install-client.sh"
trap 'bash "$here/broker.sh" stop' EXIT
WEIR_KAFKA_BOOTSTRAP="$(bash "$here/broker.sh" start)"
export WEIR_KAFKA_BOOTSTRAP
"$@"
