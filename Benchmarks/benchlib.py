"""Helpers shared by the benchmark scripts (loopback only)."""
import atexit
import json
import os
import re
import shutil
import socket
import tempfile
import time


def scratch_dir(prefix):
    """A temporary directory removed when the benchmark exits, however it ends short of a kill: the
    stores and objects a run leaves hold gigabytes (260 runs once filled 44 GB of /tmp here)."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, True)
    return path


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


# The compatibility mode's issue route: GET /bench/compat/presigned-url?type=&ext= runs the same
# operation as the native GET /presigned-url (issueByType), answered through a compiled envelope.
COMPAT_ISSUE_PATH = "/bench/compat/presigned-url"
COMPAT_CONFIG = {
    "compat": {
        "routes": [
            {
                "name": "bench.issue",
                "method": "GET",
                "path": COMPAT_ISSUE_PATH,
                "operation": "issueByType",
                "typeField": "type",
                "extField": "ext",
                "success": {"body": {"success": True, "message": "OK", "data": {"presignedUrl": "{url}", "key": "{key}"}}},
                "errors": {"default": {"body": {"success": False, "message": "{message}", "data": None}}},
            }
        ]
    }
}


def write_compat_config(directory):
    """Writes COMPAT_CONFIG to `directory`/compat.json and returns its path."""
    path = os.path.join(directory, "compat.json")
    with open(path, "w") as f:
        json.dump(COMPAT_CONFIG, f)
    return path


def write_post_script(directory, name="post.lua"):
    """A wrk script that POSTs client B's body with a new random UUID per request (a reused key is a
    409 once recorded, and would measure the refusal)."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("""
local hex = "0123456789abcdef"
local function uuid()
  local t = {}
  for i = 1, 36 do
    if i == 9 or i == 14 or i == 19 or i == 24 then t[i] = "-"
    else local n = math.random(1, 16); t[i] = hex:sub(n, n) end
  end
  return table.concat(t)
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  return wrk.format(nil, nil, nil, '{"contentType":"image/jpeg","imageKey":"' .. string.upper(uuid()) .. '"}')
end
""")
    return path
def tiny_jpeg(width=640, height=480, size=512):
    """A baseline JPEG header of `width` x `height` (SOI, APP0, DQT, SOF0, DHT, SOS, EOI), padded to `size`
    bytes after its EOI: what the content check at confirmation accepts (docs/content-check.md)."""
    def segment(marker, payload):
        return bytes([0xFF, marker]) + (len(payload) + 2).to_bytes(2, "big") + payload
    frame = bytes([8]) + height.to_bytes(2, "big") + width.to_bytes(2, "big") + bytes([3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0])
    image = (b"\xff\xd8" + segment(0xE0, b"JFIF\x00\x01\x02\x00\x00\x01\x00\x01\x00\x00")
             + segment(0xDB, b"\x00" + b"\x01" * 64) + segment(0xC0, frame)
             + segment(0xC4, b"\x00\x01" + b"\x00" * 15 + b"\x00") + segment(0xDA, b"\x01\x01\x00\x00\x3f\x00")
             + b"\x12\x34\xff\xd9")
    return image + b" " * max(0, size - len(image))
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
