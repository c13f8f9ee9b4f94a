#!/usr/bin/env bash
# thread_cpu.sh - CPU microseconds per request of each presignd thread under wrk -c64 on the issue route.
# Usage: bash Benchmarks/thread_cpu.sh [BINARY] [PORT]   (EXTRA="PRESIGN_...=... ..." for more settings;
# ROUTE=post: client B's POST /presigned-url with a fresh random imageKey per request instead)
# presignd pinned to CPU 0, wrk to CPU 1, 5 s, loopback only; stops the server it started.
set -euo pipefail
BIN=${1:-.build/release/presignd}
PORT=${2:-18500}
DIR=$(mktemp -d /tmp/presignd-threadcpu-XXXXXX)
# shellcheck disable=SC2086
env ${EXTRA:-} PRESIGN_LIMITS_ENABLED=false PRESIGN_SERVER_PORT="$PORT" PRESIGN_SERVER_EVENT_LOOPS=1 \
  PRESIGN_S3_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE PRESIGN_S3_SECRET_ACCESS_KEY=bench \
  PRESIGN_RECORDS_URL="sqlite:$DIR/p.sqlite3" taskset -c 0 "$BIN" 2>"$DIR/log" &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
sleep 0.5
snap() { for t in /proc/$PID/task/*; do echo "$(tr ' ' _ <"$t/comm") $(awk '{print $14+$15}' "$t/stat")"; done | sort; }
snap >"$DIR/before"
if [ "${ROUTE:-get}" = post ]; then
  SCRIPT=$(cd Benchmarks && python3 -c "import benchlib; print(benchlib.write_post_script('$DIR'))")
  taskset -c 1 wrk -t1 -c64 -d5s -s "$SCRIPT" "http://127.0.0.1:$PORT/presigned-url" >"$DIR/wrk.txt"
else
  taskset -c 1 wrk -t1 -c64 -d5s "http://127.0.0.1:$PORT/presigned-url?type=PROFILE&ext=jpg" >"$DIR/wrk.txt"
fi
snap >"$DIR/after"
REQ=$(grep -oE "[0-9]+ requests in" "$DIR/wrk.txt" | cut -d' ' -f1)
echo "requests $REQ; $(grep Requests/sec "$DIR/wrk.txt")"
TICK=$(getconf CLK_TCK)
join "$DIR/before" "$DIR/after" | awk -v r="$REQ" -v t="$TICK" '{d=$3-$2; if (d>0) printf "%-24s %6.2f us/request\n", $1, d*1e6/t/r}'
