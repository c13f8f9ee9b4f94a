#!/usr/bin/env bash
# setup.sh - install what building, running and testing presignd needs on a fresh Debian 12 machine
# with the Swift 6 toolchain: the C libraries' headers, PostgreSQL 15 (for the tests of the PostgreSQL
# store), and the Python packages the tests use (boto3 as an independent SigV4 implementation, h11).
# Ceph RGW is installed by scripts/start-s3.sh when first started. Idempotent; progress on stderr.
#   SETUP_BENCH=1  also install wrk and nginx-light (benchmarks)
set -euo pipefail
log() { printf '[setup] %s\n' "$*" >&2; }

command -v swift >/dev/null 2>&1 || { log "ERROR: the Swift 6 toolchain (swift) is not on PATH"; exit 1; }

# faketime: a test runs the binary with its wall clock two hours ahead (the /readyz clock check).
pkgs=(libssl-dev libsqlite3-dev libpq-dev postgresql-15 curl python3-pip faketime)
[ "${SETUP_BENCH:-0}" = 1 ] && pkgs+=(wrk nginx-light)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

py_missing=()
python3 -c 'import boto3' 2>/dev/null || py_missing+=(boto3)
python3 -c 'import h11' 2>/dev/null || py_missing+=(h11)
if [ ${#py_missing[@]} -gt 0 ]; then
  log "installing Python packages ${py_missing[*]}"
  python3 -m pip install -q "${py_missing[@]}" >&2 2>/dev/null \
    || python3 -m pip install -q --break-system-packages "${py_missing[@]}" >&2
fi
log "ready"
