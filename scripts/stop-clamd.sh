#!/usr/bin/env bash
# stop-clamd.sh - stop the clamd of scripts/start-clamd.sh (same CLAMD_PORT / CLAMD_STATE_DIR): the
# process in its pid file only, TERM then KILL after 10 s. Keeps the state directory (its log).
set -euo pipefail
CLAMD_PORT=${CLAMD_PORT:-3310}
D=${CLAMD_STATE_DIR:-/tmp/clamd-$CLAMD_PORT}
PID_FILE=$D/clamd.pid
[ -f "$PID_FILE" ] || { echo "[stop-clamd] not running (no $PID_FILE)" >&2; exit 0; }
pid=$(cat "$PID_FILE")
if kill -0 "$pid" 2>/dev/null; then
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
fi
rm -f "$PID_FILE"
echo "[stop-clamd] stopped (pid $pid)" >&2
