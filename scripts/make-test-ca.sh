#!/usr/bin/env bash
# make-test-ca.sh - a throw-away certificate authority and a server certificate for loopback TLS
# tests (the object-store client's HTTPS tests, the server's own TLS tests).
#
# Usage:   bash scripts/make-test-ca.sh DIR
# Writes:  DIR/ca.pem, DIR/ca.key       the CA (self-signed, EC P-256, 2 days)
#          DIR/server.pem, DIR/server.key  a leaf for 127.0.0.1, ::1 and localhost
#                                       (subjectAltName), signed by the CA, 2 days
# Only the `openssl` command is used. Nothing here is secret: the keys exist for tests on loopback.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
DIR=$1
mkdir -p "$DIR"
cd "$DIR"

umask 077
# openssl's own messages go to a log in DIR, shown on failure.
exec 3>&2 2>openssl.log
trap 'rc=$?; if [ $rc -ne 0 ]; then cat openssl.log >&3; fi' EXIT
need() { for f in "$@"; do [ -s "$f" ] || { echo "make-test-ca.sh: openssl did not write $f" >&3; exit 1; }; done; }
openssl ecparam -name prime256v1 -genkey -noout -out ca.key
openssl req -x509 -new -key ca.key -sha256 -days 2 -subj "/CN=presignd test CA" \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out ca.pem

openssl ecparam -name prime256v1 -genkey -noout -out server.key
openssl req -new -key server.key -subj "/CN=localhost" -out server.csr
cat > server.ext <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost
EXT
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days 2 \
  -extfile server.ext -out server.pem
need ca.pem ca.key server.key server.pem
rm -f server.csr server.ext ca.srl openssl.log
chmod 644 ca.pem server.pem
openssl verify -CAfile ca.pem server.pem >/dev/null
echo "$DIR: ca.pem server.pem server.key" >&3
