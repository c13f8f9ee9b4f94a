#!/usr/bin/env bash
# Benchmarks/run.sh - build presignd in release mode and run the side-by-side benchmark against nginx
# (Benchmarks/bench.py), then the signer microbenchmark. Bounded in time; loopback only.
#   BENCH_SECONDS=10 per wrk run; BENCH_IDLE=0 skips the 10,000-idle-connections check.
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP_BENCH=1 bash scripts/setup.sh
swift build -c release --product presignd 2>&1 | tail -1 >&2
swift build -c release --product PresignBench 2>&1 | tail -1 >&2
python3 Benchmarks/bench.py
taskset -c "${BENCH_SERVER_CPU:-0}" .build/release/PresignBench
