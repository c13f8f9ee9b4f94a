#!/usr/bin/env bash
# slow_clients.sh - reliability.md's slow-client target: while 500 slow-header clients (slowhttptest,
# slowloris mode, one byte every 10 s) are held for 30 s, fresh clients are still served (success rate and
# p99 from wrk), every slow client is closed within the header deadline + 5 s, and open descriptors
# return to the baseline within 5 s after. Loopback only; bounded to ~60 s; stops what it started.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BENCH_BINARY:-.build/release/presignd}
PORT=${PORT:-18600}
DIR=$(mktemp -d /tmp/presignd-slow-XXXXXX)
env PRESIGN_LIMITS_ENABLED=false PRESIGN_LOG_ACCESS_LOG=false PRESIGN_SERVER_PORT="$PORT" \
  PRESIGN_S3_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE PRESIGN_S3_SECRET_ACCESS_KEY=bench \
  PRESIGN_RECORDS_URL="sqlite:$DIR/p.sqlite3" "$BIN" 2>"$DIR/log" &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
sleep 0.5
fds() { ls /proc/$PID/fd | wc -l; }
BASE=$(fds)
echo "descriptors at start: $BASE"
slowhttptest -H -c 500 -r 500 -i 10 -l 30 -s 8192 -t GET -u "http://127.0.0.1:$PORT/healthz" -p 3 \
  -g -o "$DIR/slow" >"$DIR/slowhttptest.log" 2>&1 &
SLOW=$!
sleep 5
echo "descriptors with slow clients: $(fds)"
wrk -t1 -c16 -d20s --latency "http://127.0.0.1:$PORT/healthz" >"$DIR/wrk.txt"
grep -E "requests in|Non-2xx|Socket errors|99%" "$DIR/wrk.txt" || true
wait $SLOW || true
echo "slowhttptest per second (seconds,closed,pending,connected,service):"; cut -d, -f1-5 "$DIR/slow.csv" 2>/dev/null | sed -n "9,16p" || true
grep -E "closed|pending|connected|service available" "$DIR/slowhttptest.log" | tail -n 4 || true
for i in $(seq 1 10); do
  sleep 0.5
  N=$(fds)
  if [ "$N" -le "$BASE" ]; then echo "descriptors back to $N (baseline $BASE) after $((i * 500)) ms"; break; fi
done
echo "descriptors at end: $(fds) (baseline $BASE)"
