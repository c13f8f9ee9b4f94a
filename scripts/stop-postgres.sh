#!/usr/bin/env bash
# stop-postgres.sh - stop the PostgreSQL cluster that start-postgres.sh started, found
# through its postmaster.pid only (and only if that pid's command line names our data
# directory), then delete the state dir.
#   PG_PORT / PG_STATE_DIR  as given to start-postgres.sh (default 25432, /tmp/presignd-pg-$PG_PORT)
#   PG_KEEP_STATE=1         keep the state dir (data and logs)
set -uo pipefail

PG_PORT=${PG_PORT:-25432}
D=${PG_STATE_DIR:-/tmp/presignd-pg-$PG_PORT}
DATA=$D/data
log() { printf '[stop-postgres] %s\n' "$*" >&2; }

ours() {  # pid -> true if it is our postmaster
  [ -d "/proc/$1" ] && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$DATA"
}

pid=""
[ -s "$DATA/postmaster.pid" ] && pid=$(head -n 1 "$DATA/postmaster.pid")
case "$pid" in ''|*[!0-9]*) pid="";; esac
if [ -n "$pid" ] && ours "$pid"; then
  # SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
  kill -INT "$pid" 2>/dev/null || true
  for _ in $(seq 1 120); do ours "$pid" || break; sleep 0.25; done
  if ours "$pid"; then log "pid $pid did not stop on INT, sending QUIT"; kill -QUIT "$pid" 2>/dev/null || true; fi
  for _ in $(seq 1 40); do ours "$pid" || break; sleep 0.25; done
  log "stopped PostgreSQL (pid $pid)"
else
  log "nothing of ours was running for $D"
fi

if [ "${PG_KEEP_STATE:-0}" != 1 ] && [ -f "$D/.presignd-postgres" ]; then
  rm -rf "$D"
  log "removed $D"
fi
exit 0
