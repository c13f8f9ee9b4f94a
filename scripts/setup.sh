#!/usr/bin/env bash
# setup.sh - install what presignd needs on a fresh Debian 12 machine with the Swift 6 toolchain.
#   bash scripts/setup.sh run    building and running the server (scripts/run.sh): the headers of the
#                                C libraries it links (libssl-dev, libsqlite3-dev, libpq-dev) and curl.
#   bash scripts/setup.sh test   (the default) that, plus what only the tests use (scripts/test.sh):
#                                PostgreSQL 15 (the PostgreSQL store's tests), python3-pip with boto3 (an
#                                independent SigV4 implementation), h11 (an independent HTTP parser),
#                                PyYAML (examples/*.yaml read by scripts/check-examples.py and
#                                scripts/container-test.sh; the served API document read as YAML),
#                                standardwebhooks (the Standard Webhooks reference library, which checks
#                                the signatures of the webhooks the tests receive: scripts/webhooks_verify.py),
#                                chromium and chromium-driver (the web page's test in a real browser,
#                                scripts/web-test.py, driven over WebDriver from Python's standard library),
#                                haproxy and pgbouncer (several instances behind a balancer on one
#                                PostgreSQL, and the store through a transaction-mode pooler:
#                                scripts/instances.sh, scripts/start-pgbouncer.sh), and clamav-daemon (the
#                                real clamd the malware scan's tests stream to: scripts/start-clamd.sh).
# Ceph RGW, the local S3 server of both, is installed by scripts/start-s3.sh when first started.
# Idempotent; progress on stderr.
#   SETUP_BENCH=1  also install wrk and nginx-light (benchmarks)
set -euo pipefail
log() { printf '[setup] %s\n' "$*" >&2; }

mode=${1:-test}
case "$mode" in
  run|test) ;;
  *) log "ERROR: unknown mode '$mode' (use: run or test)"; exit 2 ;;
esac

command -v swift >/dev/null 2>&1 || { log "ERROR: the Swift 6 toolchain (swift) is not on PATH"; exit 1; }

pkgs=(libssl-dev libsqlite3-dev libpq-dev curl)
[ "$mode" = test ] && pkgs+=(postgresql-15 python3-pip chromium chromium-driver haproxy pgbouncer clamav-daemon)
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

if [ "$mode" = test ]; then
  py_missing=()
  python3 -c 'import boto3' 2>/dev/null || py_missing+=(boto3)
  python3 -c 'import h11' 2>/dev/null || py_missing+=(h11)
  python3 -c 'import yaml' 2>/dev/null || py_missing+=(pyyaml)
  python3 -c 'import standardwebhooks' 2>/dev/null || py_missing+=(standardwebhooks)
  if [ ${#py_missing[@]} -gt 0 ]; then
    log "installing Python packages ${py_missing[*]}"
    python3 -m pip install -q "${py_missing[@]}" >&2 2>/dev/null \
      || python3 -m pip install -q --break-system-packages "${py_missing[@]}" >&2
  fi
fi
log "ready ($mode)"
