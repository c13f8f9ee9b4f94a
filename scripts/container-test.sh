#!/usr/bin/env bash
# container-test.sh - build the real Dockerfile with podman (no Docker engine needed) and check the image
# against the test services that scripts/test.sh started (Ceph RGW, PostgreSQL 15):
#   /healthz; a client-P URL issued inside the container, uploaded to RGW and confirmed with POST /images
#   (signing, the S3 calls and SQLite in the image); the record still there after the container is
#   stopped and a new one started on the same volume; the process runs as the non-root user;
#   `podman healthcheck run` is healthy; SIGTERM ends it with exit 0 within the drain timeout; the image
#   has no compiler and no test fixtures; every shared library the binary needs is present, and libpq5
#   (loaded with dlopen) really serves a PostgreSQL store. Fails with a clear message on any miss and
#   removes what it started, by id.
#
# Base images are made locally, since no registry is reachable: debian:bookworm-slim with mmdebstrap
# from apt's own sources, and swift:6.3-bookworm from the installed toolchain, under the names the
# Dockerfile's FROM lines use. They and podman's layer cache live in
# CONTAINER_CACHE (default /var/cache/presignd-containers) and are reused by later runs on the machine.
#
# Needs (exported by scripts/test.sh): PRESIGN_TEST_S3_ENDPOINT, PRESIGN_TEST_S3_ACCESS_KEY,
# PRESIGN_TEST_S3_SECRET_KEY, PRESIGN_TEST_S3_BUCKET, PRESIGN_TEST_S3_REGION, PRESIGN_TEST_POSTGRES_URL.
# The containers share the host's network namespace and listen on 127.0.0.1 only (PRESIGN_SERVER_HOST
# overrides the image's 0.0.0.0 for the test), so every request stays on loopback.
#   CONTAINER_CACHE       where images, layers and podman's settings live
#   CONTAINER_KEEP_IMAGE=1  leave presignd:test in the store (it is kept anyway; the tag is reused)
#   CONTAINER_IMAGE       the tag to build and test (default localhost/presignd:test; give another when
#                         several worktrees share CONTAINER_CACHE)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
log() { printf '[container] %s\n' "$*" >&2; }
fail() { printf '[container] FAILED: %s\n' "$*" >&2; exit 1; }

for v in PRESIGN_TEST_S3_ENDPOINT PRESIGN_TEST_S3_ACCESS_KEY PRESIGN_TEST_S3_SECRET_KEY PRESIGN_TEST_S3_BUCKET \
  PRESIGN_TEST_S3_REGION PRESIGN_TEST_POSTGRES_URL; do
  [ -n "${!v:-}" ] || fail "$v is not set: run this from scripts/test.sh, which starts RGW and PostgreSQL"
done

# --- what podman needs on this kind of machine -----------------------------------------------------
pkgs=(podman buildah runc netavark aardvark-dns iptables mmdebstrap uidmap fuse-overlayfs slirp4netns curl)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${missing[@]}" >&2
fi

python3 -c 'import yaml' 2>/dev/null || python3 -m pip install -q pyyaml >&2 2>/dev/null \
  || python3 -m pip install -q --break-system-packages pyyaml >&2

CACHE=${CONTAINER_CACHE:-/var/cache/presignd-containers}
mkdir -p "$CACHE/storage" "$CACHE/run" "$CACHE/tmp"
# Three settings this kernel and this machine need: the default ulimits ask for more than the machine
# allows, crun 1.8 refuses the hybrid cgroup layout (runc works), and there is neither journald nor systemd
# (netavark is named so podman does not fall back to the CNI files Debian's package leaves behind).
cat >"$CACHE/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
events_logger = "file"
cgroup_manager = "cgroupfs"
[network]
network_backend = "netavark"
CONF
cat >"$CACHE/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$CACHE/storage"
runroot = "$CACHE/run"
CONF
export CONTAINERS_CONF=$CACHE/containers.conf
export CONTAINERS_STORAGE_CONF=$CACHE/storage.conf
export TMPDIR=$CACHE/tmp

WORK=$(mktemp -d /tmp/presignd-container-XXXXXX)
started=()
volumes=()
cleanup() {
  local rc=$?
  if [ $rc != 0 ] && [ -s "$WORK/podman.log" ]; then tail -5 "$WORK/podman.log" >&2; fi
  for id in "${started[@]}"; do podman rm -f -t 2 "$id" >/dev/null 2>&1 || true; done
  for v in "${volumes[@]}"; do podman volume rm -f "$v" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT

# --- base images ----------------------------------------------------------------------------------
SLIM=docker.io/library/debian:bookworm-slim
SWIFT_IMAGE=docker.io/library/swift:6.3-bookworm
BASE_RECIPE=v2 # raise when the recipe below changes, so cached base images are made again
if [ "$(podman image inspect --format '{{index .Labels "presignd.base"}}' "$SLIM" 2>/dev/null || true)" != "$BASE_RECIPE" ]; then
  log "making $SLIM with mmdebstrap (once per machine)"
  sources=/etc/apt/sources.list.d/debian.sources
  [ -f "$sources" ] || sources=/etc/apt/sources.list
  # Like the official slim image: no manuals, documentation, locales or info pages, no package lists or
  # cached archives, and apt told to delete downloaded archives after installing.
  mmdebstrap --variant=minbase --format=tar --quiet \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/apt "$1"/var/log/dpkg.log' \
    --customize-hook='printf "%s\n" "DPkg::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true\"; };" "Dir::Cache::pkgcache \"\"; Dir::Cache::srcpkgcache \"\";" >"$1"/etc/apt/apt.conf.d/docker-clean' \
    bookworm "$CACHE/base.tar" "$sources" >&2
  podman import --change 'CMD ["bash"]' --change "LABEL presignd.base=$BASE_RECIPE" "$CACHE/base.tar" "$SLIM" >/dev/null
  rm -f "$CACHE/base.tar"
fi
TC=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
toolchain=$(swift --version 2>/dev/null | head -1)
have=$(podman image inspect --format '{{index .Labels "presignd.toolchain"}}' "$SWIFT_IMAGE" 2>/dev/null || true)
if [ "$have" != "$toolchain" ]; then
  log "making $SWIFT_IMAGE from the installed toolchain at $TC (once per machine and toolchain)"
  mkdir -p "$WORK/swift-image"
  cat >"$WORK/swift-image/Containerfile" <<'CF'
FROM debian:bookworm-slim
ARG TOOLCHAIN
LABEL presignd.toolchain=$TOOLCHAIN
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      binutils gcc libc6-dev libgcc-12-dev libstdc++-12-dev libcurl4 libxml2 libedit2 libncurses6 libicu72 \
      zlib1g-dev pkg-config git ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/*
RUN cp -a /swift-src/usr/. /usr/
CF
  podman build --pull=never --network host --format docker -v "$TC":/swift-src:ro \
    --build-arg TOOLCHAIN="$toolchain" -t "$SWIFT_IMAGE" "$WORK/swift-image" >&2
fi

# --- the real Dockerfile --------------------------------------------------------------------------
IMAGE=${CONTAINER_IMAGE:-localhost/presignd:test}
log "podman build --format docker -t $IMAGE ."
t0=$(date +%s)
podman build --pull=never --network host --format docker -t "$IMAGE" "$ROOT" >"$WORK/build.log" 2>&1 \
  || { tail -40 "$WORK/build.log" >&2; fail "podman build of the Dockerfile failed"; }
log "built in $(($(date +%s) - t0)) s"
# Each source change leaves the previous build stage behind as a dangling image (~1 GB); drop those of
# builds more than a day old, so the cache stays bounded but the last build's layers are reused.
podman image prune -f --filter until=24h >/dev/null 2>&1 || true
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
log "image size: $((size / 1000000)) MB"
hc=$(podman image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE")
case "$hc" in *healthcheck*) ;; *) fail "the image has no HEALTHCHECK ($hc): build with --format docker" ;; esac
[ "$(podman image inspect --format '{{.Config.StopSignal}}' "$IMAGE")" = SIGTERM ] || fail "STOPSIGNAL is not SIGTERM"
podman image inspect --format '{{json .Config.ExposedPorts}}' "$IMAGE" | grep -q '8080/tcp' || fail "8080 is not exposed"

# The final image: no toolchain, no build tree or fixtures, every library the binary needs.
podman run --rm --network none --entrypoint /bin/sh "$IMAGE" -c '
  for c in swift swiftc gcc cc clang ld as; do if command -v "$c" >/dev/null; then echo "compiler found: $c"; exit 1; fi; done
  for d in /src /usr/lib/swift /out; do if [ -e "$d" ]; then echo "build tree found: $d"; exit 1; fi; done
  if ldd /usr/local/bin/presignd | grep -q "not found"; then ldd /usr/local/bin/presignd; exit 1; fi
  if ! ls /usr/lib/*/libpq.so.5 >/dev/null 2>&1; then echo "libpq.so.5 missing"; exit 1; fi
  if find / -xdev \( -name "*.swift" -o -name Fixtures \) 2>/dev/null | grep -q .; then echo "sources or fixtures found"; exit 1; fi
' >&2 || fail "the final image holds a compiler, the build tree or fixtures, or lacks a library (above)"

# The image's own configuration: 0.0.0.0:8080 and SQLite in the volume.
podman run --rm --network none -e PRESIGN_S3_ACCESS_KEY_ID=x -e PRESIGN_S3_SECRET_ACCESS_KEY=y "$IMAGE" --check-config \
  >"$WORK/config.json" || fail "--check-config failed inside the image"
python3 - "$WORK/config.json" <<'PY' || fail "the image's configuration is not 0.0.0.0:8080 with SQLite in /data"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["server"]["host"] == "0.0.0.0" and c["server"]["port"] == 8080, c["server"]
assert c["records"]["url"] == "sqlite:/data/presignd.sqlite3", c["records"]["url"]
PY

# examples/compose.yaml: its presignd environment must be a configuration the image accepts (the
# stack itself needs Docker Hub images and is not run here). Secrets are stand-in files of the same names.
python3 - "$ROOT/examples/compose.yaml" "$WORK" <<'PY' || fail "examples/compose.yaml is not readable as the test expects"
import os, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
svc = doc["services"]["presignd"]
work = sys.argv[2]
os.makedirs(work + "/compose-secrets", exist_ok=True)
stand_in = {"records-url": "sqlite:/data/compose-check.sqlite3", "hs256": "x" * 48, "s3-secret": "s3-secret-stand-in"}
for name in svc["secrets"]:
    with open(f"{work}/compose-secrets/{name}", "w") as f:
        f.write(stand_in.get(name, "stand-in"))
    os.chmod(f"{work}/compose-secrets/{name}", 0o444)
with open(work + "/compose.env", "w") as f:
    for k, v in svc["environment"].items():
        f.write(f"{k}={v}\n")
PY
podman run --rm --network none --env-file "$WORK/compose.env" -v "$WORK/compose-secrets":/run/secrets:ro "$IMAGE" \
  --check-config >/dev/null 2>"$WORK/compose-check.err" \
  || { cat "$WORK/compose-check.err" >&2; fail "examples/compose.yaml's presignd environment is refused by the image"; }

# The recipe in examples/compose.yaml's comments, run as written (under umask 077, as a careful user's
# shell may be): it must make the secret files, and the image's uid 999 must be able to read them.
git -C "$ROOT" check-ignore -q examples/secrets/s3-secret || fail "examples/secrets/ is not git-ignored"
mkdir -p "$WORK/recipe/examples"
sed -n '/^#   cd examples && mkdir -p secrets$/,/^#   chmod /p' "$ROOT/examples/compose.yaml" | sed 's/^#   //' \
  >"$WORK/recipe/recipe.sh"
grep -q 'chmod' "$WORK/recipe/recipe.sh" || fail "examples/compose.yaml has no secrets recipe from 'cd examples' to 'chmod'"
(cd "$WORK/recipe" && umask 077 && sh -e recipe.sh) || fail "the secrets recipe of examples/compose.yaml failed"
# Compose mounts each secret file on its own at /run/secrets/<name>, with the host file's owner and mode.
secret_mounts=()
for name in s3-secret records-url hs256; do
  secret_mounts+=(-v "$WORK/recipe/examples/secrets/$name:/run/secrets/$name:ro")
done
podman run --rm --network none --env-file "$WORK/compose.env" "${secret_mounts[@]}" \
  "$IMAGE" --check-config >/dev/null 2>"$WORK/recipe-check.err" \
  || { cat "$WORK/recipe-check.err" >&2; fail "the image (uid 999) cannot use the secrets the compose recipe makes"; }
# Its token command: a development token signed with the service's own HS256 secret.
token=$(podman run --rm --network none --env-file "$WORK/compose.env" "${secret_mounts[@]}" \
  "$IMAGE" token --user 42 --ttl 1h 2>"$WORK/token.err") || { cat "$WORK/token.err" >&2; fail "presignd token failed in the image"; }
[ "$(printf '%s' "$token" | tr -cd . | wc -c)" = 2 ] || fail "presignd token printed no JWT: $token"
log "compose recipe: secrets made under umask 077 are readable by uid 999; presignd token works"

# --- run it against the test RGW ------------------------------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
VOL=presignd-ct-$$-$RANDOM
podman volume create "$VOL" >/dev/null
volumes+=("$VOL")
# The secret reaches the container as a file (*_FILE), as compose or Kubernetes secrets would.
printf '%s' "$PRESIGN_TEST_S3_SECRET_KEY" >"$WORK/s3-secret"
chmod 0444 "$WORK/s3-secret"
# No systemd here, so podman cannot run health timers (--health-interval=disable keeps the check
# defined; `podman healthcheck run` runs it by hand). podman's own complaints go to podman.log.
run_args=(
  -d --health-interval=disable --network host -v "$VOL":/data -v "$WORK/s3-secret":/run/secrets/s3-secret:ro -e PRESIGN_SERVER_HOST=127.0.0.1
  -e PRESIGN_S3_ENDPOINT="$PRESIGN_TEST_S3_ENDPOINT" -e PRESIGN_S3_REGION="$PRESIGN_TEST_S3_REGION"
  -e PRESIGN_S3_BUCKET="$PRESIGN_TEST_S3_BUCKET" -e PRESIGN_S3_ACCESS_KEY_ID="$PRESIGN_TEST_S3_ACCESS_KEY"
  -e PRESIGN_S3_SECRET_ACCESS_KEY_FILE=/run/secrets/s3-secret -e PRESIGN_LIMITS_ENABLED=false
  # Static keys end the credential chain at its first link; these keep it off the metadata
  # addresses (169.254.169.254, 169.254.170.2) even if the keys were missing (--network host).
  -e AWS_EC2_METADATA_DISABLED=true -e PRESIGN_S3_CREDENTIAL_SOURCES=environment
)
wait_healthz() {
  local id=$1 url=$2
  for _ in $(seq 1 100); do
    curl -fsS -o /dev/null "$url/healthz" 2>/dev/null && return 0
    [ "$(podman inspect --format '{{.State.Running}}' "$id")" = true ] || { podman logs "$id" >&2; fail "the container exited"; }
    sleep 0.1
  done
  podman logs "$id" >&2
  fail "/healthz did not answer within 10 s"
}

log "starting the image (SQLite on volume $VOL, listening on 127.0.0.1:$PORT)"
# --cpus=1 sets a cgroup CPU quota: the server must size its event loops by it, not by the host's cores.
C1=$(podman run "${run_args[@]}" --cpus=1 -e PRESIGN_SERVER_PORT="$PORT" "$IMAGE" 2>>"$WORK/podman.log")
started+=("$C1")
wait_healthz "$C1" "$BASE"
podman logs "$C1" 2>&1 | python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin if l.startswith("{")]
loops = [l for l in lines if l.get("msg") == "event loops"]
assert loops and loops[0]["count"] == 1 and loops[0]["source"].startswith("cgroup v"), loops
' || fail "--cpus=1: the event loops are not sized by the cgroup quota (log above)"
[ "$(curl -fsS "$BASE/healthz")" = '{"status":"ok"}' ] || fail "/healthz answered $(curl -sS "$BASE/healthz")"
uid=$(podman exec "$C1" sh -c 'awk "/^Uid:/ {print \$2}" /proc/1/status')
[ "$uid" = 999 ] || fail "the server runs as uid $uid, not the image's non-root user 999"
[ "$(podman exec "$C1" id -un)" = presignd ] || fail "the container's user is not presignd"
podman healthcheck run "$C1" >&2 2>>"$WORK/podman.log" || fail "podman healthcheck run: not healthy"
[ "$(podman inspect --format '{{.State.Health.Status}}' "$C1")" = healthy ] || fail "the health status is not healthy"
# The same check against a port nothing listens on must say "unhealthy" (exit 1), or it proves nothing
# (--port on the check's own command line probes that port, not the one the server wrote down).
if podman exec "$C1" presignd healthcheck --port 1 >/dev/null 2>&1; then
  fail "presignd healthcheck passed against a port where nothing listens"
fi
curl -fsS "$BASE/readyz" >"$WORK/ready.json" || fail "/readyz: $(cat "$WORK/ready.json")"

# Client P: issue, rebuild the URL as the app does (six parameters in its order), PUT as image/jpeg,
# confirm with POST /images, read the record back.
python3 - "$BASE" "$WORK/record.json" <<'PY' || fail "client P's flow through the container"
import json, sys, urllib.request, urllib.error
base, out = sys.argv[1], sys.argv[2]
def call(method, path, body=None, headers={}):
    req = urllib.request.Request(base + path, data=body, method=method, headers={"X-User-Id": "42", **headers})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
status, body = call("GET", "/presigned-url?type=PROFILE&ext=jpg")
assert status == 200, (status, body)
issued = json.loads(body)
url = issued["presignedUrl"]
head, query = url.split("?", 1)
pairs = dict(p.split("=", 1) for p in query.split("&"))
order = ["X-Amz-Algorithm", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Credential", "X-Amz-Expires", "X-Amz-Signature"]
rebuilt = head + "?" + "&".join(k + "=" + pairs[k] for k in order)
# A real JPEG: the content check at confirmation reads its header (docs/content-check.md).
jpeg = open("Tests/ImageProbeTests/Fixtures/jpeg-baseline-64x48.jpg", "rb").read()
put = urllib.request.Request(rebuilt, data=jpeg, method="PUT", headers={"Content-Type": "image/jpeg"})
with urllib.request.urlopen(put, timeout=10) as r:
    assert r.status == 200, r.status
status, body = call("POST", "/images", json.dumps({"imageKey": issued["key"]}).encode(),
                    {"Content-Type": "application/json"})
assert status == 201, (status, body)
record = json.loads(body)
status, body = call("GET", "/images/" + record["id"])
assert status == 200, (status, body)
json.dump(record, open(out, "w"))
print("[container] client P: issued, uploaded to RGW, confirmed: record", record["id"], file=sys.stderr)
PY
RECORD_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK/record.json")

# SIGTERM (the image's STOPSIGNAL) drains and exits 0 well inside the drain timeout (10 s).
t0=$(date +%s%N)
podman stop -t 30 "$C1" >/dev/null 2>>"$WORK/podman.log"
elapsed_ms=$((($(date +%s%N) - t0) / 1000000))
code=$(podman inspect --format '{{.State.ExitCode}}' "$C1")
[ "$code" = 0 ] || { podman logs "$C1" >&2; fail "SIGTERM: exit code $code, not 0"; }
[ "$elapsed_ms" -lt 10000 ] || fail "SIGTERM: the container took $elapsed_ms ms to stop (drain timeout 10 s)"
podman logs "$C1" 2>&1 | grep -q '"msg":"stopped"' || fail "SIGTERM: no \"stopped\" line in the log"
log "SIGTERM: exit 0 after $elapsed_ms ms"

# The record survives: the same container started again, then a new container on the same volume.
podman start "$C1" >/dev/null 2>>"$WORK/podman.log"
wait_healthz "$C1" "$BASE"
curl -fsS -H 'X-User-Id: 42' "$BASE/images/$RECORD_ID" >/dev/null || fail "the record is gone after a restart"
podman stop -t 30 "$C1" >/dev/null 2>>"$WORK/podman.log"
C2=$(podman run "${run_args[@]}" -e PRESIGN_SERVER_PORT="$PORT" "$IMAGE" 2>>"$WORK/podman.log")
started+=("$C2")
wait_healthz "$C2" "$BASE"
curl -fsS -H 'X-User-Id: 42' "$BASE/images/$RECORD_ID" | grep -q "\"$RECORD_ID\"" \
  || fail "the record is gone in a new container on the same volume"
podman stop -t 30 "$C2" >/dev/null 2>>"$WORK/podman.log"
log "record $RECORD_ID kept across a restart and a new container on volume $VOL"

# Flags after the image name are the server's: the HEALTHCHECK must probe the port it really listens on
# (the server writes it to PRESIGN_SERVER_LISTEN_INFO_PATH), not the image's configured 8080.
FLAG_PORT=$(free_port)
C4=$(podman run "${run_args[@]}" "$IMAGE" --port "$FLAG_PORT" 2>>"$WORK/podman.log")
started+=("$C4")
wait_healthz "$C4" "http://127.0.0.1:$FLAG_PORT"
podman healthcheck run "$C4" >&2 2>>"$WORK/podman.log" \
  || { podman exec "$C4" presignd healthcheck >&2 || true; fail "started with --port $FLAG_PORT: the health check says unhealthy"; }
[ "$(podman inspect --format '{{.State.Health.Status}}' "$C4")" = healthy ] || fail "--port $FLAG_PORT: health status not healthy"
podman stop -t 30 "$C4" >/dev/null 2>>"$WORK/podman.log"
log "started with --port $FLAG_PORT after the image name: healthy"

# PostgreSQL from the image: libpq5 is loaded with dlopen, which ldd cannot show; prove it loads.
PG_PORT_C=$(free_port)
C3=$(podman run "${run_args[@]}" -e PRESIGN_SERVER_PORT="$PG_PORT_C" -e PRESIGN_RECORDS_URL="$PRESIGN_TEST_POSTGRES_URL" "$IMAGE" 2>>"$WORK/podman.log")
started+=("$C3")
wait_healthz "$C3" "http://127.0.0.1:$PG_PORT_C"
curl -fsS "http://127.0.0.1:$PG_PORT_C/readyz" | grep -q '"database":"ok"' \
  || { podman logs "$C3" >&2; fail "/readyz with PostgreSQL: $(curl -sS "http://127.0.0.1:$PG_PORT_C/readyz")"; }
podman stop -t 30 "$C3" >/dev/null 2>>"$WORK/podman.log"
log "PostgreSQL store through the image's libpq5: ready"

log "ok: image $IMAGE ($((size / 1000000)) MB) passed every check"
