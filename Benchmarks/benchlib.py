"""Helpers shared by the benchmark scripts (loopback only)."""
import re
import socket
import time


def free_port():
    """A port on 127.0.0.1 that was free a moment ago."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, timeout=15.0):
    """True once something accepts connections on 127.0.0.1:port, False after `timeout` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.002)
    return False


def parse_latency(text, label):
    """The `label`% latency of wrk's --latency output, in milliseconds (None when absent)."""
    m = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if not m:
        return None
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v if unit == "ms" else v * 1000


def http_json(port, method, path, body=None, headers=None, timeout=30):
    """One request to presignd on 127.0.0.1:port as the dev default user: (status, parsed JSON or None)."""
    import http.client
    import json

    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        h = dict(headers or {})  # no X-User-Id: the dev default user, as wrk's requests are
        if data is not None:
            h["Content-Type"] = "application/json"
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        raw = r.read()
        try:
            return r.status, json.loads(raw)
        except ValueError:
            return r.status, None
    finally:
        c.close()


def s3_env():
    """The RGW that scripts/start-s3.sh exports (S3_ENDPOINT, S3_ACCESS_KEY, ...), or exit with how to get one."""
    import os

    names = ["S3_ENDPOINT", "S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_BUCKET"]
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        raise SystemExit(f"{', '.join(missing)} not set: eval \"$(bash scripts/start-s3.sh)\" first")
    if not os.environ["S3_ENDPOINT"].startswith(("http://127.", "http://[::1]", "http://localhost")):
        raise SystemExit("S3_ENDPOINT must be on loopback")
    return {n: os.environ[n] for n in names} | {"S3_REGION": os.environ.get("S3_REGION", "us-east-1")}


def uppy_env(s3, extra=None):
    """presignd settings for the Uppy routes against the RGW `s3` (see s3_env)."""
    env = {
        "PRESIGN_UPPY_ENABLED": "true",
        "PRESIGN_S3_ENDPOINT": s3["S3_ENDPOINT"],
        "PRESIGN_S3_ACCESS_KEY_ID": s3["S3_ACCESS_KEY"],
        "PRESIGN_S3_SECRET_ACCESS_KEY": s3["S3_SECRET_KEY"],
        "PRESIGN_S3_BUCKET": s3["S3_BUCKET"],
        "PRESIGN_S3_REGION": s3["S3_REGION"],
    }
    env.update(extra or {})
    return env
