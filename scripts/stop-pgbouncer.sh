#!/usr/bin/env bash
# stop-pgbouncer.sh - stop the PgBouncer of scripts/start-pgbouncer.sh (found by its pid file, and only if
# that pid's command line names our config), then delete its directory.
#   PG_PORT / PG_STATE_DIR / PGBOUNCER_DIR  as given to start-pgbouncer.sh
set -uo pipefail
PG_PORT=${PG_PORT:-25432}
PG_STATE_DIR=${PG_STATE_DIR:-/tmp/presignd-pg-$PG_PORT}
D=${PGBOUNCER_DIR:-$PG_STATE_DIR-pgbouncer}
log() { printf '[stop-pgbouncer] %s\n' "$*" >&2; }
ours() { [ -d "/proc/$1" ] && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$D/pgbouncer.ini"; }
pid=""
[ -s "$D/pgbouncer.pid" ] && pid=$(cat "$D/pgbouncer.pid")
case "$pid" in ''|*[!0-9]*) pid="";; esac
if [ -n "$pid" ] && ours "$pid"; then
  kill -INT "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do ours "$pid" || break; sleep 0.1; done
  if ours "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  log "stopped PgBouncer (pid $pid)"
else
  log "nothing of ours was running for $D"
fi
[ -f "$D/.presignd-pgbouncer" ] && rm -rf "$D"
exit 0
