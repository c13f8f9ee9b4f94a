#!/usr/bin/env bash
# start-postgres.sh - start a throw-away PostgreSQL 15 cluster on loopback for the
# tests and benchmarks of the Records module (and of the server on PostgreSQL).
#
# Idempotent: installs Debian's postgresql-15 if it is missing; if our cluster is
# already running it only makes sure the role and the database exist.
#
# Usage:   eval "$(bash scripts/start-postgres.sh)"
# stdout:  one line, `export PRESIGN_TEST_POSTGRES_URL=postgres://USER:PASSWORD@127.0.0.1:PORT/DB`;
#          progress goes to stderr.
# Stop:    bash scripts/stop-postgres.sh   (same PG_PORT / PG_STATE_DIR)
#
# Environment (all optional):
#   PG_PORT            TCP port on 127.0.0.1                      (default 25432)
#   PG_STATE_DIR       data, socket, log and pid live here         (default /tmp/presignd-pg-$PG_PORT)
#   PG_USER            role created for the tests                  (default presignd)
#   PG_PASSWORD        its password (letters and digits only)      (default presignd-test-pw)
#   PG_DATABASE        database created, owned by PG_USER          (default presignd)
#   PG_START_TIMEOUT   seconds to wait for the server              (default 60)
#   PG_SKIP_INSTALL=1  never call apt-get
#
# The cluster listens on 127.0.0.1 only (password, scram-sha-256) and on a unix socket in
# $PG_STATE_DIR/run (trust, for this script's own administration). fsync and
# synchronous_commit keep their defaults (on), so commit figures measured against it are
# durable ones. We run as root and initdb refuses root: the state dir belongs to the
# `postgres` user and the server runs as that user through runuser.
set -euo pipefail

# Close descriptors inherited from whoever started us (other than stdin/out/err and bash's
# own descriptor of this script), so the server forked below does not keep them open. Swift's
# Foundation.Process on Linux learns that a child exited when a descriptor it passed down is closed: without
# this, waitUntilExit() would block until PostgreSQL exits.
self=$(readlink -f "$0")
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  case $fd in 0|1|2) continue ;; esac
  # bash reads this script through a descriptor (255, or 254 when an inherited one holds 255): kept
  [ "$(readlink "/proc/$$/fd/$fd" 2>/dev/null)" = "$self" ] && continue
  eval "exec $fd>&-" 2>/dev/null || true
done

PG_PORT=${PG_PORT:-25432}
case "$PG_PORT" in ''|*[!0-9]*) echo "[start-postgres] ERROR: PG_PORT must be a number" >&2; exit 1;; esac
PG_STATE_DIR=${PG_STATE_DIR:-/tmp/presignd-pg-$PG_PORT}
PG_USER=${PG_USER:-presignd}
PG_PASSWORD=${PG_PASSWORD:-presignd-test-pw}
PG_DATABASE=${PG_DATABASE:-presignd}
PG_START_TIMEOUT=${PG_START_TIMEOUT:-60}
HOST=127.0.0.1

D=$PG_STATE_DIR
DATA=$D/data
SOCK=$D/run
LOG=$D/log/postgres.log
MARKER=$D/.presignd-postgres

log() { printf '[start-postgres] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

case "$PG_USER$PG_DATABASE" in *[!A-Za-z0-9_]*) die "PG_USER and PG_DATABASE must be letters, digits or _";; esac
case "$PG_PASSWORD" in ''|*[!A-Za-z0-9_-]*) die "PG_PASSWORD must be letters, digits, - or _ (it goes into a URL)";; esac
[ "$PG_PORT" -ge 1024 ] && [ "$PG_PORT" -le 65535 ] || die "PG_PORT must be in 1024..65535"
case "$D" in /|/tmp|/tmp/|/root|/home|/work|"") die "refusing to use PG_STATE_DIR=$D";; esac

# ---------------------------------------------------------------- install
find_bin() {
  for dir in /usr/lib/postgresql/15/bin; do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/psql" ] && { echo "$dir"; return 0; }
  done
  return 1
}
if ! PGBIN=$(find_bin); then
  [ "${PG_SKIP_INSTALL:-0}" = 1 ] && die "PostgreSQL 15 is not installed and PG_SKIP_INSTALL=1"
  log "installing postgresql-15 from Debian..."
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq postgresql-15 postgresql-client-15 </dev/null >&2; then
    apt-get update -qq </dev/null >&2
    apt-get install -y -qq postgresql-15 postgresql-client-15 </dev/null >&2
  fi
  PGBIN=$(find_bin) || die "postgresql-15 installed but /usr/lib/postgresql/15/bin/initdb is missing"
fi
id postgres >/dev/null 2>&1 || die "the postgres user does not exist (the postgresql-15 package creates it)"
as_pg() { runuser -u postgres -- "$@"; }

# ---------------------------------------------------------------- helpers
ours_pid() {  # prints the postmaster pid if our cluster's postmaster is alive
  local f=$DATA/postmaster.pid pid
  [ -s "$f" ] || return 1
  pid=$(head -n 1 "$f")
  case "$pid" in ''|*[!0-9]*) return 1;; esac
  [ -d "/proc/$pid" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$DATA" || return 1
  echo "$pid"
}
ready() { "$PGBIN/pg_isready" -q -h "$SOCK" -p "$PG_PORT" -d postgres -U postgres; }
psql_admin() { "$PGBIN/psql" -X -q -h "$SOCK" -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 "$@"; }

ensure_role_and_database() {
  psql_admin -d postgres -v user="$PG_USER" -v pw="$PG_PASSWORD" -v db="$PG_DATABASE" >&2 <<'SQL'
SELECT format('CREATE ROLE %I LOGIN', :'user') WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'user') \gexec
ALTER ROLE :"user" WITH LOGIN PASSWORD :'pw';
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'user') WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SQL
}
print_exports() {
  echo "export PRESIGN_TEST_POSTGRES_URL=postgres://$PG_USER:$PG_PASSWORD@$HOST:$PG_PORT/$PG_DATABASE"
}

# ---------------------------------------------------------------- already running?
if pid=$(ours_pid) && ready; then
  log "PostgreSQL already running (pid $pid), state in $D"
  ensure_role_and_database
  print_exports
  exit 0
fi

# ---------------------------------------------------------------- create the cluster once
if [ ! -f "$DATA/PG_VERSION" ]; then
  if [ -d "$D" ] && [ -n "$(ls -A "$D")" ] && [ ! -f "$MARKER" ]; then
    die "$D exists, is not empty and was not made by start-postgres.sh; pick another PG_STATE_DIR"
  fi
  rm -rf "$D"
  mkdir -p "$D/log" "$SOCK"
  touch "$MARKER"
  chown -R postgres:postgres "$D"
  chmod 700 "$D"
  log "initdb in $DATA"
  as_pg "$PGBIN/initdb" -D "$DATA" -U postgres -E UTF8 --no-locale \
    --auth-local=trust --auth-host=scram-sha-256 </dev/null >"$D/log/initdb.log" 2>&1 \
    || { cat "$D/log/initdb.log" >&2; die "initdb failed"; }
  cat >>"$DATA/postgresql.conf" <<CONF
# added by start-postgres.sh: loopback only, socket in the state dir
listen_addresses = '$HOST'
port = $PG_PORT
unix_socket_directories = '$SOCK'
max_connections = 100
password_encryption = scram-sha-256
CONF
  cat >"$DATA/pg_hba.conf" <<HBA
# added by start-postgres.sh
local all postgres trust
local all all scram-sha-256
host  all all 127.0.0.1/32 scram-sha-256
HBA
  chown postgres:postgres "$DATA/postgresql.conf" "$DATA/pg_hba.conf"
fi

if ss -Hltn "sport = :$PG_PORT" 2>/dev/null | grep -q .; then
  die "port $PG_PORT is already in use by another process"
fi

log "starting PostgreSQL on $HOST:$PG_PORT (log $LOG)"
chown -R postgres:postgres "$D"
as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t "$PG_START_TIMEOUT" start </dev/null >"$D/log/pg_ctl.out" 2>&1 \
  || { cat "$D/log/pg_ctl.out" "$LOG" >&2 2>/dev/null; die "pg_ctl start failed"; }

deadline=$(( $(date +%s) + PG_START_TIMEOUT ))
until ready; do
  [ "$(date +%s)" -lt "$deadline" ] || die "timed out waiting for PostgreSQL (log in $LOG)"
  sleep 0.2
done
ensure_role_and_database
log "ready: pid $(ours_pid || echo '?'), database $PG_DATABASE, role $PG_USER"
print_exports
