"""Schemathesis hooks of scripts/api-conformance.sh (loaded through SCHEMATHESIS_HOOKS).

1. Uploads: after a 200 from an issue route, PUT a small object to the presigned URL (loopback
   storage only), in turn: nothing (so the confirmation finds IMAGE_NOT_UPLOADED), a valid image, an
   object of a refused type where the URL does not sign the content type (CONTENT_TYPE_NOT_ALLOWED;
   a valid image where it does), and a valid image again.
   The stateful phase then follows the document's links from issue to confirm (201, 404, 422) and on.
   Whether that random walk reaches issue -> valid upload -> confirm as the same user within the time
   box is chance (a CI run once had none in 60 s), so the hook itself also confirms the first
   CONFIRMS_BY_HOOK valid uploads of the GET issue routes (server-drawn keys: a client-chosen key is
   often the document's example, sent again and again, which a record would turn into 409s): a
   POST /images case built from the document's operation, as the issuing user, with the issued key,
   its answer checked by schemathesis's own checks (Case.validate_response) and counted as
   "POST /images (hook)"; a check that fails is written to the stats as a failure, and the script
   fails the run on it.
2. Counts: every answer by operation and status, written as JSON to $CONFORMANCE_STATS at exit, so the
   script can require real successes.
3. 501: a method the server does not implement (the coverage phase probes QUERY) is answered 501
   NOT_IMPLEMENTED by design (docs/http-profile.md, the document's description). That answer is
   dropped from not_a_server_error's failures, counted, and nothing else is (GET /s3/sts answers a
   documented 403 STS_NOT_SERVED, a 4xx whose message Uppy shows).
"""

import atexit
import http.client
import json
import os
import threading
import urllib.parse
import zlib
from collections import defaultdict

import schemathesis

# The methods HTTP1.HTTPMethod parses; any other token is answered 501.
IMPLEMENTED_METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"}
ISSUE_ROUTES = {"/presigned-url", "/v1/storage/presigned-url"}
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
# Valid uploads the hook confirms itself (see 1. above).
CONFIRMS_BY_HOOK = 3
# Uploads larger than this are skipped (a signed size may be up to 20 MiB).
MAX_UPLOAD_BYTES = 64 * 1024


def _png(length=None):
    """A 1x1 PNG (signature, IHDR, IDAT, IEND) padded after IEND to `length` bytes (unpadded when None):
    an image the content check at confirmation accepts (docs/content-check.md); None when `length` is
    too short for one."""
    def chunk(kind, data):
        typed = kind + data
        return len(data).to_bytes(4, "big") + typed + (zlib.crc32(typed) & 0xFFFFFFFF).to_bytes(4, "big")
    image = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", (1).to_bytes(4, "big") * 2 + bytes([8, 6, 0, 0, 0]))
             + chunk(b"IDAT", bytes([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])) + chunk(b"IEND", b""))
    if length is None:
        return image
    if length < len(image):
        return None
    return image + b"\0" * (length - len(image))

_lock = threading.Lock()
_statuses = defaultdict(lambda: defaultdict(int))
_uploads = defaultdict(int)
_dropped_501 = [0]
_turn = [0]
_confirms = [0]
_hook_failures = []


def _record(label, response):
    """Counts the answer by status, and by error code for JSON error bodies (`422 IMAGE_TOO_LARGE`)."""
    status = str(response.status_code)
    if response.status_code >= 400:
        try:
            code = response.json().get("code")
        except (ValueError, AttributeError):
            code = None
        if isinstance(code, str):
            status += " " + code
    with _lock:
        _statuses[label][status] += 1


def _dump():
    path = os.environ.get("CONFORMANCE_STATS")
    if not path:
        return
    with _lock:
        data = {
            "statuses": {k: dict(v) for k, v in sorted(_statuses.items())},
            "uploads": dict(_uploads),
            "dropped501": _dropped_501[0],
            "hookFailures": list(_hook_failures),
        }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)


atexit.register(_dump)


def _put(url, headers, body):
    """PUT `body` to a presigned URL on loopback storage; the status, or None when not attempted."""
    u = urllib.parse.urlsplit(url)
    if u.scheme != "http" or u.hostname not in LOOPBACK:
        return None
    path = u.path + ("?" + u.query if u.query else "")
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=10)
    try:
        conn.request("PUT", path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    except OSError:
        return None
    finally:
        conn.close()


def _upload_for(case, response):
    try:
        answer = response.json()
    except ValueError:
        return
    url = answer.get("presignedUrl") if isinstance(answer, dict) else None
    if not isinstance(url, str):
        return
    signed = {str(k): str(v) for k, v in (answer.get("headers") or {}).items()}
    with _lock:
        _turn[0] += 1
        turn = _turn[0] % 4
    if turn == 0:
        with _lock:
            _uploads["skipped (IMAGE_NOT_UPLOADED)"] += 1
        return
    names = {k.lower(): k for k in signed}
    if "content-md5" in names or "x-amz-checksum-sha256" in names:
        # Generated digests match no body we could send: the store would refuse it.
        with _lock:
            _uploads["skipped (digest signed)"] += 1
        return
    length = int(signed.get(names.get("content-length", ""), "0")) or None
    if length is not None and length > MAX_UPLOAD_BYTES:
        with _lock:
            _uploads["skipped (too large to send)"] += 1
        return
    body = _png(length)
    if body is None:
        with _lock:
            _uploads["skipped (too small for an image)"] += 1
        return
    headers = dict(signed)
    headers.pop(names.get("content-length", ""), None)
    kind = "image"
    if "content-type" not in names:
        if turn == 2:
            headers["Content-Type"] = "text/plain"
            kind = "refused type"
        else:
            headers["Content-Type"] = "image/png" if url.split("?")[0].endswith(".png") else "image/jpeg"
    status = _put(url, headers, body)
    with _lock:
        _uploads[f"{kind} -> {status}"] += 1
    if kind == "image" and status == 200:
        _confirm(case, response, answer)


def _confirm(case, response, answer):
    """Confirms an upload the hook made, as the user who asked for its URL, through the document's
    POST /images operation; the answer is counted and held to schemathesis's checks."""
    key = answer.get("imageKey") or answer.get("key")
    if not isinstance(key, str):
        return
    if response.request.method.upper() != "GET":
        # Client B's POST routes take the key from the body, and schemathesis sends the document's
        # example key again and again: once the hook recorded it, every later issue of it answered 409
        # KEY_ALREADY_RECORDED, and a CI run got no POST /v1/storage/presigned-url 200 at all. Only
        # server-drawn keys (the GET routes) are confirmed here.
        return
    declared = [dict(part) for part in (case.query, case.body) if isinstance(part, dict)]
    if any(name in part for part in declared for name in ("checksumSHA256", "contentMD5")):
        return  # a generated digest the body does not match: 422 CHECKSUM_MISMATCH, rightly
    with _lock:
        if _confirms[0] >= CONFIRMS_BY_HOOK:
            return
        _confirms[0] += 1
    headers = {}
    for name, value in (case.headers or {}).items():
        if name.lower() == "x-user-id":
            headers["X-User-Id"] = value
    operation = case.operation.schema["/images"]["POST"]
    confirm = operation.Case(body={"imageKey": key}, headers=headers, media_type="application/json")
    u = urllib.parse.urlsplit(response.request.url)
    answered = confirm.call(base_url=f"{u.scheme}://{u.netloc}")
    _record("POST /images (hook)", answered)
    try:
        confirm.validate_response(answered)
    except Exception as failure:  # schemathesis raises its failure group; its text names each check
        with _lock:
            _hook_failures.append(f"POST /images {key}: {failure}")


@schemathesis.hook
def after_call(context, case, response):
    method = response.request.method.upper()
    _record(f"{method} {case.operation.path}", response)
    if response.status_code == 200 and method in ("GET", "POST") and case.operation.path in ISSUE_ROUTES:
        _upload_for(case, response)


@schemathesis.hook
def filter_failure(context, failure, case, response):
    method = response.request.method.upper()
    if response.status_code != 501:
        return True
    try:
        code = response.json().get("code")
    except (ValueError, AttributeError):
        code = None
    if method not in IMPLEMENTED_METHODS and code == "NOT_IMPLEMENTED":
        with _lock:
            _dropped_501[0] += 1
        return False
    return True
