#!/usr/bin/env bash
# run.sh - build and run presignd on the embedded default configuration: SQLite in data/, listening
# on 127.0.0.1:8080, signing for a local Ceph RGW on 127.0.0.1:$S3_PORT (default 9000). Installs only
# what running needs (scripts/setup.sh run; RGW itself comes with scripts/start-s3.sh). Extra
# arguments go to presignd: `bash scripts/run.sh --port 8081` listens on another port (or set
# PRESIGN_SERVER_PORT), `--host 0.0.0.0` on every interface.
#   S3_PORT  port of the local RGW (default 9000; it also takes the 13 ports after it, see
#            scripts/start-s3.sh). Stop it with: S3_PORT=<port> bash scripts/stop-s3.sh
# Unless PRESIGN_S3_SECRET_ACCESS_KEY(_FILE) is already set, the local RGW is started and the server
# is pointed at it: PRESIGN_S3_ENDPOINT, _BUCKET, _REGION and the RGW's test credentials are set
# (they override a config file). With your own credentials set, no RGW is started and S3_PORT is unused.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh run
if [ -z "${PRESIGN_S3_SECRET_ACCESS_KEY:-}${PRESIGN_S3_SECRET_ACCESS_KEY_FILE:-}" ]; then
  export S3_PORT=${S3_PORT:-9000}
  s3_env=$(bash scripts/start-s3.sh) || { echo "[run] ERROR: the local RGW did not start (see above)" >&2; exit 1; }
  eval "$s3_env"
  export PRESIGN_S3_ENDPOINT=$S3_ENDPOINT PRESIGN_S3_BUCKET=$S3_BUCKET PRESIGN_S3_REGION=$S3_REGION
  export PRESIGN_S3_ACCESS_KEY_ID=$S3_ACCESS_KEY PRESIGN_S3_SECRET_ACCESS_KEY=$S3_SECRET_KEY
  echo "[run] local RGW on $S3_ENDPOINT (stop it with: S3_PORT=$S3_PORT bash scripts/stop-s3.sh)" >&2
fi
# The build's own progress lines, on stderr: the first build takes minutes (about 4 on 2 cores).
echo "[run] building presignd (release; the first build takes a few minutes, later ones only what changed)" >&2
swift build -c release --product presignd 2>&1 | grep --line-buffered -v "Cannot export local symbol" >&2
exec .build/release/presignd "$@"
