#!/usr/bin/env bash
# api-fuzz.sh - schemathesis (PyPI) against docs/openapi.yaml and a local presignd: every operation with
# generated, boundary and invalid inputs; the check is that nothing the client sends gets a 5xx.
# Storage is pointed at a dead port, so only answers that do not need it are fuzzed (/readyz, which
# reports storage down as 503 by design, is left out). The coverage phase is off by default: it probes
# methods the API does not have (QUERY), which the server answers 501 by design (PHASES=... to change).
# Bounded: --max-examples per operation (default 100). Loopback only; stops the server it started.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import schemathesis' 2>/dev/null || python3 -m pip install -q schemathesis >&2
swift build -c release --product presignd 2>&1 | tail -1 >&2
PORT=${PORT:-18700}
DIR=$(mktemp -d /tmp/presignd-apifuzz-XXXXXX)
env PRESIGN_LIMITS_ENABLED=false PRESIGN_SERVER_PORT="$PORT" PRESIGN_S3_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE \
  PRESIGN_S3_SECRET_ACCESS_KEY=fuzz PRESIGN_S3_ENDPOINT=http://127.0.0.1:9 PRESIGN_S3_REQUEST_TIMEOUT_MS=200 \
  PRESIGN_S3_MAX_RETRIES=0 PRESIGN_RECORDS_URL="sqlite:$DIR/p.sqlite3" .build/release/presignd 2>"$DIR/log" &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
sleep 0.5
cd "$DIR"
schemathesis run "$OLDPWD/docs/openapi.yaml" --url "http://127.0.0.1:$PORT" --checks not_a_server_error \
  --max-examples "${MAX_EXAMPLES:-100}" --exclude-path /readyz \
  --phases "${PHASES:-examples,fuzzing,stateful}" --no-color
