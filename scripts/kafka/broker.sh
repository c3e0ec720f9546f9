#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft) on 127.0.0.1 for tests and examples: fetch, start, stop, status.
#
#   scripts/kafka/broker.sh fetch     resolve the broker's jars from Maven Central (cached in ~/.m2)
#   scripts/kafka/broker.sh start     format a fresh log directory and start a broker on a free port;
#                                     prints the bootstrap address (also written to $STATE/bootstrap)
#   scripts/kafka/broker.sh stop      stop it (SIGTERM, then SIGKILL after 20 s) and delete its data
#   scripts/kafka/broker.sh restart   stop it and start it again on the same ports and data (a broker restart)
#   scripts/kafka/broker.sh down      stop it, keeping its ports and data (a broker outage)
#   scripts/kafka/broker.sh up        start a broker taken down with 'down' again, on the same ports and data
#   scripts/kafka/broker.sh pause     freeze it (SIGSTOP): connections stay open, nothing is answered (a broker
#                                     that hangs: a stalled disk, a long pause of its JVM)
#   scripts/kafka/broker.sh resume    let a paused broker run on (SIGCONT)
#   scripts/kafka/broker.sh status    print the bootstrap address if a broker started here is running
#   scripts/kafka/broker.sh tls       print the TLS listener's address and the directory of its certificates
#
# Besides its plaintext listener the broker has a TLS listener that requires a client certificate (mutual TLS).
# Its certificates are generated with openssl at every start, in $STATE/data/tls: ca.pem (the authority),
# broker.p12 (the broker's key and certificate for 127.0.0.1), client.pem and client.key (a client's).
#
# STATE defaults to .weir-tmp/kafka in the repository (WEIR_KAFKA_STATE overrides). The broker is started
# with a 256 MB heap; it is ready when its log says "Kafka Server started" (read, not slept on).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/scripts/kafka"
state="${WEIR_KAFKA_STATE:-$root/.weir-tmp/kafka}"
lib="$state/lib"
timeout_s="${WEIR_KAFKA_START_TIMEOUT:-120}"

fetch() {
  if [[ -f "$lib/.complete" ]]; then return 0; fi
  command -v java >/dev/null || { echo "broker.sh: java is not installed (the broker needs a JRE 17+)" >&2; return 1; }
  command -v mvn >/dev/null || { echo "broker.sh: mvn is not installed (it fetches the broker's jars)" >&2; return 1; }
  rm -rf "$lib"
  mkdir -p "$lib"
  mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$lib" >&2
  cp "$here/log4j2.properties" "$lib/../log4j2.properties"
  touch "$lib/.complete"
}

free_port() {
  node -e "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

running_pid() {
  [[ -f "$state/pid" ]] || return 1
  local pid
  pid="$(cat "$state/pid")"
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

start() {
  if pid="$(running_pid)"; then
    echo "broker.sh: a broker is already running (pid $pid) at $(cat "$state/bootstrap")" >&2
    cat "$state/bootstrap"
    return 0
  fi
  fetch
  local data="$state/data" port controller tls_port cluster password
  rm -rf "$data" "$state/bootstrap" "$state/bootstrap-tls" "$state/pid"
  mkdir -p "$data"
  port="$(free_port)"
  controller="$(free_port)"
  while [[ "$controller" == "$port" ]]; do controller="$(free_port)"; done
  tls_port="$(free_port)"
  while [[ "$tls_port" == "$port" || "$tls_port" == "$controller" ]]; do tls_port="$(free_port)"; done
  password="$(node -e "console.log(require('node:crypto').randomBytes(12).toString('hex'))")"
  certificates "$data/tls" "$password"
  sed -e "s|@PORT@|$port|g" -e "s|@CONTROLLER_PORT@|$controller|g" -e "s|@DATA@|$data/logs|g" \
    -e "s|@TLS_PORT@|$tls_port|g" -e "s|@TLS@|$data/tls|g" -e "s|@TLS_PASSWORD@|$password|g" \
    "$here/server.properties" >"$data/server.properties"
  cluster="$(bash "$here/cluster-id.sh")"
  java -Xms256m -Xmx256m -Dlog4j2.configurationFile="$state/log4j2.properties" -Dweir.kafka.log="$data/format-log4j.log" -cp "$lib/*" \
    kafka.tools.StorageTool format -t "$cluster" -c "$data/server.properties" >"$data/format.log" 2>&1 || {
    echo "broker.sh: formatting the log directory failed:" >&2
    cat "$data/format.log" >&2
    return 1
  }
  launch
  echo "127.0.0.1:$port" >"$state/bootstrap"
  echo "127.0.0.1:$tls_port" >"$state/bootstrap-tls"
  echo "127.0.0.1:$port"
}

# A CA, a broker certificate for 127.0.0.1 (in a PKCS#12 keystore) and a client certificate, all signed by the CA.
certificates() {
  local dir="$1" password="$2"
  mkdir -p "$dir"
  (
    cd "$dir"
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 2 -subj "/CN=weir-test-ca"
    openssl req "${ec[@]}" -keyout broker.key -out broker.csr -subj "/CN=127.0.0.1"
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >broker.ext
    openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out broker.pem -days 2 \
      -extfile broker.ext
    openssl pkcs12 -export -in broker.pem -inkey broker.key -certfile ca.pem -out broker.p12 \
      -passout "pass:$password"
    openssl req "${ec[@]}" -keyout client.key -out client.csr -subj "/CN=weir-test-client"
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2
  ) >"$dir/openssl.log" 2>&1 || {
    echo "broker.sh: generating the TLS certificates failed:" >&2
    cat "$dir/openssl.log" >&2
    return 1
  }
}

# Starts the broker of $data/server.properties and waits until its log says it started.
launch() {
  local data="$state/data"
  : >"$data/server.log"
  nohup java -Xms256m -Xmx256m -XX:+UseSerialGC -Dlog4j2.configurationFile="$state/log4j2.properties" \
    -Dweir.kafka.log="$data/server.log" -cp "$lib/*" kafka.Kafka "$data/server.properties" \
    >"$data/stdout.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$state/pid"
  local waited=0
  until grep -q 'Kafka Server started' "$data/server.log" "$data/stdout.log" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "broker.sh: the broker exited during start-up; its log ends:" >&2
      tail -n 40 "$data/server.log" "$data/stdout.log" >&2
      rm -f "$state/pid"
      return 1
    fi
    if ((waited >= timeout_s * 10)); then
      echo "broker.sh: the broker did not report 'Kafka Server started' within ${timeout_s} s; its log ends:" >&2
      tail -n 40 "$data/server.log" "$data/stdout.log" >&2
      stop
      return 1
    fi
    # Polls the log file every 100 ms: the readiness signal is the log line, this is only the polling period.
    sleep 0.1
    waited=$((waited + 1))
  done
  echo "broker.sh: Kafka 4.4.0 ready at $(sed -n 's/^advertised.listeners=PLAINTEXT:\/\/\([^,]*\).*/\1/p' "$data/server.properties") after $((waited / 10)).$((waited % 10)) s (pid $pid)" >&2
}

# Stops the broker process (SIGTERM, then SIGKILL after 20 s), keeping its data.
terminate() {
  local pid
  if pid="$(running_pid)"; then
    kill -TERM "$pid" 2>/dev/null || true
    # A paused broker (pause) takes the signal once it runs again.
    kill -CONT "$pid" 2>/dev/null || true
    for _ in $(seq 1 200); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$state/pid"
}

stop() {
  terminate
  rm -rf "$state/pid" "$state/bootstrap" "$state/bootstrap-tls" "$state/data"
}

# The same broker (node, ports, log directory) goes down and comes up again, as a broker restart in production.
restart() {
  running_pid >/dev/null || {
    echo "broker.sh: no broker started here is running" >&2
    return 1
  }
  terminate
  launch
}

# A broker outage: the process goes away, its node, ports and log directory stay for 'up'.
down() {
  running_pid >/dev/null || {
    echo "broker.sh: no broker started here is running" >&2
    return 1
  }
  terminate
}

up() {
  if running_pid >/dev/null; then
    echo "broker.sh: the broker is already running" >&2
    return 1
  fi
  [[ -f "$state/data/server.properties" ]] || {
    echo "broker.sh: no broker was started here (nothing to bring up; use start)" >&2
    return 1
  }
  launch
}

# A broker that hangs rather than dies: its clients' requests wait instead of failing on a closed connection.
pause() {
  local pid
  pid="$(running_pid)" || {
    echo "broker.sh: no broker started here is running" >&2
    return 1
  }
  kill -STOP "$pid"
}

resume() {
  local pid
  pid="$(running_pid)" || {
    echo "broker.sh: no broker started here is running" >&2
    return 1
  }
  kill -CONT "$pid"
}

tls() {
  running_pid >/dev/null && echo "$(cat "$state/bootstrap-tls") $state/data/tls"
}

status() {
  running_pid >/dev/null && cat "$state/bootstrap"
}

case "${1:-}" in
  fetch) fetch ;;
  start) start ;;
  stop) stop ;;
  restart) restart ;;
  down) down ;;
  up) up ;;
  pause) pause ;;
  resume) resume ;;
  status) status ;;
  tls) tls ;;
  *)
    echo "usage: scripts/kafka/broker.sh fetch|start|stop|restart|down|up|status|tls" >&2
    exit 2
    ;;
esac
