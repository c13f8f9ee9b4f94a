#!/usr/bin/env bash
# start-s3.sh - start a real S3 server on loopback for end-to-end tests of
# presigned URLs: Ceph RADOS Gateway (Debian bookworm's radosgw, Ceph 16.2
# Pacific) on a throw-away single-node cluster (1 mon, 1 OSD on memstore,
# no mgr, cephx off inside the cluster).  S3 SigV4 auth is the real thing:
# presigned URLs with a bad signature, wrong secret, unknown key, past their
# X-Amz-Expires or with a different signed Content-Type get 403.
#
# Bucket notifications (issue 22): RGW 16.2's SNS-compatible topic API (POST / with Action=CreateTopic,
# signed with SigV4) and PUT /<bucket>?notification work with this configuration as it is: persistent
# topics keep their queue in RADOS through the OSD's 2pc_queue class, which Debian's ceph-osd loads by
# default, and an http:// push endpoint with no user or password needs no
# rgw_allow_notification_secrets_in_cleartext. The script checks at the end that the topic API answers
# (Tests/ObjectStoreTests/S3ClientNotificationRGWTests.swift pushes real events to a loopback listener).
#
# Idempotent: installs the Debian packages if missing; if our cluster is
# already running it only makes sure the user and bucket exist.
#
# Usage:   eval "$(bash scripts/start-s3.sh)"
# stdout:  export lines only (S3_ENDPOINT S3_TLS_ENDPOINT S3_CA_FILE S3_ACCESS_KEY
#          S3_SECRET_KEY S3_BUCKET S3_REGION S3_PID_FILE S3_STATE_DIR); progress -> stderr.
# Stop:    bash scripts/stop-s3.sh   (same S3_PORT / S3_STATE_DIR)
#
# Environment (all optional):
#   S3_PORT           S3 HTTP port on 127.0.0.1           (default 9000)
#                     The whole server uses the 14 ports S3_PORT .. S3_PORT+13 on
#                     127.0.0.1: radosgw S3_PORT, ceph-mon S3_PORT+1 (v1) and
#                     S3_PORT+2 (v2), ceph-osd within S3_PORT+3 .. S3_PORT+12, and
#                     radosgw over HTTPS on S3_PORT+13 (S3_TLS_ENDPOINT), with a
#                     throw-away CA (scripts/make-test-ca.sh; S3_CA_FILE) for
#                     tests of the server's own calls to storage over TLS.
#   S3_ACCESS_KEY     access key id                       (default S3TESTACCESSKEY00001)
#   S3_SECRET_KEY     secret key                          (default s3testsecretkey000000000000000000000001)
#   S3_BUCKET         bucket to create                    (default uploads)
#   S3_REGION         region to print (RGW accepts any)   (default us-east-1)
#   S3_STATE_DIR      where config, pids, logs live       (default /tmp/s3-rgw-$S3_PORT)
#   S3_MEMSTORE_MB    RAM-backed OSD capacity in MiB      (default 1024)
#   S3_DNS_NAME       rgw_dns_name: RGW also serves virtual-hosted requests for
#                     Host <bucket>.$S3_DNS_NAME[:port] (default localhost; empty: off).
#                     Path-style requests (Host 127.0.0.1:port or localhost:port) are
#                     served as before. Clients must connect to 127.0.0.1 themselves:
#                     <bucket>.localhost is not in /etc/hosts (presignd: s3.connectHost).
#   S3_DEBUG=1        RGW logs canonical request / string-to-sign (debug_rgw=20)
#   S3_START_TIMEOUT  seconds to wait for each step       (default 120)
#   S3_SKIP_INSTALL=1 never call apt-get
set -euo pipefail

# Close descriptors inherited from whoever started us (other than stdin/out/err
# and bash's own descriptor of this script), so the daemons forked below do not keep
# them open.
# Swift's Foundation.Process on Linux learns that a child exited when a socket
# it passes down gets closed: without this, waitUntilExit() would block until
# the Ceph daemons exit.
self=$(readlink -f "$0")
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  case $fd in 0|1|2) continue ;; esac
  # bash reads this script through a descriptor (255, or 254 when an inherited one holds 255): kept
  [ "$(readlink "/proc/$$/fd/$fd" 2>/dev/null)" = "$self" ] && continue
  eval "exec $fd>&-" 2>/dev/null || true
done

S3_PORT=${S3_PORT:-9000}
case "$S3_PORT" in ''|*[!0-9]*) echo "[start-s3] ERROR: S3_PORT must be a number" >&2; exit 1;; esac
S3_ACCESS_KEY=${S3_ACCESS_KEY:-S3TESTACCESSKEY00001}
S3_SECRET_KEY=${S3_SECRET_KEY:-s3testsecretkey000000000000000000000001}
S3_BUCKET=${S3_BUCKET:-uploads}
S3_REGION=${S3_REGION:-us-east-1}
S3_STATE_DIR=${S3_STATE_DIR:-/tmp/s3-rgw-$S3_PORT}
S3_MON_PORT=$((S3_PORT + 1))          # and S3_PORT+2 for msgr v2
S3_OSD_PORT_MIN=$((S3_PORT + 3))      # the OSD binds 8 ports in this range
S3_OSD_PORT_MAX=$((S3_PORT + 12))
S3_TLS_PORT=$((S3_PORT + 13))
S3_MEMSTORE_MB=${S3_MEMSTORE_MB:-1024}
S3_START_TIMEOUT=${S3_START_TIMEOUT:-120}
S3_USER=${S3_USER:-s3test}
S3_DNS_NAME=${S3_DNS_NAME-localhost}
HOST=127.0.0.1

D=$S3_STATE_DIR
CONF=$D/ceph.conf
RGW_NAME=client.rgw.a
RGW_PID=$D/run/$RGW_NAME.pid
EMPTY_SHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

log() { printf '[start-s3] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
T_START=$(now)
elapsed() { awk -v a="$T_START" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

[ "$S3_PORT" -ge 1024 ] && [ "$S3_TLS_PORT" -le 65535 ] || die "S3_PORT must be in 1024..65522"

# ---------------------------------------------------------------- install
need_install=0
for b in ceph-mon ceph-osd radosgw radosgw-admin ceph ceph-authtool monmaptool curl; do
  command -v "$b" >/dev/null 2>&1 || need_install=1
done
if [ "$need_install" = 1 ]; then
  [ "${S3_SKIP_INSTALL:-0}" = 1 ] && die "ceph/radosgw not installed and S3_SKIP_INSTALL=1"
  log "installing radosgw, ceph-mon, ceph-osd, ceph-common from Debian (about 70 MB download)..."
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl >&2; then
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl >&2
  fi
  log "installed after $(elapsed)s"
fi

# ---------------------------------------------------------------- helpers
pid_alive() {  # pidfile -> true if that pid runs one of OUR daemons (cmdline names our conf)
  local f=$1 pid
  [ -s "$f" ] || return 1
  pid=$(cat "$f")
  [ -d "/proc/$pid" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$CONF"
}
ceph_() { timeout 30 ceph -c "$CONF" --connect-timeout 10 "$@"; }
s3curl() {  # SigV4 header-signed request with curl (>= 7.75)
  curl -sS --max-time 20 -H "x-amz-content-sha256: $EMPTY_SHA256" \
    --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" "$@"
}
wait_for() {  # description, command...
  local what=$1; shift
  local deadline=$(( $(date +%s) + S3_START_TIMEOUT ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || die "timed out waiting for $what (logs in $D/log)"
    sleep 0.25
  done
}
port_busy() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
osd_up() { ceph_ osd dump 2>/dev/null | grep -q '^osd\.0 up'; }
http_up() { curl -s -o /dev/null --max-time 2 "http://$HOST:$S3_PORT/"; }
https_up() { curl -s -o /dev/null --max-time 2 --cacert "$D/tls/ca.pem" "https://$HOST:$S3_TLS_PORT/"; }

ensure_user_and_bucket() {
  if radosgw-admin -c "$CONF" user info --uid="$S3_USER" >/dev/null 2>&1; then
    radosgw-admin -c "$CONF" key create --uid="$S3_USER" --key-type=s3 \
      --access-key="$S3_ACCESS_KEY" --secret-key="$S3_SECRET_KEY" >/dev/null
  else
    radosgw-admin -c "$CONF" user create --uid="$S3_USER" --display-name="S3 test user" \
      --access-key="$S3_ACCESS_KEY" --secret-key="$S3_SECRET_KEY" >/dev/null
  fi
  local code
  code=$(s3curl -o /dev/null -w '%{http_code}' -I "http://$HOST:$S3_PORT/$S3_BUCKET" || true)
  if [ "$code" != 200 ]; then
    code=$(s3curl -o "$D/log/create-bucket.xml" -w '%{http_code}' -X PUT "http://$HOST:$S3_PORT/$S3_BUCKET" || true)
    [ "$code" = 200 ] || die "creating bucket $S3_BUCKET failed: HTTP $code $(cat "$D/log/create-bucket.xml" 2>/dev/null)"
  fi
  # the credentials must now work for a signed request
  code=$(s3curl -o /dev/null -w '%{http_code}' -I "http://$HOST:$S3_PORT/$S3_BUCKET" || true)
  [ "$code" = 200 ] || die "signed HEAD of bucket $S3_BUCKET returned HTTP $code"
}

check_topic_api() {  # RGW's topic API must answer a signed ListTopics (bucket notifications need it)
  local code
  code=$(curl -sS --max-time 20 -o "$D/log/list-topics.xml" -w '%{http_code}' \
    --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
    -X POST --data 'Action=ListTopics' "http://$HOST:$S3_PORT/" || true)
  [ "$code" = 200 ] || die "RGW's topic API (ListTopics) answered HTTP $code: $(cat "$D/log/list-topics.xml" 2>/dev/null)"
}

print_exports() {
  cat <<EOF
export S3_ENDPOINT=http://$HOST:$S3_PORT
export S3_TLS_ENDPOINT=https://$HOST:$S3_TLS_PORT
export S3_CA_FILE=$D/tls/ca.pem
export S3_ACCESS_KEY=$S3_ACCESS_KEY
export S3_SECRET_KEY=$S3_SECRET_KEY
export S3_BUCKET=$S3_BUCKET
export S3_REGION=$S3_REGION
export S3_PID_FILE=$RGW_PID
export S3_STATE_DIR=$D
EOF
}

# ---------------------------------------------------------------- already running?
if pid_alive "$D/run/mon.a.pid" && pid_alive "$D/run/osd.0.pid" && pid_alive "$RGW_PID" && http_up && https_up; then
  log "radosgw already running (pid $(cat "$RGW_PID")), state in $D"
  ensure_user_and_bucket
  check_topic_api
  print_exports
  exit 0
fi

# anything half-alive from an earlier run of ours: stop it, then start afresh
if [ -d "$D/run" ]; then
  for f in "$RGW_PID" "$D/run/osd.0.pid" "$D/run/mon.a.pid"; do
    if pid_alive "$f"; then
      pid=$(cat "$f"); log "stopping leftover pid $pid ($f)"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do [ -d "/proc/$pid" ] || break; sleep 0.25; done
      [ -d "/proc/$pid" ] && kill -9 "$pid" 2>/dev/null || true
    fi
  done
fi

for p in $(seq "$S3_PORT" "$S3_TLS_PORT"); do
  port_busy "$p" && die "port $p (in our block $S3_PORT-$S3_TLS_PORT) is already in use by another process"
done

# ---------------------------------------------------------------- bootstrap
case "$D" in /|/tmp|/root|/home|/work|"") die "refusing to use S3_STATE_DIR=$D";; esac
if [ -d "$D" ] && [ -n "$(ls -A "$D")" ] && [ ! -f "$CONF" ]; then
  die "$D exists, is not empty and was not made by start-s3.sh; pick another S3_STATE_DIR"
fi
rm -rf "$D"
mkdir -p "$D/run" "$D/log" "$D/mon" "$D/osd/ceph-0" "$D/rgw"
# The HTTPS listener's certificate (127.0.0.1, ::1, localhost), from a throw-away CA.
bash "$(dirname "$0")/make-test-ca.sh" "$D/tls" >&2 || die "make-test-ca.sh failed"
FSID=$(cat /proc/sys/kernel/random/uuid)
MONADDR="[v2:$HOST:$((S3_MON_PORT + 1)),v1:$HOST:$S3_MON_PORT]"
DEBUG_RGW=1
[ "${S3_DEBUG:-0}" = 1 ] && DEBUG_RGW=20

cat >"$CONF" <<EOF
# generated by start-s3.sh - throw-away single-node Ceph for S3 tests
[global]
fsid = $FSID
mon host = $MONADDR
mon initial members = a
public addr = $HOST
public network = 127.0.0.0/8
ms bind ipv6 = false
ms bind port min = $S3_OSD_PORT_MIN
ms bind port max = $S3_OSD_PORT_MAX
# cephx off *inside* the cluster (loopback only); S3 auth in RGW is unaffected
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
ms client mode = crc
ms cluster mode = crc
ms service mode = crc
mon warn on insecure global id reclaim allowed = false
mon warn on insecure global id reclaim = false
# never shut the monitor down because the disk is nearly full
mon data avail warn = 1
mon data avail crit = 0
mon allow pool size one = true
# commit monitor map changes every 0.1 s instead of 1 s (pool creation is 10x faster)
paxos propose interval = 0.1
mon warn on pool no redundancy = false
mon allow pool delete = true
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = $((S3_MEMSTORE_MB * 1024 * 1024))
run dir = $D/run
admin socket = $D/run/\$name.asok
pid file = $D/run/\$name.pid
log file = $D/log/\$name.log
mon data = $D/mon/\$cluster-\$id
osd data = $D/osd/\$cluster-\$id
keyring = $D/keyring
[$RGW_NAME]
rgw frontends = beast endpoint=$HOST:$S3_PORT ssl_endpoint=$HOST:$S3_TLS_PORT ssl_certificate=$D/tls/server.pem ssl_private_key=$D/tls/server.key
rgw data = $D/rgw
rgw thread pool size = 16
debug rgw = $DEBUG_RGW
EOF
# Virtual-hosted requests (Host <bucket>.$S3_DNS_NAME) besides path-style ones.
if [ -n "$S3_DNS_NAME" ]; then printf 'rgw dns name = %s\n' "$S3_DNS_NAME" >>"$CONF"; fi

log "bootstrapping single-node Ceph in $D (mon :$S3_MON_PORT/:$((S3_MON_PORT + 1)), osd :$S3_OSD_PORT_MIN-$S3_OSD_PORT_MAX)"
ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool "$D/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
monmaptool --create --fsid "$FSID" --addv a "$MONADDR" "$D/monmap" >/dev/null
ceph-mon -c "$CONF" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring" </dev/null >"$D/log/mon-mkfs.out" 2>&1 \
  || { cat "$D/log/mon-mkfs.out" >&2; die "ceph-mon --mkfs failed"; }
# the daemons fork into the background; none keeps this script's stdout open
ceph-mon -c "$CONF" -i a </dev/null >>"$D/log/mon-start.out" 2>&1
wait_for "ceph-mon" ceph_ mon stat
log "mon up after $(elapsed)s"

OSD_UUID=$(cat /proc/sys/kernel/random/uuid)
OSD_ID=$(ceph_ osd new "$OSD_UUID")
[ "$OSD_ID" = 0 ] || die "expected osd id 0, got '$OSD_ID'"
ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$OSD_UUID" </dev/null >"$D/log/osd-mkfs.out" 2>&1 \
  || { cat "$D/log/osd-mkfs.out" >&2; die "ceph-osd --mkfs failed"; }
ceph-osd -c "$CONF" -i 0 </dev/null >>"$D/log/osd-start.out" 2>&1
wait_for "osd.0 up" osd_up
log "osd up after $(elapsed)s"

radosgw -c "$CONF" -n "$RGW_NAME" </dev/null >>"$D/log/rgw-start.out" 2>&1
wait_for "radosgw on $HOST:$S3_PORT" http_up
wait_for "radosgw over HTTPS on $HOST:$S3_TLS_PORT" https_up
log "radosgw answering on $HOST:$S3_PORT and https://$HOST:$S3_TLS_PORT after $(elapsed)s"

ensure_user_and_bucket
check_topic_api
log "ready after $(elapsed)s: user $S3_USER, bucket $S3_BUCKET; rgw pid $(cat "$RGW_PID")"
print_exports
