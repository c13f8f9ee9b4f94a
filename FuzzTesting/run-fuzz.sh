#!/usr/bin/env bash
# Build and run the libFuzzer harness of the HTTP1 module for a bounded time; the final libFuzzer
# stats line ("#N DONE ... exec/s") is saved in LAST_RUN.txt.
#   FUZZ_SECONDS=60 FUZZ_SEED=1 bash FuzzTesting/run-fuzz.sh
# Reproduce a finding: SWIFT_BACKTRACE=enable=no FuzzTesting/.build/debug/FuzzHTTP1 FuzzTesting/artifacts/crash-...
set -euo pipefail
SECS=${FUZZ_SECONDS:-60}
SEED=${FUZZ_SEED:-1}
cd "$(dirname "$0")"
# (ld.gold prints hundreds of harmless "Cannot export local symbol '__asan_...'" warnings)
if ! swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library > build.log 2>&1; then
  grep -v "Cannot export local symbol" build.log; exit 1
fi
mkdir -p corpus artifacts seeds
# seeds: every raw request of the llhttp corpus plus a few valid requests
CORPUS_JSON=${CORPUS_JSON:-../Tests/HTTP1Tests/Fixtures/llhttp-requests.json}
if [ -f "$CORPUS_JSON" ]; then
  python3 - "$CORPUS_JSON" seeds <<'PY'
import base64, json, sys, os
d = json.load(open(sys.argv[1]))
for i, c in enumerate(d["cases"]):
    open(os.path.join(sys.argv[2], f"llhttp-{i:03d}"), "wb").write(base64.b64decode(c["raw_b64"]))
PY
fi
printf 'GET /health HTTP/1.1\r\nHost: a\r\n\r\n' > seeds/get
printf 'POST /images HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}' > seeds/post
printf 'PUT /u?x=1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;e="q"\r\nabc\r\n0\r\nT: v\r\n\r\n' > seeds/chunked
# SWIFT_BACKTRACE=enable=no: Swift's own crash handler otherwise races libFuzzer/ASan and
# produces a bogus ASan report from CrashHandlerLinux.
LOG=.build/fuzz.log
set +e
SWIFT_BACKTRACE=enable=no .build/debug/FuzzHTTP1 \
  -max_total_time="$SECS" -seed="$SEED" -max_len=8192 -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix=artifacts/ corpus seeds 2>&1 | tee "$LOG"
STATUS=${PIPESTATUS[0]}
set -e
if grep -q "DONE" "$LOG"; then
  { grep "DONE" "$LOG" | tail -1; echo "seconds=$SECS seed=$SEED exit=$STATUS $(date -u +%Y-%m-%dT%H:%M:%SZ)"; } > LAST_RUN.txt
fi
exit "$STATUS"
