#!/usr/bin/env bash
# instances.sh - three presignd instances on one PostgreSQL and one S3 store behind HAProxy (Debian's;
# round robin, health checks on /readyz), all on 127.0.0.1, for the tests of several instances
# (Tests/AppTests/InstancesHarnessTests.swift) and Benchmarks/instances.sh. Every process is started in
# the background with its PID in the state directory and stopped by that PID only (never by name).
#
# Usage:  bash scripts/instances.sh start            start COUNT instances and HAProxy; prints
#                                                    `export INSTANCES_PORT=... INSTANCES_DIR=...`
#         bash scripts/instances.sh stop             stop HAProxy, then every instance at once (SIGINT:
#                                                    no drain delay, nothing routes to them any more;
#                                                    SIGKILL after 30 s), delete nothing else
#         bash scripts/instances.sh term N           SIGTERM instance N (0-based), wait for its exit
#         bash scripts/instances.sh kill N           SIGKILL instance N, wait until it is gone
#         bash scripts/instances.sh up N             start instance N again on its port, wait until
#                                                    HAProxy has it UP
#         bash scripts/instances.sh wait-up N        wait until HAProxy has instance N UP
#         bash scripts/instances.sh port N           instance N's own port
#         bash scripts/instances.sh pid N            instance N's PID
# Environment:
#   INSTANCES_DIR     state directory (required; created by start): PIDs, ports, logs, haproxy.cfg;
#                     at most 84 characters (HAProxy's stats socket in it: at most 97)
#   INSTANCES_COUNT   instances (default 3)
#   PRESIGND_BINARY   the binary (default .build/debug/presignd)
#   PRESIGN_*         passed to every instance as they are (records URL, S3 settings, limits...);
#                     PRESIGN_SERVER_PORT is chosen here. PRESIGN_SERVER_DRAIN_DELAY_MS defaults to
#                     3000: above the health check's 250 ms interval × 1 failure with room for a
#                     loaded machine (docs/operations.md, "Running several instances").
#   HAPROXY_PORT      HAProxy's port (default: a free port the kernel picks)
#   HAPROXY_RETRIES   retries of a request that found an instance closing, on another instance
#                     (default 3, with redispatch); 0: none, so only the drain delay keeps requests whole
# Every wait is bounded (30 s); a failure prints the instance's log tail and exits 1.
set -euo pipefail
# Close inherited descriptors (a test runner waits for its pipes to close; the daemons must not hold them).
self=$(readlink -f "$0")
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  case $fd in 0|1|2) continue ;; esac
  # bash reads this script through a descriptor (255, or 254 when an inherited one holds 255): kept
  [ "$(readlink "/proc/$$/fd/$fd" 2>/dev/null)" = "$self" ] && continue
  eval "exec $fd>&-" 2>/dev/null || true
done
cd "$(dirname "$0")/.."
log() { printf '[instances] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
D=${INSTANCES_DIR:-}
[ -n "$D" ] || die "INSTANCES_DIR is not set"
case "$D" in /|/tmp|/tmp/|/root|/home|/work) die "refusing INSTANCES_DIR=$D";; esac
COUNT=${INSTANCES_COUNT:-3}
BIN=${PRESIGND_BINARY:-$PWD/.build/debug/presignd}
export PRESIGN_SERVER_DRAIN_DELAY_MS=${PRESIGN_SERVER_DRAIN_DELAY_MS:-3000}

# A process of ours: its /proc entry is there, not a zombie, and its command line is what we started.
alive() {
  local pid=$1 what=$2 state
  [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  state=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ "$state" != Z ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$what"
}
# A process that exists and is not a zombie, whatever it runs: right after `cmd &` the PID is still the
# forked shell until it has exec'd the command, so a check of the command line there would find the
# process "gone" (it made a start that had worked fail, and left the instance running).
running() {
  local state
  [ -n "$1" ] && [ -d "/proc/$1" ] || return 1
  state=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null || true)
  [ -n "$state" ] && [ "$state" != Z ]
}
pid_of() { cat "$D/$1.pid" 2>/dev/null || true; }
# Waits up to 30 s for "$@" to succeed.
wait_for() {
  local i
  for i in $(seq 1 300); do "$@" && return 0; sleep 0.1; done
  return 1
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Starts instance $1 on the port in $D/$1.port (0 the first time: the kernel picks one, kept for restarts).
start_instance() {
  local n=$1 port pid line
  port=$(cat "$D/$n.port" 2>/dev/null || echo 0)
  # A restarted instance's earlier log is kept in $n.log.old.
  if [ -s "$D/$n.log" ]; then cat "$D/$n.log" >>"$D/$n.log.old"; fi
  : >"$D/$n.log"
  PRESIGN_SERVER_PORT=$port setsid "$BIN" </dev/null >>"$D/$n.log" 2>&1 &
  pid=$!
  echo "$pid" >"$D/$n.pid"
  for _ in $(seq 1 300); do
    line=$(grep -m1 '"msg":"listening"' "$D/$n.log" || true)
    [ -n "$line" ] && break
    running "$pid" || break
    sleep 0.1
  done
  [ -n "$line" ] || { tail -n 20 "$D/$n.log" >&2; die "instance $n did not start listening"; }
  port=$(printf '%s' "$line" | sed -n 's/.*"port":\([0-9]*\).*/\1/p')
  [ -n "$port" ] || die "instance $n: no port in its listening line"
  echo "$port" >"$D/$n.port"
  log "instance $n: pid $pid on 127.0.0.1:$port"
}

# Whether HAProxy's stats say server i$1 is UP.
is_up() {
  python3 - "$D/haproxy.sock" "i$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
try:
    s.connect(sys.argv[1]); s.sendall(b"show stat\n")
    data = b""
    while chunk := s.recv(65536): data += chunk
except OSError:
    sys.exit(1)
for row in data.decode().splitlines():
    f = row.split(",")
    if len(f) > 17 and f[0] == "presignd" and f[1] == sys.argv[2]:
        sys.exit(0 if f[17] == "UP" else 1)
sys.exit(1)
PY
}

# Whether instance $1 is UP in HAProxy, or HAProxy is no longer running (nothing to wait for then).
up_or_gone() { is_up "$1" || ! running "$(pid_of haproxy)"; }

stop_pid() {
  local pid=$1 what=$2
  alive "$pid" "$what" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait_for_gone "$pid" "$what" || { kill -KILL "$pid" 2>/dev/null || true; wait_for_gone "$pid" "$what" || true; }
}
wait_for_gone() { local i; for i in $(seq 1 300); do alive "$1" "$2" || return 0; sleep 0.1; done; return 1; }

# Stops HAProxy and every instance of $D (by their PIDs).
stop_all() {
  stop_pid "$(pid_of haproxy)" "$D/haproxy.cfg"
  # With HAProxy gone nothing routes to the instances, so there is no balancer to wait out: SIGINT
  # (a drain without the drain delay) to all of them at once, then SIGKILL to any still there after 30 s.
  # One at a time through SIGTERM, each stop had waited its drain delay in turn.
  local f pid pids=()
  for f in "$D"/[0-9]*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f")
    alive "$pid" "$BIN" || continue
    kill -INT "$pid" 2>/dev/null || true
    pids+=("$pid")
  done
  for pid in "${pids[@]}"; do
    wait_for_gone "$pid" "$BIN" || { kill -KILL "$pid" 2>/dev/null || true; wait_for_gone "$pid" "$BIN" || true; }
  done
}

cmd=${1:-}
n=${2:-}
case "$cmd" in
  start)
    command -v haproxy >/dev/null || die "haproxy is not installed (bash scripts/setup.sh test)"
    [ -x "$BIN" ] || die "no presignd binary at $BIN (swift build)"
    if alive "$(pid_of haproxy)" "$D/haproxy.cfg"; then die "$D has a running HAProxy: stop it first"; fi
    for i in $(seq 0 $((COUNT - 1))); do
      if alive "$(pid_of "$i")" "$BIN"; then die "$D has a running instance $i: stop it first"; fi
    done
    # HAProxy refuses a stats socket path longer than 97 characters (it binds PATH.PID.tmp first).
    [ ${#D} -le 84 ] || die "INSTANCES_DIR is too long for HAProxy's stats socket ($D/haproxy.sock: at most 97 characters)"
    mkdir -p "$D"
    touch "$D/.presignd-instances"
    # A start that fails half-way stops what it had started: nothing is left running without a caller
    # that knows of it.
    trap 'log "start failed: stopping what was started"; stop_all' EXIT
    for i in $(seq 0 $((COUNT - 1))); do rm -f "$D/$i.port"; start_instance "$i"; done
    port=${HAPROXY_PORT:-$(free_port)}
    if [ "${HAPROXY_RETRIES:-3}" = 0 ]; then
      # No second try anywhere (a balancer like kube-proxy's): only the drain delay keeps requests whole.
      retry_lines="    retries 0"
    else
      # A request that found an instance closing (refused connection, connection closed without an
      # answer) goes to another instance.
      retry_lines="    retries ${HAPROXY_RETRIES:-3}
    option redispatch 1
    retry-on conn-failure empty-response response-timeout"
    fi
    {
      cat <<CFG
# written by scripts/instances.sh: round robin over the instances, health checks on /readyz
global
    stats socket $D/haproxy.sock mode 600 level admin
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout check 2s
$retry_lines

frontend presignd
    bind 127.0.0.1:$port
    default_backend presignd

backend presignd
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server check inter 250ms fall 1 rise 1
CFG
      for i in $(seq 0 $((COUNT - 1))); do echo "    server i$i 127.0.0.1:$(cat "$D/$i.port")"; done
    } >"$D/haproxy.cfg"
    haproxy -c -q -f "$D/haproxy.cfg" >&2 || die "haproxy.cfg does not check"
    setsid haproxy -db -f "$D/haproxy.cfg" </dev/null >>"$D/haproxy.log" 2>&1 &
    echo $! >"$D/haproxy.pid"
    echo "$port" >"$D/haproxy.port"
    for i in $(seq 0 $((COUNT - 1))); do
      wait_for up_or_gone "$i" || { tail -n 20 "$D/haproxy.log" >&2; die "HAProxy does not have instance $i UP"; }
      running "$(pid_of haproxy)" || { tail -n 20 "$D/haproxy.log" >&2; die "HAProxy exited"; }
    done
    trap - EXIT
    log "HAProxy: pid $(pid_of haproxy) on 127.0.0.1:$port, $COUNT instances UP"
    echo "export INSTANCES_PORT=$port INSTANCES_DIR=$D"
    ;;
  stop)
    [ -f "$D/.presignd-instances" ] || { log "nothing of ours in $D"; exit 0; }
    stop_all
    log "stopped"
    ;;
  term)
    pid=$(pid_of "$n")
    alive "$pid" "$BIN" || die "instance $n is not running"
    kill -TERM "$pid"
    wait_for_gone "$pid" "$BIN" || die "instance $n did not exit within 30 s of SIGTERM"
    log "instance $n (pid $pid) exited after SIGTERM"
    ;;
  kill)
    pid=$(pid_of "$n")
    alive "$pid" "$BIN" || die "instance $n is not running"
    kill -KILL "$pid"
    wait_for_gone "$pid" "$BIN" || die "instance $n is still there after SIGKILL"
    log "instance $n (pid $pid) killed"
    ;;
  up)
    alive "$(pid_of "$n")" "$BIN" && die "instance $n is running"
    start_instance "$n"
    wait_for is_up "$n" || die "HAProxy does not have instance $n UP"
    ;;
  wait-up) wait_for is_up "$n" || die "HAProxy does not have instance $n UP" ;;
  port) cat "$D/$n.port" ;;
  pid) pid_of "$n"; echo ;;
  *) die "usage: instances.sh start|stop|term N|kill N|up N|wait-up N|port N|pid N" ;;
esac
