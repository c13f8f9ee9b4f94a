#!/usr/bin/env bash
# Build and run a libFuzzer harness for a bounded time: FuzzHTTP1 (the request parser, the default),
# FuzzJSON (the JSON parser that reads request bodies) or FuzzImageProbe (the image-header decoder
# that checks uploaded objects). The final libFuzzer stats line ("#N DONE ... exec/s") is saved in
# LAST_RUN.txt (FuzzHTTP1) or LAST_RUN-<target>.txt.
#   FUZZ_SECONDS=60 FUZZ_SEED=1 [FUZZ_TARGET=FuzzJSON|FuzzImageProbe] bash FuzzTesting/run-fuzz.sh
# Reproduce a finding: SWIFT_BACKTRACE=enable=no FuzzTesting/.build/debug/FuzzHTTP1 FuzzTesting/artifacts/crash-...
set -euo pipefail
SECS=${FUZZ_SECONDS:-60}
EXTRA=""
SEED=${FUZZ_SEED:-1}
TARGET=${FUZZ_TARGET:-FuzzHTTP1}
case "$TARGET" in FuzzHTTP1|FuzzJSON|FuzzImageProbe) ;;
  *) echo "FUZZ_TARGET must be FuzzHTTP1, FuzzJSON or FuzzImageProbe" >&2; exit 2;; esac
cd "$(dirname "$0")"
# (ld.gold prints hundreds of harmless "Cannot export local symbol '__asan_...'" warnings)
if ! swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library > build.log 2>&1; then
  grep -v "Cannot export local symbol" build.log; exit 1
fi
mkdir -p artifacts
if [ "$TARGET" = FuzzHTTP1 ]; then
  CORPUS=corpus SEEDS=seeds LAST=LAST_RUN.txt MAXLEN=8192
  mkdir -p corpus seeds
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
elif [ "$TARGET" = FuzzImageProbe ]; then
  CORPUS=corpus-imageprobe SEEDS=seeds-imageprobe LAST=LAST_RUN-FuzzImageProbe.txt MAXLEN=8192
  EXTRA="-dict=imageprobe.dict"
  mkdir -p corpus-imageprobe seeds-imageprobe
  # seeds: the real encoders' files of the unit tests, and the documents confirmation must refuse
  cp ../Tests/ImageProbeTests/Fixtures/*.jpg ../Tests/ImageProbeTests/Fixtures/*.png ../Tests/ImageProbeTests/Fixtures/*.gif \
    ../Tests/ImageProbeTests/Fixtures/*.webp ../Tests/ImageProbeTests/Fixtures/*.heic \
    ../Tests/ImageProbeTests/Fixtures/*.avif seeds-imageprobe/
  printf '<!DOCTYPE html><html><script>alert(1)</script>' > seeds-imageprobe/html
  printf '<?xml version="1.0"?>\n<!-- c -->\n<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>' > seeds-imageprobe/svg
  printf '%%PDF-1.7\n1 0 obj' > seeds-imageprobe/pdf
  printf 'PK\003\004\024\000\000\000' > seeds-imageprobe/zip
else
  CORPUS=corpus-json SEEDS=seeds-json LAST=LAST_RUN-FuzzJSON.txt MAXLEN=4096
  mkdir -p corpus-json seeds-json
  # seeds: the two clients' bodies and the shapes the unit tests use
  printf '{"contentType":"image/jpeg","imageKey":"0B7E6A57-2C1B-4C2E-9D6F-1F2E3D4C5B6A"}' > seeds-json/client-b
  printf '{"contentType":"image/png","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","size":5,"contentMD5":"Jl+55GiW2vkDAayLd69RIw=="}' > seeds-json/digest
  printf '{"imageKey":"delete/profile/42/x_1.jpg","metadata":{"w":640,"h":480,"tags":["a","\\u00e9\\ud83d\\ude00"],"n":null,"t":true,"f":-1.5e-3}}' > seeds-json/confirm
  printf '[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]' > seeds-json/deep
  printf '"\\u0000\\"\\\\\\/\\b\\f\\n\\r\\t"' > seeds-json/escapes
  printf '{"a":1e999,"b":-0,"c":12345678901234567890123}' > seeds-json/numbers
fi
# SWIFT_BACKTRACE=enable=no: Swift's own crash handler otherwise races libFuzzer/ASan and
# produces a bogus ASan report from CrashHandlerLinux.
LOG=.build/fuzz-$TARGET.log
set +e
SWIFT_BACKTRACE=enable=no ".build/debug/$TARGET" \
  -max_total_time="$SECS" -seed="$SEED" -max_len="$MAXLEN" -timeout=5 -rss_limit_mb=2048 \
  -artifact_prefix=artifacts/ $EXTRA "$CORPUS" "$SEEDS" 2>&1 | tee "$LOG"
STATUS=${PIPESTATUS[0]}
set -e
if grep -q "DONE" "$LOG"; then
  { grep "DONE" "$LOG" | tail -1; echo "target=$TARGET seconds=$SECS seed=$SEED exit=$STATUS $(date -u +%Y-%m-%dT%H:%M:%SZ)"; } > "$LAST"
fi
exit "$STATUS"
