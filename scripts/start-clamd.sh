#!/usr/bin/env bash
# start-clamd.sh - start the real ClamAV daemon (Debian's clamav-daemon) on loopback for the malware
# scan's tests (docs/scanning.md), with a configuration and a signature database of its own: no
# freshclam (its mirror cannot be reached here) and none of the system's databases. The database holds
# one signature of ours, presignd.ndb:
#   Presignd.Test.Marker-1  any file holding the ASCII bytes PRESIGND-TEST-MALWARE-MARKER-5f2c9a
# (a body-based .ndb signature: target type 0, any offset). Tests put that marker in an upload to get
# "stream: Presignd.Test.Marker-1.UNOFFICIAL FOUND". With only this database clamd does not know the
# EICAR test file (ClamdClientTests checks it); the tests use our marker only.
#
# clamd runs in the foreground of a background subshell, its pid in the state directory; TCPSocket on
# 127.0.0.1:CLAMD_PORT and LocalSocket in the state directory. StreamMaxLength is 64 MiB (presignd's
# scan.maxBytes must stay under it).
#
# Idempotent: installs clamav-daemon if missing (apt-get update first); if our clamd already answers
# PING it is left running.
#
# Usage:   eval "$(bash scripts/start-clamd.sh)"
# stdout:  export lines only (CLAMD_ADDRESS CLAMD_SOCKET CLAMD_PID_FILE CLAMD_STATE_DIR
#          CLAMD_TEST_MARKER); progress -> stderr.
# Stop:    bash scripts/stop-clamd.sh   (same CLAMD_PORT / CLAMD_STATE_DIR)
#
# Environment (all optional):
#   CLAMD_PORT         TCP port on 127.0.0.1                 (default 3310)
#   CLAMD_STATE_DIR    where config, database, socket, log   (default /tmp/clamd-$CLAMD_PORT)
#   CLAMD_START_TIMEOUT seconds to wait for PONG              (default 120)
#   CLAMD_SKIP_INSTALL=1 never call apt-get
set -euo pipefail

# Close inherited descriptors (but stdin/out/err and bash's own of this script), so clamd does not
# keep them open.
self=$(readlink -f "$0")
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  case $fd in 0|1|2) continue ;; esac
  # bash reads this script through a descriptor (255, or 254 when an inherited one holds 255): kept
  [ "$(readlink "/proc/$$/fd/$fd" 2>/dev/null)" = "$self" ] && continue
  eval "exec $fd>&-" 2>/dev/null || true
done

log() { printf '[start-clamd] %s\n' "$*" >&2; }
CLAMD_PORT=${CLAMD_PORT:-3310}
case "$CLAMD_PORT" in ''|*[!0-9]*) log "ERROR: CLAMD_PORT must be a number"; exit 1;; esac
D=${CLAMD_STATE_DIR:-/tmp/clamd-$CLAMD_PORT}
TIMEOUT=${CLAMD_START_TIMEOUT:-120}
MARKER=PRESIGND-TEST-MALWARE-MARKER-5f2c9a
PID_FILE=$D/clamd.pid
SOCKET=$D/clamd.ctl

emit() {
  echo "export CLAMD_ADDRESS=tcp://127.0.0.1:$CLAMD_PORT"
  echo "export CLAMD_SOCKET=$SOCKET"
  echo "export CLAMD_PID_FILE=$PID_FILE"
  echo "export CLAMD_STATE_DIR=$D"
  echo "export CLAMD_TEST_MARKER=$MARKER"
}

# PONG from our clamd on the TCP port (bash's /dev/tcp: no other client needed).
pong() {
  local reply
  reply=$(timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$CLAMD_PORT && printf 'zPING\0' >&3 && tr -d '\0' <&3" \
    2>/dev/null || true)
  [ "$reply" = PONG ]
}

if [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null && pong; then
  log "clamd already running (pid $(cat "$PID_FILE"))"
  emit
  exit 0
fi

if ! command -v clamd >/dev/null 2>&1 && [ ! -x /usr/sbin/clamd ]; then
  [ "${CLAMD_SKIP_INSTALL:-0}" = 1 ] && { log "ERROR: clamd is not installed"; exit 1; }
  log "installing clamav-daemon"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends clamav-daemon >&2
  # The package starts its own services where there is an init; ours runs apart from them.
fi
CLAMD=$(command -v clamd || echo /usr/sbin/clamd)

mkdir -p "$D/db"
# The signature database: only ours. .ndb: Name:TargetType:Offset:HexSignature (0 = any file, * = any offset).
printf 'Presignd.Test.Marker-1:0:*:%s\n' "$(printf '%s' "$MARKER" | od -An -tx1 | tr -d ' \n')" > "$D/db/presignd.ndb"
RUN_USER=$(id -un)
cat > "$D/clamd.conf" <<CONF
# Written by scripts/start-clamd.sh: a test clamd on loopback with presignd's own signature only.
Foreground yes
User $RUN_USER
DatabaseDirectory $D/db
LocalSocket $SOCKET
FixStaleSocket yes
TCPSocket $CLAMD_PORT
TCPAddr 127.0.0.1
PidFile $PID_FILE
LogFile $D/clamd.log
LogTime yes
StreamMaxLength 64M
MaxThreads 4
ReadTimeout 30
CommandReadTimeout 10
SelfCheck 0
Bytecode no
CONF

rm -f "$PID_FILE"
log "starting clamd on 127.0.0.1:$CLAMD_PORT ($D)"
( exec "$CLAMD" --config-file="$D/clamd.conf" </dev/null >>"$D/clamd.out" 2>&1 ) &
echo $! > "$PID_FILE.launch"
deadline=$((SECONDS + TIMEOUT))
until pong; do
  if ! kill -0 "$(cat "$PID_FILE.launch")" 2>/dev/null; then
    log "ERROR: clamd exited; its output:"; tail -20 "$D/clamd.out" >&2 || true; exit 1
  fi
  [ $SECONDS -ge $deadline ] && { log "ERROR: clamd did not answer PING within ${TIMEOUT}s"; exit 1; }
  sleep 0.5
done
# clamd writes its own pid file (PidFile); the launcher's pid is the same process (exec).
[ -s "$PID_FILE" ] || cp "$PID_FILE.launch" "$PID_FILE"
rm -f "$PID_FILE.launch"
log "clamd ready (pid $(cat "$PID_FILE"))"
emit
