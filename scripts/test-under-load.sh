#!/usr/bin/env bash
# test-under-load.sh - the whole test command (.ci/run), several times in a row, in a clean clone of
# this repository's HEAD, while a CPU hog keeps every core busy. It proves the suite does not pass or
# fail by timing alone (issue 15): a test that needs an idle machine fails here.
#
#   bash scripts/test-under-load.sh            five runs, one busy loop per core
#   RUNS=2 HOGS=1 bash scripts/test-under-load.sh
#
# Environment: RUNS (5), HOGS (one per core, `nproc`), TEST_S3_PORT (19300) and TEST_PG_PORT (25460)
# for the runs' own RGW and PostgreSQL (so they do not meet a developer's services on the defaults),
# RUN_TIMEOUT (seconds per run, 2700), KEEP=1 keeps the clone and logs, REUSE=DIR checks HEAD out in
# the clone a kept earlier run left in DIR (its build tree saves the first build; still no local changes).
# Stops at the first failing run. The hogs are this script's children, ended by PID on every exit, and
# each is also bounded by `timeout`. Exit code: 0 all runs passed, 1 a run failed, 2 set-up failed.
# Prints one line per run (status and minutes) and the log directory.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
HOGS=${HOGS:-$(nproc)}
RUN_TIMEOUT=${RUN_TIMEOUT:-2700}
export TEST_S3_PORT=${TEST_S3_PORT:-19300}
export TEST_PG_PORT=${TEST_PG_PORT:-25460}

log() { echo "[test-under-load] $*" >&2; }

commit=$(git -C "$ROOT" rev-parse HEAD) || exit 2
if [ -n "${REUSE:-}" ]; then
  WORK=$REUSE
  CLONE="$WORK/clone"
  git -C "$CLONE" fetch -q origin && git -C "$CLONE" checkout -q --force "$commit" && git -C "$CLONE" clean -qfdx -e .build || {
    log "cannot check $commit out in $CLONE"
    exit 2
  }
  rm -f "$WORK"/run-*.log
else
  WORK=$(mktemp -d /tmp/presignd-under-load-XXXXXX)
  CLONE="$WORK/clone"
  git clone -q --no-hardlinks "$ROOT" "$CLONE" && git -C "$CLONE" checkout -q "$commit" || {
    log "cannot clone $ROOT"
    exit 2
  }
fi

hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null; done
  hogs=()
}
finish() {
  stop_hogs
  if [ "${KEEP:-0}" != 1 ] && [ "${failed:-0}" = 0 ]; then rm -rf "$WORK"; else log "kept $WORK"; fi
}
trap finish EXIT
trap 'exit 1' INT TERM

# Each hog is a shell busy loop, bounded so that it cannot outlive a lost trap.
bound=$((RUNS * RUN_TIMEOUT + 600))
for _ in $(seq "$HOGS"); do
  timeout "$bound" sh -c 'while :; do :; done' &
  hogs+=($!)
done
log "commit $commit, $RUNS runs, $HOGS busy loops (pids ${hogs[*]}), logs in $WORK"

failed=0
for run in $(seq "$RUNS"); do
  start=$(date +%s)
  rc=0
  (cd "$CLONE" && CI=true timeout --kill-after=30 "$RUN_TIMEOUT" bash .ci/run) >"$WORK/run-$run.log" 2>&1 || rc=$?
  minutes=$(awk -v s=$(($(date +%s) - start)) 'BEGIN { printf "%.1f", s / 60 }')
  summary=$(grep -aE '^✔ Test run with|^✘ Test run with' "$WORK/run-$run.log" | tail -1)
  if [ "$rc" = 0 ]; then
    echo "run $run/$RUNS: passed in $minutes min ($summary)"
  else
    echo "run $run/$RUNS: FAILED (exit $rc) after $minutes min ($summary); log $WORK/run-$run.log"
    failed=1
    break
  fi
done
exit "$failed"
