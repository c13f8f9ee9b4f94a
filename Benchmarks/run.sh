#!/usr/bin/env bash
# Benchmarks/run.sh - build presignd in release mode and run the side-by-side benchmark against nginx
# (Benchmarks/bench.py), the issue route's ratio in alternating rounds (Benchmarks/presign_ratio.py),
# then the signer microbenchmark. Bounded in time; loopback only.
#   BENCH_SECONDS=10 per wrk run; BENCH_IDLE=0 skips the 10,000-idle-connections check;
#   BENCH_ROUNDS=3 rounds of the issue-route ratio (0 skips them);
#   BENCH_UPPY=0 skips the Uppy figures (run only when S3_ENDPOINT is set);
#   BENCH_PINNED=0 skips the one-CPU run with the default event-loop count (Benchmarks/pinned_default.py).
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP_BENCH=1 bash scripts/setup.sh
swift build -c release --product presignd 2>&1 | tail -1 >&2
swift build -c release --product PresignBench 2>&1 | tail -1 >&2
python3 Benchmarks/bench.py
if [ "${BENCH_ROUNDS:-3}" != 0 ]; then BENCH_ROUNDS=${BENCH_ROUNDS:-3} python3 Benchmarks/presign_ratio.py; fi
if [ "${BENCH_PINNED:-1}" != 0 ]; then python3 Benchmarks/pinned_default.py; fi
# The Uppy figures need an RGW (eval "$(bash scripts/start-s3.sh)"): the part-URL route's ratio and a
# 256 MiB multipart upload against `aws s3 cp`; the native /uploads API's creation of a 1 GiB upload
# (every part URL signed) and its auto-completion's look per open upload.
if [ -n "${S3_ENDPOINT:-}" ] && [ "${BENCH_UPPY:-1}" != 0 ]; then
  BENCH_ROUTE=part BENCH_ROUNDS=${BENCH_ROUNDS:-3} python3 Benchmarks/presign_ratio.py
  python3 Benchmarks/multipart_upload.py
  python3 Benchmarks/native_uploads.py
fi
taskset -c "${BENCH_SERVER_CPU:-0}" .build/release/PresignBench
