#!/usr/bin/env python3
"""web-test.py - the web page (examples/web) in a real browser: headless Chromium from Debian, driven
over WebDriver (chromium-driver) with Python's standard library only, against the debug presignd and
the test RGW with the bucket's CORS rule. Run by scripts/test.sh after swift test; alone:

    swift build --build-tests          # and RGW up, PRESIGN_TEST_S3_* exported as scripts/test.sh does
    python3 scripts/web-test.py        # WEB_TEST_ARTIFACTS=DIR keeps the screenshots elsewhere

Cases, each from its own page origin (three static servers on 127.0.0.1 serving examples/web):
  allowed     the origin presignd (cors.allowedOrigins) and the bucket's CORS rule both allow: a JPEG
              in one PUT (POST /presigned-url declaring the SHA-256 the page read with crypto.subtle,
              POST /images: the record holds it) and a 12 MiB video in 5 MiB parts through
              /s3/multipart, the first PUT of part 2 failing once (a 500 from a proxy in front of RGW,
              the server's s3.publicEndpoint): both uploads succeed, the part is retried, the records
              exist and their bytes, read back through the records' signed GET URLs, match the files.
  messages    the same origin: a text file refused by POST /presigned-url (422) and a large text file
              refused by POST /s3/multipart (400): the page shows the server's own message.
  bucketless  an origin presignd allows but the bucket's rule does not: the browser refuses storage's
              answer, the page says so, no record is made.
  stranger    an origin presignd does not allow: the browser refuses presignd's preflight, the page
              says so, nothing is issued.
A screenshot of each case is kept in WEB_TEST_ARTIFACTS (default .build/test-artifacts/web/).
Everything listens on 127.0.0.1; every wait is bounded; what it started is stopped by its pid.
"""
import base64
import hashlib
import http.client
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEB = os.path.join(ROOT, "examples", "web")
ARTIFACTS = os.environ.get("WEB_TEST_ARTIFACTS") or os.path.join(ROOT, ".build", "test-artifacts", "web")
BIN = os.environ.get("PRESIGND_BINARY") or os.path.join(ROOT, ".build", "debug", "presignd")
TEST_ORIGIN = "https://app.example.test"  # what scripts/test.sh puts on the bucket for the Uppy tests
MiB = 1024 * 1024


def log(*parts):
    print("[web]", *parts, file=sys.stderr, flush=True)


def fail(message):
    print(f"[web] FAILED: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, predicate, timeout_s, interval_s=0.1):
    """Polls `predicate` until it returns a true value (returned) or `timeout_s` passes (fails)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            fail(f"{what}: not within {timeout_s} s")
        time.sleep(interval_s)


# --- a proxy in front of RGW that fails the first PUT of part 2 once --------------------------------

class FaultProxy(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream):
        self.upstream = upstream  # (host, port)
        self.injected = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), ProxyHandler)


class ProxyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        if self.command == "PUT" and query.get("partNumber") == ["2"]:
            with self.server.lock:
                first = not self.server.injected
                if first:
                    self.server.injected.append(self.path.split("?")[0])
            if first:
                payload = b"<Error><Code>InternalError</Code><Message>injected by web-test.py</Message></Error>"
                self.send_response(500)
                origin = self.headers.get("Origin")
                if origin:  # a real store's 500 carries its CORS headers too, so the page can read it
                    self.send_header("Access-Control-Allow-Origin", origin)
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
        upstream = http.client.HTTPConnection(*self.server.upstream, timeout=60)
        try:
            # The Host header is kept as the client sent it: it is part of what the URL signs.
            upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for name, value in self.headers.items():
                if name.lower() not in ("connection", "keep-alive", "proxy-connection", "transfer-encoding"):
                    upstream.putheader(name, value)
            upstream.endheaders(body if body else None)
            response = upstream.getresponse()
            data = response.read()
            self.send_response(response.status, response.reason)
            for name, value in response.getheaders():
                if name.lower() not in ("connection", "keep-alive", "transfer-encoding", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        finally:
            upstream.close()

    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = do_OPTIONS = forward


class QuietStatic(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=WEB, **kwargs)

    def log_message(self, *args):
        pass


def static_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), QuietStatic)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


# --- WebDriver over HTTP --------------------------------------------------------------------------

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class WebDriver:
    def __init__(self, port, profile):
        self.base = f"http://127.0.0.1:{port}"
        binary = "/usr/lib/chromium/chromium" if os.path.exists("/usr/lib/chromium/chromium") else "/usr/bin/chromium"
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": binary,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1000,1000", f"--user-data-dir={profile}", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read()).get("value")
        except urllib.error.HTTPError as error:
            fail(f"WebDriver {method} {path}: HTTP {error.code}: {error.read()[:500]!r}")

    def s(self, path):
        return f"/session/{self.session}{path}"

    def open(self, url):
        self.call("POST", self.s("/url"), {"url": url})

    def element(self, css):
        return self.call("POST", self.s("/element"), {"using": "css selector", "value": css})[ELEMENT]

    def send_keys(self, css, text):
        self.call("POST", self.s(f"/element/{self.element(css)}/value"), {"text": text})

    def click(self, css):
        self.call("POST", self.s(f"/element/{self.element(css)}/click"), {})

    def script(self, source, *args):
        return self.call("POST", self.s("/execute/sync"), {"script": source, "args": list(args)})

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("GET", self.s("/screenshot"))))

    def quit(self):
        try:
            self.call("DELETE", self.s(""))
        except SystemExit:
            pass


# --- presignd -------------------------------------------------------------------------------------

def api(base, method, path, user, body=None):
    headers = {"X-User-Id": user}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw)
        except ValueError:
            return error.code, raw


def main():
    env = os.environ
    for name in ["PRESIGN_TEST_S3_ENDPOINT", "PRESIGN_TEST_S3_ACCESS_KEY", "PRESIGN_TEST_S3_SECRET_KEY",
                 "PRESIGN_TEST_S3_BUCKET", "PRESIGN_TEST_S3_REGION"]:
        if not env.get(name):
            fail(f"{name} is not set: run from scripts/test.sh, or start RGW and export what it exports")
    if not os.access(BIN, os.X_OK):
        fail(f"{BIN} is missing: build first (swift build --build-tests)")
    for tool in ["chromedriver", "chromium"]:
        if not shutil.which(tool):
            fail(f"{tool} is missing: bash scripts/setup.sh test installs chromium and chromium-driver")
    os.makedirs(ARTIFACTS, exist_ok=True)
    rgw = urllib.parse.urlsplit(env["PRESIGN_TEST_S3_ENDPOINT"])
    if rgw.hostname not in ("127.0.0.1", "localhost", "::1"):
        fail(f"PRESIGN_TEST_S3_ENDPOINT={env['PRESIGN_TEST_S3_ENDPOINT']} is not on loopback")

    work = tempfile.mkdtemp(prefix="presignd-web-")
    children = []
    servers = []

    def cleanup():
        for server in servers:
            server.shutdown()
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
        shutil.rmtree(work, ignore_errors=True)

    try:
        run(env, rgw, work, children, servers)
    finally:
        cleanup()


def run(env, rgw, work, children, servers):
    proxy = FaultProxy((rgw.hostname, rgw.port or 80))
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    servers.append(proxy)
    public = f"http://127.0.0.1:{proxy.server_address[1]}"

    allowed_page, allowed = static_server()
    bucketless_page, bucketless = static_server()
    stranger_page, stranger = static_server()
    servers += [allowed_page, bucketless_page, stranger_page]

    # The bucket's CORS rule: the Uppy tests' origin and this page's allowed origin (not the others).
    cors_env = dict(env, S3_ENDPOINT=env["PRESIGN_TEST_S3_ENDPOINT"], S3_ACCESS_KEY=env["PRESIGN_TEST_S3_ACCESS_KEY"],
                    S3_SECRET_KEY=env["PRESIGN_TEST_S3_SECRET_KEY"], S3_BUCKET=env["PRESIGN_TEST_S3_BUCKET"],
                    S3_REGION=env["PRESIGN_TEST_S3_REGION"])
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "rgw-cors.sh"), f"{TEST_ORIGIN},{allowed}"],
                   env=cors_env, check=True, stdout=subprocess.DEVNULL)

    log_path = os.path.join(work, "server.log")
    server_env = {
        "PATH": "/usr/bin:/bin", "AWS_EC2_METADATA_DISABLED": "true", "PRESIGN_S3_CREDENTIAL_SOURCES": "environment",
        "PRESIGN_SERVER_HOST": "127.0.0.1", "PRESIGN_SERVER_PORT": "0", "PRESIGN_SERVER_EVENT_LOOPS": "2",
        "PRESIGN_LIMITS_ENABLED": "false", "PRESIGN_RECORDS_URL": f"sqlite:{work}/presignd.sqlite3",
        "PRESIGN_S3_ENDPOINT": env["PRESIGN_TEST_S3_ENDPOINT"], "PRESIGN_S3_PUBLIC_ENDPOINT": public,
        "PRESIGN_S3_REGION": env["PRESIGN_TEST_S3_REGION"], "PRESIGN_S3_BUCKET": env["PRESIGN_TEST_S3_BUCKET"],
        "PRESIGN_S3_ACCESS_KEY_ID": env["PRESIGN_TEST_S3_ACCESS_KEY"],
        "PRESIGN_S3_SECRET_ACCESS_KEY": env["PRESIGN_TEST_S3_SECRET_KEY"],
        "PRESIGN_UPPY_ENABLED": "true", "PRESIGN_UPPY_DEFAULT_TYPE": "VIDEO",
        "PRESIGN_CORS_ALLOWED_ORIGINS": f"{allowed},{bucketless}",
        # The default cors.allowedHeaders: dev mode allows its X-User-Id header by itself.
    }
    with open(log_path, "wb") as server_log:
        presignd = subprocess.Popen([BIN], env=server_env, stdout=subprocess.DEVNULL, stderr=server_log)
    children.append(presignd)

    def listening_port():
        if presignd.poll() is not None:
            fail(f"presignd exited with {presignd.returncode}: {open(log_path).read()[-2000:]}")
        for line in open(log_path, errors="replace"):
            if '"msg":"listening"' in line:
                return json.loads(line)["port"]
        return None

    base = f"http://127.0.0.1:{wait_until('presignd listening', listening_port, 30)}"
    log(f"presignd on {base}; storage {env['PRESIGN_TEST_S3_ENDPOINT']} behind the proxy {public}")

    driver_port = free_port()
    driver = subprocess.Popen(["chromedriver", f"--port={driver_port}", "--allowed-ips=127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children.append(driver)

    def driver_ready():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{driver_port}/status", timeout=2) as r:
                return json.loads(r.read())["value"]["ready"]
        except (OSError, ValueError):
            return False

    wait_until("chromedriver ready", driver_ready, 30)
    browser = WebDriver(driver_port, os.path.join(work, "profile"))
    try:
        cases(browser, base, work, proxy, allowed, bucketless, stranger)
    finally:
        browser.quit()


def upload(browser, page, base, user, paths, threshold_mib=6, part_mib=5, timeout_s=180):
    query = urllib.parse.urlencode({"server": base, "user": user, "threshold": threshold_mib, "partSize": part_mib})
    browser.open(f"{page}/index.html?{query}")
    wait_until("the page loaded", lambda: browser.script("return document.readyState") == "complete", 30)
    browser.send_keys("#files", "\n".join(paths))
    browser.click("#upload")
    count = len(paths)
    script = "return window.presignResults.filter(r => r.status !== 'uploading').length"
    wait_until(f"{count} uploads from {page} finished", lambda: browser.script(script) == count, timeout_s, 0.25)
    return browser.script("return window.presignResults")


def records_of(base, user):
    status, body = api(base, "GET", "/images?limit=50", user)
    if status != 200:
        fail(f"GET /images for {user}: {status} {body}")
    return body.get("items", body if isinstance(body, list) else [])


def cases(browser, base, work, proxy, allowed, bucketless, stranger):
    photo = os.path.join(work, "photo.jpg")
    shutil.copy(os.path.join(ROOT, "Tests", "ImageProbeTests", "Fixtures", "jpeg-baseline-64x48.jpg"), photo)
    clip = os.path.join(work, "clip.mp4")
    with open(clip, "wb") as f:
        f.write(os.urandom(12 * MiB))
    notes = os.path.join(work, "notes.txt")
    with open(notes, "w") as f:
        f.write("not an image\n")
    big_notes = os.path.join(work, "big-notes.txt")
    with open(big_notes, "wb") as f:
        f.write(b"text " * (7 * MiB // 5))

    # --- allowed: one PUT and multipart, a part retried, records and bytes -------------------------
    results = upload(browser, allowed, base, "web-allowed", [photo, clip])
    browser.screenshot(os.path.join(ARTIFACTS, "allowed.png"))
    by_name = {r["file"]: r for r in results}
    for name in ["photo.jpg", "clip.mp4"]:
        r = by_name.get(name)
        if not r or r["status"] != "done":
            fail(f"allowed origin: {name} did not upload: {r}")
    if by_name["photo.jpg"]["multipart"]:
        fail("allowed origin: the small photo went in parts")
    video = by_name["clip.mp4"]
    if not video["multipart"] or video["parts"] != 3:
        fail(f"allowed origin: the 12 MiB video did not go in 3 parts of 5 MiB: {video}")
    if not proxy.injected:
        fail("the proxy never saw part 2 (the fault was not injected)")
    if video["retries"] < 1:
        fail(f"allowed origin: part 2 failed once (500) but the page reports no retry: {video}")
    # The photo's SHA-256, read by the page with crypto.subtle and declared, proven and recorded.
    photo_sha = base64.b64encode(hashlib.sha256(open(photo, "rb").read()).digest()).decode()
    if by_name["photo.jpg"].get("sha256") != photo_sha:
        fail(f"allowed origin: the photo's record does not hold its SHA-256 {photo_sha}: {by_name['photo.jpg']}")
    for name, path in [("photo.jpg", photo), ("clip.mp4", clip)]:
        status, record = api(base, "GET", f"/images/{by_name[name]['recordId']}", "web-allowed")
        if status != 200:
            fail(f"allowed origin: the record of {name} is not there: {status} {record}")
        if name == "photo.jpg" and record.get("sha256") != photo_sha:
            fail(f"allowed origin: GET /images/{{id}} of the photo shows no sha256 {photo_sha}: {record}")
        with urllib.request.urlopen(record["url"], timeout=60) as r:
            stored = r.read()
        want = open(path, "rb").read()
        if hashlib.sha256(stored).digest() != hashlib.sha256(want).digest():
            fail(f"allowed origin: {name}: the stored bytes ({len(stored)}) are not the file's ({len(want)})")
    log(f"allowed origin {allowed}: photo in one PUT (its SHA-256 declared and recorded), video in 3 parts "
        "(part 2 retried after a 500), records made, bytes match")

    # --- messages: the server's own refusal text reaches the page ----------------------------------
    results = upload(browser, allowed, base, "web-messages", [notes, big_notes])
    browser.screenshot(os.path.join(ARTIFACTS, "messages.png"))
    by_name = {r["file"]: r for r in results}
    status, refused = api(base, "POST", "/presigned-url", "web-messages",
                          {"contentType": "text/plain", "imageKey": str(uuid.uuid4()), "size": 13})
    if status < 400 or not isinstance(refused, dict) or not refused.get("message"):
        fail(f"POST /presigned-url with text/plain was not refused with a message: {status} {refused}")
    shown = by_name["notes.txt"].get("error") or ""
    if by_name["notes.txt"]["status"] != "error" or refused["message"] not in shown or f"HTTP {status}" not in shown:
        fail(f"the page does not show presignd's message {refused['message']!r} (HTTP {status}): {shown!r}")
    status, refused = api(base, "POST", "/s3/multipart", "web-messages",
                          {"filename": "big-notes.txt", "type": "text/plain", "metadata": {}})
    # Uppy (and this page) show only `message`: the Uppy routes send it beside Companion's `error`.
    text = isinstance(refused, dict) and refused.get("message")
    if status < 400 or not text or refused.get("error") != text:
        fail(f"POST /s3/multipart with text/plain was not refused with a message beside error: {status} {refused}")
    shown = by_name["big-notes.txt"].get("error") or ""
    if by_name["big-notes.txt"]["status"] != "error" or text not in shown:
        fail(f"the page does not show the /s3/multipart refusal {text!r}: {shown!r}")
    if records_of(base, "web-messages"):
        fail("refused uploads made records")
    log("refusals: the page shows presignd's message (POST /presigned-url 422, POST /s3/multipart 400)")

    # --- bucketless: presignd allows the origin, the bucket does not ------------------------------
    results = upload(browser, bucketless, base, "web-bucketless", [photo])
    browser.screenshot(os.path.join(ARTIFACTS, "bucketless.png"))
    shown = results[0].get("error") or ""
    if results[0]["status"] != "error" or "no answer from storage" not in shown:
        fail(f"an origin the bucket's CORS rule does not allow uploaded to storage: {results[0]}")
    if records_of(base, "web-bucketless"):
        fail("an upload the browser refused made a record")
    log(f"origin {bucketless} (presignd yes, bucket no): the browser refused storage's answer")

    # --- stranger: presignd does not allow the origin ----------------------------------------------
    results = upload(browser, stranger, base, "web-stranger", [photo])
    browser.screenshot(os.path.join(ARTIFACTS, "stranger.png"))
    shown = results[0].get("error") or ""
    if results[0]["status"] != "error" or "no answer from presignd" not in shown:
        fail(f"an origin presignd does not allow got an upload URL: {results[0]}")
    if records_of(base, "web-stranger"):
        fail("a refused origin made a record")
    log(f"origin {stranger} (not allowed): the browser refused presignd's preflight")
    log(f"ok: screenshots in {ARTIFACTS}")


if __name__ == "__main__":
    main()
