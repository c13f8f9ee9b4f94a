#!/usr/bin/env bash
# start-pgbouncer.sh - start PgBouncer (Debian's, 1.18 on Debian 12) in transaction mode on loopback in
# front of the PostgreSQL cluster of scripts/start-postgres.sh, for the tests of the PostgreSQL store
# through a transaction-mode pooler (records.postgresStatements=unnamed; docs/operations.md, "Running
# several instances"). Every database name is passed through to that cluster (`* =`), so a test may
# create a database of its own and reach it through the pooler; the test role gets CREATEDB for that.
#
# Usage:   eval "$(bash scripts/start-pgbouncer.sh)"   (after start-postgres.sh, same PG_PORT/PG_STATE_DIR)
# stdout:  `export PRESIGN_TEST_PGBOUNCER_URL=postgres://USER:PASSWORD@127.0.0.1:PORT/DB`
# Stop:    bash scripts/stop-pgbouncer.sh
#   PG_PORT, PG_STATE_DIR, PG_USER, PG_PASSWORD, PG_DATABASE  as for start-postgres.sh
#   PGBOUNCER_PORT   its port on 127.0.0.1 (default PG_PORT + 1)
#   PGBOUNCER_DIR    config, log and pid (default $PG_STATE_DIR-pgbouncer)
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
PG_STATE_DIR=${PG_STATE_DIR:-/tmp/presignd-pg-$PG_PORT}
PG_USER=${PG_USER:-presignd}
PG_PASSWORD=${PG_PASSWORD:-presignd-test-pw}
PG_DATABASE=${PG_DATABASE:-presignd}
PGBOUNCER_PORT=${PGBOUNCER_PORT:-$((PG_PORT + 1))}
D=${PGBOUNCER_DIR:-$PG_STATE_DIR-pgbouncer}
log() { printf '[start-pgbouncer] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
case "$D" in /|/tmp|/tmp/|/root|/home|/work|"") die "refusing to use PGBOUNCER_DIR=$D";; esac
command -v pgbouncer >/dev/null || die "pgbouncer is not installed (bash scripts/setup.sh test)"
[ -d "$PG_STATE_DIR/run" ] || die "no PostgreSQL of start-postgres.sh in $PG_STATE_DIR"

ours_pid() {
  local pid
  [ -s "$D/pgbouncer.pid" ] || return 1
  pid=$(cat "$D/pgbouncer.pid")
  case "$pid" in ''|*[!0-9]*) return 1;; esac
  [ -d "/proc/$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$D/pgbouncer.ini" || return 1
  echo "$pid"
}
print_exports() {
  echo "export PRESIGN_TEST_PGBOUNCER_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$PGBOUNCER_PORT/$PG_DATABASE"
}

# The tests make a database of their own each (no search_path option passes the pooler).
/usr/lib/postgresql/15/bin/psql -X -q -h "$PG_STATE_DIR/run" -p "$PG_PORT" -U postgres -d postgres \
  -c "ALTER ROLE \"$PG_USER\" CREATEDB" >&2

if pid=$(ours_pid); then
  log "PgBouncer already running (pid $pid) on 127.0.0.1:$PGBOUNCER_PORT"
  print_exports
  exit 0
fi
if ss -Hltn "sport = :$PGBOUNCER_PORT" 2>/dev/null | grep -q .; then
  die "port $PGBOUNCER_PORT is already in use by another process"
fi
rm -rf "$D"
mkdir -p "$D"
touch "$D/.presignd-pgbouncer"
printf '"%s" "%s"\n' "$PG_USER" "$PG_PASSWORD" >"$D/userlist.txt"
cat >"$D/pgbouncer.ini" <<INI
; written by start-pgbouncer.sh: transaction mode, loopback only
[databases]
* = host=127.0.0.1 port=$PG_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $D/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 10
max_db_connections = 40
server_reset_query =
ignore_startup_parameters = extra_float_digits
logfile = $D/pgbouncer.log
pidfile = $D/pgbouncer.pid
INI
chown -R postgres:postgres "$D"
chmod 700 "$D"
# PgBouncer refuses to run as root: run it as the cluster's user.
runuser -u postgres -- pgbouncer -d -q "$D/pgbouncer.ini" </dev/null >&2 || die "pgbouncer did not start ($(tail -n 5 "$D/pgbouncer.log" 2>/dev/null))"
for _ in $(seq 1 100); do
  ss -Hltn "sport = :$PGBOUNCER_PORT" 2>/dev/null | grep -q . && break
  sleep 0.1
done
ss -Hltn "sport = :$PGBOUNCER_PORT" 2>/dev/null | grep -q . || die "pgbouncer is not listening on $PGBOUNCER_PORT"
log "ready: pid $(ours_pid || echo '?') on 127.0.0.1:$PGBOUNCER_PORT, transaction mode"
print_exports
