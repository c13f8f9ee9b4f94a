#!/usr/bin/env bash
# pg-fault.sh - restart, stop, start or kill the throw-away PostgreSQL cluster that
# scripts/start-postgres.sh made, for fault tests and the chaos run. Acts only on the cluster of
# PG_PORT / PG_STATE_DIR (the same defaults as start-postgres.sh), through its own data directory.
#
# Usage: PG_PORT=N bash scripts/pg-fault.sh ACTION
#   restart-fast       pg_ctl restart -m fast (sessions are ended, a clean checkpoint)
#   restart-immediate  pg_ctl restart -m immediate (no checkpoint: crash recovery at start)
#   stop               pg_ctl stop -m fast
#   start              pg_ctl start (waits until it accepts connections)
#   kill9              SIGKILL to the postmaster (its backends go when they notice); then start it
#                      with `start` (which retries while the old backends still hold shared memory)
#   pid                print the postmaster's pid, exit 1 if it is not running
set -euo pipefail
# Close inherited descriptors (see start-postgres.sh: Foundation.Process waits for them).
self=$(readlink -f "$0")
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  case $fd in 0|1|2) continue ;; esac
  # bash reads this script through a descriptor (255, or 254 when an inherited one holds 255): kept
  [ "$(readlink "/proc/$$/fd/$fd" 2>/dev/null)" = "$self" ] && continue
  eval "exec $fd>&-" 2>/dev/null || true
done
PG_PORT=${PG_PORT:-25432}
D=${PG_STATE_DIR:-/tmp/presignd-pg-$PG_PORT}
DATA=$D/data
LOG=$D/log/postgres.log
PGBIN=/usr/lib/postgresql/15/bin
log() { printf '[pg-fault] %s\n' "$*" >&2; }
[ -f "$DATA/PG_VERSION" ] || { log "ERROR: no cluster in $DATA (run start-postgres.sh first)"; exit 1; }
as_pg() { runuser -u postgres -- "$@"; }
ours_pid() {
  local pid
  [ -s "$DATA/postmaster.pid" ] || return 1
  pid=$(head -n 1 "$DATA/postmaster.pid")
  case "$pid" in ''|*[!0-9]*) return 1;; esac
  [ -d "/proc/$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$DATA" || return 1
  echo "$pid"
}
case "${1:-}" in
  restart-fast|restart-immediate)
    as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 -m "${1#restart-}" restart </dev/null >/dev/null ;;
  stop)
    as_pg "$PGBIN/pg_ctl" -D "$DATA" -w -t 60 -m fast stop </dev/null >/dev/null ;;
  start)
    # After a kill -9 the old backends hold the shared memory until they notice: pg_ctl start refuses
    # ("pre-existing shared memory block is still in use") until then, so try again for a while. A
    # start that timed out while the server kept coming up counts once the server answers.
    out=$D/log/pg-fault-start.out
    for _ in $(seq 1 300); do
      if ours_pid >/dev/null && "$PGBIN/pg_isready" -q -h "$D/run" -p "$PG_PORT" -d postgres -U postgres; then exit 0; fi
      if ! ours_pid >/dev/null; then
        as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start </dev/null >"$out" 2>&1 && exit 0
      fi
      sleep 0.1
    done
    log "ERROR: pg_ctl start failed: $(tail -n 5 "$out" 2>/dev/null | tr '\n' ' ') log: $(tail -n 5 "$LOG" 2>/dev/null | tr '\n' ' ')"
    exit 1 ;;
  kill9)
    pid=$(ours_pid) || { log "not running"; exit 1; }
    kill -KILL "$pid" ;;
  pid)
    ours_pid ;;
  *) log "usage: PG_PORT=N $0 restart-fast|restart-immediate|stop|start|kill9|pid"; exit 2 ;;
esac
