#!/usr/bin/env bash
# A three-node Apache Kafka cluster (KRaft, each node broker and controller) on 127.0.0.1 for failure tests.
#
#   scripts/kafka/cluster.sh start      format fresh log directories and start nodes 1, 2 and 3 on free ports;
#                                       prints the bootstrap list (also written to $STATE/bootstrap); when the
#                                       cluster runs already, starts the nodes that are down and prints it
#   scripts/kafka/cluster.sh stop       stop every node (SIGTERM, then SIGKILL after 20 s) and delete the data
#   scripts/kafka/cluster.sh kill <n>   SIGKILL node n (1-3), keeping its ports and data (a broker crash)
#   scripts/kafka/cluster.sh up <n>     start node n again on its ports and data; returns once it is ready
#   scripts/kafka/cluster.sh status     print the bootstrap list and which nodes run
#
# Every topic has replication factor 3 and min.insync.replicas 2, the internal ones (consumer offsets,
# transaction state) included: the cluster stays writable with one node down (cluster-server.properties).
# Each node runs with a 256 MB heap (~400 MB resident). The jars are broker.sh's (`broker.sh fetch`).
# STATE defaults to .weir-tmp/kafka-cluster in the repository (WEIR_KAFKA_CLUSTER_STATE overrides).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/scripts/kafka"
state="${WEIR_KAFKA_CLUSTER_STATE:-$root/.weir-tmp/kafka-cluster}"
jars="${WEIR_KAFKA_STATE:-$root/.weir-tmp/kafka}"
timeout_s="${WEIR_KAFKA_START_TIMEOUT:-120}"
nodes=(1 2 3)

free_port() {
  node -e "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

# Whether a process runs (a zombie, killed but not reaped yet, does not).
alive() {
  local stat
  stat="$(ps -o stat= -p "$1" 2>/dev/null)" || return 1
  [[ -n "$stat" && "$stat" != Z* ]]
}

node_pid() {
  local file="$state/node-$1/pid"
  [[ -f "$file" ]] || return 1
  local pid
  pid="$(cat "$file")"
  alive "$pid" || return 1
  echo "$pid"
}

any_running() {
  for n in "${nodes[@]}"; do node_pid "$n" >/dev/null && return 0; done
  return 1
}

start() {
  if any_running; then
    # A cluster with a node down (a test that killed it and failed) gets that node back.
    for n in "${nodes[@]}"; do node_pid "$n" >/dev/null || up "$n"; done
    echo "cluster.sh: the cluster is already running at $(cat "$state/bootstrap")" >&2
    cat "$state/bootstrap"
    return 0
  fi
  bash "$here/broker.sh" fetch
  rm -rf "$state"
  mkdir -p "$state"
  # Six distinct free ports: a client port and a controller port per node.
  local ports=() port
  while ((${#ports[@]} < 6)); do
    port="$(free_port)"
    [[ " ${ports[*]} " == *" $port "* ]] || ports+=("$port")
  done
  local voters="" bootstrap="" cluster
  for n in "${nodes[@]}"; do
    voters+="${voters:+,}$n@127.0.0.1:${ports[$((2 * n - 1))]}"
    bootstrap+="${bootstrap:+,}127.0.0.1:${ports[$((2 * n - 2))]}"
  done
  cluster="$(bash "$here/cluster-id.sh")"
  # The three log directories are formatted at once (a JVM start each, seconds apart on a busy machine).
  local formats=()
  for n in "${nodes[@]}"; do
    local dir="$state/node-$n"
    mkdir -p "$dir"
    sed -e "s|@NODE_ID@|$n|g" -e "s|@VOTERS@|$voters|g" -e "s|@PORT@|${ports[$((2 * n - 2))]}|g" \
      -e "s|@CONTROLLER_PORT@|${ports[$((2 * n - 1))]}|g" -e "s|@DATA@|$dir/logs|g" \
      "$here/cluster-server.properties" >"$dir/server.properties"
    java -Xms64m -Xmx256m -Dlog4j2.configurationFile="$jars/log4j2.properties" \
      -Dweir.kafka.log="$dir/format-log4j.log" -cp "$jars/lib/*" \
      kafka.tools.StorageTool format -t "$cluster" -c "$dir/server.properties" >"$dir/format.log" 2>&1 &
    formats+=("$!")
  done
  for n in "${nodes[@]}"; do
    wait "${formats[$((n - 1))]}" || {
      echo "cluster.sh: formatting node $n's log directory failed:" >&2
      cat "$state/node-$n/format.log" >&2
      return 1
    }
  done
  echo "$bootstrap" >"$state/bootstrap"
  # The nodes elect a controller among themselves: they start together and are waited for together.
  for n in "${nodes[@]}"; do launch "$n"; done
  for n in "${nodes[@]}"; do
    ready "$n" || {
      stop
      return 1
    }
  done
  echo "$bootstrap"
}

# Starts node n of its server.properties in the background (its readiness is waited for by `ready`).
launch() {
  local dir="$state/node-$1"
  : >"$dir/server.log"
  nohup java -Xms256m -Xmx256m -XX:+UseSerialGC -Dlog4j2.configurationFile="$jars/log4j2.properties" \
    -Dweir.kafka.log="$dir/server.log" -cp "$jars/lib/*" kafka.Kafka "$dir/server.properties" \
    >"$dir/stdout.log" 2>&1 </dev/null &
  echo "$!" >"$dir/pid"
  date +%s%N >"$dir/launched"
}

# Waits until node n's log says it started (the log line is the signal; the loop only polls the file).
ready() {
  local dir="$state/node-$1" waited=0 pid
  pid="$(cat "$dir/pid")"
  until grep -q 'Kafka Server started' "$dir/server.log" "$dir/stdout.log" 2>/dev/null; do
    if ! alive "$pid"; then
      echo "cluster.sh: node $1 exited during start-up; its log ends:" >&2
      tail -n 40 "$dir/server.log" "$dir/stdout.log" >&2
      return 1
    fi
    if ((waited >= timeout_s * 10)); then
      echo "cluster.sh: node $1 did not report 'Kafka Server started' within ${timeout_s} s; its log ends:" >&2
      tail -n 40 "$dir/server.log" "$dir/stdout.log" >&2
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  local ms=$((($(date +%s%N) - $(cat "$dir/launched")) / 1000000))
  echo "cluster.sh: node $1 ready at $(sed -n 's/^advertised.listeners=PLAINTEXT:\/\///p' "$dir/server.properties") after $ms ms (pid $pid)" >&2
}

node_arg() {
  [[ "${1:-}" =~ ^[123]$ ]] || {
    echo "cluster.sh: name a node, 1, 2 or 3 (got '${1:-}')" >&2
    return 2
  }
  [[ -f "$state/node-$1/server.properties" ]] || {
    echo "cluster.sh: no cluster was started here (use start)" >&2
    return 1
  }
}

kill_node() {
  node_arg "$1"
  local pid
  pid="$(node_pid "$1")" || {
    echo "cluster.sh: node $1 is not running" >&2
    return 1
  }
  kill -KILL "$pid"
  while alive "$pid"; do sleep 0.05; done
  rm -f "$state/node-$1/pid"
  echo "cluster.sh: node $1 killed (pid $pid)" >&2
}

up() {
  node_arg "$1"
  if node_pid "$1" >/dev/null; then
    echo "cluster.sh: node $1 is already running" >&2
    return 1
  fi
  launch "$1"
  ready "$1"
}

stop() {
  local pids=() pid
  for n in "${nodes[@]}"; do
    if pid="$(node_pid "$n")"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 200); do
      alive "$pid" || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$state"
}

status() {
  [[ -f "$state/bootstrap" ]] || return 1
  cat "$state/bootstrap"
  for n in "${nodes[@]}"; do
    if pid="$(node_pid "$n")"; then echo "node $n: running (pid $pid)"; else echo "node $n: down"; fi
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  kill) kill_node "${2:-}" ;;
  up) up "${2:-}" ;;
  status) status ;;
  *)
    echo "usage: scripts/kafka/cluster.sh start|stop|kill <n>|up <n>|status" >&2
    exit 2
    ;;
esac
