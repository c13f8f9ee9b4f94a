#!/usr/bin/env bash
# instances.sh - two presignd instances against one, both behind HAProxy (scripts/instances.sh) on one
# PostgreSQL and RGW: throughput and p99 of the issue route (wrk, keep-alive) with 1 and 2 instances,
# and the ratio. On a 2-core machine HAProxy, wrk, PostgreSQL and the instances share the cores, so
# the ratio says what a second instance buys on one host, not across hosts. Run it on a quiet machine
# (docs/benchmarks.md); the lead records the figures there.
#
# Usage:   source the service exports of scripts/start-s3.sh and scripts/start-postgres.sh, then
#          bash Benchmarks/instances.sh
#   BENCH_SECONDS      seconds per wrk run (default 20)
#   BENCH_CONNECTIONS  wrk connections (default 64), BENCH_THREADS wrk threads (default 2)
#   PRESIGND_BINARY    default .build/release/presignd if built, else .build/debug/presignd
# Needs: wrk (SETUP_BENCH=1 bash scripts/setup.sh), haproxy, psql; PRESIGN_TEST_POSTGRES_URL and the
# S3_* variables of start-s3.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[bench-instances] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
command -v wrk >/dev/null || die "wrk is not installed (SETUP_BENCH=1 bash scripts/setup.sh)"
: "${PRESIGN_TEST_POSTGRES_URL:?source the exports of scripts/start-postgres.sh}"
: "${S3_ENDPOINT:?source the exports of scripts/start-s3.sh}"
SECONDS_PER_RUN=${BENCH_SECONDS:-20}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
THREADS=${BENCH_THREADS:-2}
if [ -z "${PRESIGND_BINARY:-}" ]; then
  PRESIGND_BINARY=$PWD/.build/release/presignd
  [ -x "$PRESIGND_BINARY" ] || PRESIGND_BINARY=$PWD/.build/debug/presignd
fi
[ -x "$PRESIGND_BINARY" ] || die "no presignd binary (swift build -c release)"
export PRESIGND_BINARY
log "binary $PRESIGND_BINARY"

WORK=$(mktemp -d /tmp/presignd-bench-instances.XXXXXX)
schema="bench_$(date +%s)_$$"
psql "$PRESIGN_TEST_POSTGRES_URL" -q -v ON_ERROR_STOP=1 -c "CREATE SCHEMA $schema" >/dev/null
current=""
cleanup() {
  if [ -n "$current" ]; then INSTANCES_DIR=$current bash scripts/instances.sh stop || true; fi
  psql "$PRESIGN_TEST_POSTGRES_URL" -q -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT

export PRESIGN_RECORDS_URL="$PRESIGN_TEST_POSTGRES_URL?options=-csearch_path%3D$schema"
export PRESIGN_S3_ENDPOINT=$S3_ENDPOINT PRESIGN_S3_BUCKET=$S3_BUCKET PRESIGN_S3_REGION=$S3_REGION
export PRESIGN_S3_ACCESS_KEY_ID=$S3_ACCESS_KEY PRESIGN_S3_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export PRESIGN_LIMITS_ENABLED=false AWS_EC2_METADATA_DISABLED=true

# One wrk run through HAProxy in front of $1 instances: "requests/s p99" in $WORK/result-$1.
run() {
  local count=$1 port out rps p99
  current=$WORK/$count
  local exports
  exports=$(INSTANCES_DIR=$current INSTANCES_COUNT=$count bash scripts/instances.sh start) \
    || die "the instances did not start (a stale binary? swift build -c release)"
  eval "$exports"
  port=$INSTANCES_PORT
  # Warm-up (connections, the store's prepared statements), then the measured run.
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -H 'X-User-Id: bench' \
    "http://127.0.0.1:$port/presigned-url?type=PROFILE&ext=jpg" >/dev/null
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency -H 'X-User-Id: bench' \
    "http://127.0.0.1:$port/presigned-url?type=PROFILE&ext=jpg")
  printf '%s\n' "$out" >"$WORK/wrk-$count.txt"
  if printf '%s\n' "$out" | grep -qE "Non-2xx|Socket errors"; then
    printf '%s\n' "$out" >&2
    die "errors with $count instance(s)"
  fi
  rps=$(printf '%s\n' "$out" | awk '/^Requests\/sec:/ {print $2}')
  p99=$(printf '%s\n' "$out" | awk '$1 == "99%" {print $2}')
  INSTANCES_DIR=$current bash scripts/instances.sh stop
  current=""
  echo "$rps $p99" >"$WORK/result-$count"
}

run 1
run 2
read -r one_rps one_p99 <"$WORK/result-1"
read -r two_rps two_p99 <"$WORK/result-2"
ratio=$(python3 -c "print(f'{$two_rps / $one_rps:.2f}')")
echo "instances behind HAProxy, issue route, wrk -t$THREADS -c$CONNECTIONS -d${SECONDS_PER_RUN}s, $(nproc) CPUs:"
echo "  1 instance:  $one_rps requests/s, p99 $one_p99"
echo "  2 instances: $two_rps requests/s, p99 $two_p99"
echo "  ratio 2/1:   $ratio"
