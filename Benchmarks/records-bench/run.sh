#!/usr/bin/env bash
# run.sh - build records-bench in release mode and measure durable inserts/s through GroupCommitter:
# SQLite and PostgreSQL, grouped (maxBatch 256) and one commit per record (maxBatch 1), 64 threads,
# ROUNDS rounds alternating the configurations (the machine is shared: compare medians).
#   PRESIGN_TEST_POSTGRES_URL  PostgreSQL to use (start one with scripts/start-postgres.sh); unset: SQLite only
#   ROUNDS (3)  SECONDS_PER_RUN (8)  THREADS (64)  BENCH_DIR (/tmp/records-bench, holds the SQLite file)
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-8}
THREADS=${THREADS:-64}
BENCH_DIR=${BENCH_DIR:-/tmp/records-bench}
SCRATCH=${SCRATCH:-/tmp/records-bench-build}
swift build -c release --scratch-path "$SCRATCH" >&2
BIN=$SCRATCH/release/RecordsBench
mkdir -p "$BENCH_DIR"
for round in $(seq 1 "$ROUNDS"); do
  for batch in 256 1; do
    rm -f "$BENCH_DIR"/bench.db*
    echo "round=$round store=sqlite load=$(cut -d' ' -f1 /proc/loadavg) $("$BIN" "sqlite:$BENCH_DIR/bench.db" "$THREADS" "$batch" "$SECONDS_PER_RUN")"
    if [ -n "${PRESIGN_TEST_POSTGRES_URL:-}" ]; then
      echo "round=$round store=postgres load=$(cut -d' ' -f1 /proc/loadavg) $("$BIN" "$PRESIGN_TEST_POSTGRES_URL" "$THREADS" "$batch" "$SECONDS_PER_RUN")"
    fi
  done
done
rm -f "$BENCH_DIR"/bench.db*
