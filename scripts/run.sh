#!/usr/bin/env bash
# run.sh - build and run presignd on the embedded default configuration: SQLite in data/, listening
# on 127.0.0.1:8080, signing for a local Ceph RGW on 127.0.0.1:9000 (started here, with its test
# credentials, unless PRESIGN_S3_SECRET_ACCESS_KEY is already set). Extra arguments go to presignd.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -z "${PRESIGN_S3_SECRET_ACCESS_KEY:-}${PRESIGN_S3_SECRET_ACCESS_KEY_FILE:-}" ]; then
  s3_env=$(S3_PORT=9000 bash scripts/start-s3.sh) || { echo "[run] ERROR: the local RGW did not start (see above)" >&2; exit 1; }
  eval "$s3_env"
  export PRESIGN_S3_ACCESS_KEY_ID=$S3_ACCESS_KEY PRESIGN_S3_SECRET_ACCESS_KEY=$S3_SECRET_KEY
  echo "[run] local RGW on $S3_ENDPOINT (stop it with: bash scripts/stop-s3.sh)" >&2
fi
swift build -c release --product presignd 2>&1 | tail -1 >&2
exec .build/release/presignd "$@"
