#!/usr/bin/env bash
# test.sh - the whole test suite on a fresh machine: installs what is missing (scripts/setup.sh),
# starts a real S3 server (Ceph RGW, scripts/start-s3.sh) and a real PostgreSQL 15
# (scripts/start-postgres.sh) and the ClamAV daemon with the tests' own signature (scripts/start-clamd.sh)
# on loopback, builds (debug with the tests, and the plain release build of every product, whose
# presignd and presign-upload are the binaries the tests start), runs `swift test` against them, holds
# the server to its OpenAPI document with schemathesis (scripts/api-conformance.sh), drives the web page
# in headless Chromium (scripts/web-test.py), checks scripts/run.sh, then builds the real Dockerfile
# with podman and checks the image against the same services (scripts/container-test.sh), and stops
# what it started.
#   TEST_S3_PORT   RGW port block start (default 19000; uses 14 ports from there, HTTPS on +13)
#   TEST_PG_PORT   PostgreSQL port (default 25432: below Linux's ephemeral range 32768-60999, so no
#                  client connection of another program can be holding it as its local port)
#   TEST_PG_STATE_DIR  the cluster's data (default /dev/shm/presignd-pg-PORT when /dev/shm is a tmpfs,
#                  else /tmp/presignd-pg-PORT); `swift test`'s TMPDIR is a directory beside it,
#                  removed at the end
#   TEST_CLAMD_PORT clamd's TCP port (default 23310, also below the ephemeral range)
#   TEST_S3_MEMSTORE_MB  RGW's RAM-backed capacity in MiB (default 4096)
#   SWIFT_TEST_ARGS  extra arguments for `swift test` (e.g. --filter SigV4Tests)
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[test] %s\n' "$*" >&2; }

# The whole suite runs every backend: a PRESIGN_SKIP_* variable inherited from the caller (meant for a
# quick local `swift test` without services) would silently drop the PostgreSQL or RGW cases here.
skips=$(env | grep -o '^PRESIGN_SKIP_[A-Z0-9_]*' || true)
if [ -n "$skips" ]; then
  log "ERROR: $(echo $skips) set: the whole test command runs every backend; unset them (they are for a bare swift test)"
  exit 2
fi

bash scripts/setup.sh test

export S3_PORT=${TEST_S3_PORT:-19000}
# RAM-backed RGW capacity: the suite leaves objects behind (60 MiB background uploads, 20 MiB checksum
# reads, kill -9 cycles); at 1 GiB a full OSD answered 504 to the last tests.
export S3_MEMSTORE_MB=${TEST_S3_MEMSTORE_MB:-4096}
export S3_STATE_DIR=${TEST_S3_STATE_DIR:-/tmp/presignd-test-s3-$S3_PORT}
export PG_PORT=${TEST_PG_PORT:-25432}
# Scratch space on a RAM-backed file system when /dev/shm is one (else /tmp): the PostgreSQL cluster's
# data, and the temporary directories of `swift test` (TMPDIR: SQLite files, logs, keys, and the
# clusters and clamds single tests start). On ext4 the suite's PostgreSQL spent a third of its CPU
# creating relation files (each test schema makes ~80 relations), the kernel searching for a free inode
# among those just deleted. No test depends on the disk: a killed process loses nothing on either, and
# none simulates a machine's crash. The benchmarks keep start-postgres.sh's default, on disk.
scratch=/tmp
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ]; then scratch=/dev/shm; fi
export PG_STATE_DIR=${TEST_PG_STATE_DIR:-$scratch/presignd-pg-$PG_PORT}
test_tmp=$(mktemp -d "$scratch/presignd.XXXXXX")
chmod 755 "$test_tmp"  # the postgres user of the clusters single tests start must reach their state dirs
export CLAMD_PORT=${TEST_CLAMD_PORT:-23310}
# A service already listening on its port (a developer's, kept with KEEP_SERVICES=1) is reused and left
# running: only what this run started is stopped.
listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
reused_s3=0; listening "$S3_PORT" && reused_s3=1
reused_pg=0; listening "$PG_PORT" && reused_pg=1
reused_pgb=0; listening "${PGBOUNCER_PORT:-$((PG_PORT + 1))}" && reused_pgb=1
reused_clamd=0; listening "$CLAMD_PORT" && reused_clamd=1
started_s3=0
started_clamd=0
started_pg=0
started_pgb=0
cleanup() {
  local rc=$?
  if [ "$started_pgb" = 1 ] && [ "${KEEP_SERVICES:-0}" != 1 ]; then bash scripts/stop-pgbouncer.sh || true; fi
  if [ "$started_s3" = 1 ] && [ "${KEEP_SERVICES:-0}" != 1 ]; then bash scripts/stop-s3.sh || true; fi
  if [ "$started_pg" = 1 ] && [ "${KEEP_SERVICES:-0}" != 1 ]; then bash scripts/stop-postgres.sh || true; fi
  if [ "$started_clamd" = 1 ] && [ "${KEEP_SERVICES:-0}" != 1 ]; then bash scripts/stop-clamd.sh || true; fi
  rm -rf "$test_tmp"
  exit $rc
}
trap cleanup EXIT

log "starting Ceph RGW on 127.0.0.1:$S3_PORT"
# The scripts print `export ...` lines; a failure must stop the run here, not surface later as
# hundreds of skipped-service test failures.
s3_env=$(bash scripts/start-s3.sh) || { log "ERROR: Ceph RGW did not start (see above)"; exit 1; }
eval "$s3_env"
[ "$reused_s3" = 1 ] || started_s3=1
export PRESIGN_TEST_S3_ENDPOINT=$S3_ENDPOINT
export PRESIGN_TEST_S3_ACCESS_KEY=$S3_ACCESS_KEY
export PRESIGN_TEST_S3_SECRET_KEY=$S3_SECRET_KEY
export PRESIGN_TEST_S3_BUCKET=$S3_BUCKET
export PRESIGN_TEST_S3_REGION=$S3_REGION
export PRESIGN_TEST_S3_TLS_ENDPOINT=$S3_TLS_ENDPOINT
export PRESIGN_TEST_S3_CA_FILE=$S3_CA_FILE
# The bucket CORS rule browser uploads need (docs/operations.md), for the origin the Uppy tests use.
bash scripts/rgw-cors.sh "https://app.example.test" >&2

log "starting PostgreSQL 15 on 127.0.0.1:$PG_PORT"
pg_env=$(bash scripts/start-postgres.sh) || { log "ERROR: PostgreSQL did not start (see above)"; exit 1; }
eval "$pg_env"
[ "$reused_pg" = 1 ] || started_pg=1
# PgBouncer in transaction mode in front of it, for the store's tests through a pooler (RecordsTests'
# `pgbouncer` store kind; docs/operations.md, "Running several instances").
pgb_env=$(bash scripts/start-pgbouncer.sh) || { log "ERROR: PgBouncer did not start (see above)"; exit 1; }
eval "$pgb_env"
[ "$reused_pgb" = 1 ] || started_pgb=1

# The malware scan's tests (docs/scanning.md) stream uploads to the real clamd, with only our signature.
log "starting clamd on 127.0.0.1:$CLAMD_PORT"
clamd_env=$(bash scripts/start-clamd.sh) || { log "ERROR: clamd did not start (see above)"; exit 1; }
eval "$clamd_env"
[ "$reused_clamd" = 1 ] || started_clamd=1
export PRESIGN_TEST_CLAMD_ADDRESS=$CLAMD_ADDRESS
export PRESIGN_TEST_CLAMD_SOCKET=$CLAMD_SOCKET

log "building"
swift build --build-tests 2>&1 | grep -v "Cannot export local symbol" >&2
# The plain release build of every product, as docs/overview.md's "Against your own storage" and
# scripts/run.sh do it (a test-support target once broke it while the debug build and the container's
# single-product build passed). Made before the tests: the binaries the tests start (presignd,
# presign-upload) are these optimized ones, the build operators run; the in-process tests run the
# debug build. Started unoptimized, the children had taken a fifth of the suite's CPU.
log "release build of every product (swift build -c release)"
swift build -c release 2>&1 | grep -v "Cannot export local symbol" >&2
python3 scripts/check-modules.py --self-test && python3 scripts/check-modules.py  # the module layers of docs/architecture.md
python3 scripts/check-examples.py --self-test  # examples/kubernetes.yaml against the settings and the drain
log "running swift test"
# No test may ever reach the real instance metadata service (169.254.169.254): every server and
# credential provider started by the suite inherits this (tests that need IMDS use a loopback stand-in).
export AWS_EC2_METADATA_DISABLED=true
unset AWS_CONTAINER_CREDENTIALS_RELATIVE_URI AWS_CONTAINER_CREDENTIALS_FULL_URI AWS_WEB_IDENTITY_TOKEN_FILE
# shellcheck disable=SC2086
TMPDIR=$test_tmp PRESIGND_BINARY=$PWD/.build/release/presignd \
  PRESIGN_TEST_UPLOAD_BINARY=$PWD/.build/release/presign-upload swift test --skip-build ${SWIFT_TEST_ARGS:-}
log "API conformance: schemathesis against the server with RGW behind it (scripts/api-conformance.sh)"
bash scripts/api-conformance.sh
log "the web page in headless Chromium (scripts/web-test.py; screenshots in .build/test-artifacts/web)"
python3 scripts/web-test.py
# run.sh itself, which must show the release build's progress (up to date by now: it checks the lines).
run_err=$(mktemp)
PRESIGN_S3_ACCESS_KEY_ID=run-check PRESIGN_S3_SECRET_ACCESS_KEY=run-check bash scripts/run.sh --version 2>"$run_err" \
  | grep -q '^presignd ' || { cat "$run_err" >&2; log "ERROR: scripts/run.sh --version did not print the version"; exit 1; }
grep -q '^\[run\] building presignd' "$run_err" && grep -q 'Building for production' "$run_err" \
  && grep -Eq 'Build (of product .presignd. )?complete' "$run_err" \
  || { cat "$run_err" >&2; log "ERROR: scripts/run.sh did not show the build's progress"; exit 1; }
rm -f "$run_err"
log "building and checking the container image"
bash scripts/container-test.sh
