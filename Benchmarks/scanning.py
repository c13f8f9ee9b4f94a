#!/usr/bin/env python3
"""The issue and confirm routes with webhooks and the malware scan on, against both off (issue 38: the
scan and the delivery are off the request path; docs/scanning.md).

One binary (BENCH_BINARY, default the release build) on RGW, pinned to BENCH_SERVER_CPU, in alternating
rounds: "off" (client B's IMAGE type published at confirmation, no webhooks) and "on" (IMAGE scanned by
clamd, `types.IMAGE.scan=clamav`, and every event sent to a local receiver answering 204). In each run
BENCH_THREADS Python workers loop for BENCH_SECONDS: issue a URL (POST /presigned-url), PUT a small JPEG
to RGW, confirm it (POST /images, 201 off, 202 on). Reported per mode: issues and confirmations per
second and their p50/p99 (the client is Python and does the PUT too, so these are lower bounds and the
on/off ratio is the figure), and for "on" how long the scanner then took to publish every record
(records/s). SQLite; PostgreSQL too when PRESIGN_TEST_POSTGRES_URL is set.

Needs RGW (PRESIGN_TEST_S3_* of the dev services or scripts/test.sh) and clamd: PRESIGN_TEST_CLAMD_ADDRESS,
else one is started with scripts/start-clamd.sh on BENCH_CLAMD_PORT (default 23399) and stopped after.

  BENCH_SECONDS=8  BENCH_ROUNDS=2  BENCH_THREADS=16
  smoke run: BENCH_SECONDS=2 BENCH_ROUNDS=1 BENCH_THREADS=4 BENCH_BINARY=.build/debug/presignd

Loopback only; every process it starts is stopped by its PID.
"""
import http.server
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_records import ROOT, postgres_url, start, stop  # noqa: E402
from benchlib import free_port, tiny_jpeg, scratch_dir  # noqa: E402

SECONDS = int(os.environ.get("BENCH_SECONDS", "8"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
THREADS = int(os.environ.get("BENCH_THREADS", "16"))
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


class Receiver(http.server.BaseHTTPRequestHandler):
    """Reads each delivery and answers 204; counts them."""
    received = 0
    lock = threading.Lock()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with Receiver.lock:
            Receiver.received += 1
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def receiver_url():
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{port}/webhooks"


def clamd():
    """The clamd address, and the pid file of one this script started (None when it was given)."""
    given = os.environ.get("PRESIGN_TEST_CLAMD_ADDRESS")
    if given:
        return given, None
    port = os.environ.get("BENCH_CLAMD_PORT", "23399")
    env = dict(os.environ, CLAMD_PORT=port, CLAMD_STATE_DIR=f"/tmp/presignd-bench-clamd-{port}")
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts/start-clamd.sh")], env=env, check=True,
                         capture_output=True, text=True).stdout
    address = re.search(r"CLAMD_ADDRESS=(\S+)", out).group(1)
    return address, env


def call(host, port, method, target, headers, body=b""):
    c = socket.create_connection((host, port), timeout=30)
    h = f"{method} {target} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
    for k, v in headers.items():
        h += f"{k}: {v}\r\n"
    c.sendall(h.encode() + b"\r\n" + body)
    data = b""
    while chunk := c.recv(65536):
        data += chunk
    c.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), rest


def metric(port, name):
    _, body = call("127.0.0.1", port, "GET", "/metrics", {})
    m = re.search(rb"^" + re.escape(name.encode()) + rb" (-?\d+)", body, re.M)
    return int(m.group(1)) if m else None


def percentile(values, q):
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * q))], 2) if values else None


def run(records_url, mode, clamd_address, webhook_url):
    s3 = os.environ["PRESIGN_TEST_S3_ENDPOINT"]
    extra = {
        "PRESIGN_S3_ENDPOINT": s3, "PRESIGN_S3_VERIFY_UPLOADS": "true",
        "PRESIGN_S3_ACCESS_KEY_ID": os.environ["PRESIGN_TEST_S3_ACCESS_KEY"],
        "PRESIGN_S3_SECRET_ACCESS_KEY": os.environ["PRESIGN_TEST_S3_SECRET_KEY"],
        "PRESIGN_S3_BUCKET": os.environ.get("PRESIGN_TEST_S3_BUCKET", "uploads"),
        "PRESIGN_S3_REGION": os.environ.get("PRESIGN_TEST_S3_REGION", "us-east-1"),
    }
    expected = 201
    if mode == "on":
        extra.update({"PRESIGN_TYPES": json.dumps({"IMAGE": {"scan": "clamav"}}),
                      "PRESIGN_SCAN_CLAMD_ADDRESS": clamd_address, "PRESIGN_SCAN_POLL_INTERVAL_MS": "50",
                      "PRESIGN_WEBHOOKS_URL": webhook_url, "PRESIGN_WEBHOOKS_SECRET": SECRET})
        expected = 202
    p, port = start(records_url, extra)
    s3host = urllib.parse.urlparse(s3)
    jpeg = tiny_jpeg()
    issue_ms, confirm_ms, errors = [], [], [0]
    lock = threading.Lock()
    stop_at = time.time() + SECONDS
    user = {"Content-Type": "application/json", "X-User-Id": "bench-scan"}

    def worker():
        while time.time() < stop_at:
            key = str(uuid.uuid4())
            t = time.time()
            st, body = call("127.0.0.1", port, "POST", "/presigned-url", user,
                            json.dumps({"contentType": "image/jpeg", "imageKey": key}).encode())
            issued = (time.time() - t) * 1000
            if st != 200:
                with lock:
                    errors[0] += 1
                continue
            url = urllib.parse.urlparse(json.loads(body)["signedUrl"])
            call(s3host.hostname, s3host.port, "PUT", url.path + "?" + url.query, {"Content-Type": "image/jpeg"}, jpeg)
            t = time.time()
            st, _ = call("127.0.0.1", port, "POST", "/images", user, json.dumps({"imageKey": key}).encode())
            confirmed = (time.time() - t) * 1000
            with lock:
                issue_ms.append(issued)
                if st == expected:
                    confirm_ms.append(confirmed)
                else:
                    errors[0] += 1

    try:
        threads = [threading.Thread(target=worker) for _ in range(THREADS)]
        t0 = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.time() - t0
        drained = None
        if mode == "on":
            t1 = time.time()
            while (metric(port, "presignd_scan_pending") or 0) > 0 and time.time() - t1 < 120:
                time.sleep(0.1)
            drain_s = time.time() - t1
            drained = {"scan_drain_s": round(drain_s, 2),
                       "scans_clean": metric(port, 'presignd_scans_total{outcome="clean"}'),
                       "scan_pending_left": metric(port, "presignd_scan_pending")}
    finally:
        stop(p)
    out = {"issues_per_s": round(len(issue_ms) / elapsed), "issue_p50_ms": percentile(issue_ms, 0.5),
           "issue_p99_ms": percentile(issue_ms, 0.99), "confirms_per_s": round(len(confirm_ms) / elapsed),
           "confirm_p50_ms": percentile(confirm_ms, 0.5), "confirm_p99_ms": percentile(confirm_ms, 0.99),
           "errors": errors[0]}
    if drained:
        out.update(drained)
    return out


def fresh_url(store):
    if store == "sqlite":
        return f"sqlite:{scratch_dir('presignd-bench-scan-')}/p.sqlite3"
    return postgres_url()


def main():
    if not os.environ.get("PRESIGN_TEST_S3_ENDPOINT"):
        raise SystemExit("PRESIGN_TEST_S3_ENDPOINT is not set (RGW of the dev services or scripts/test.sh)")
    address, started = clamd()
    try:
        webhook_url = receiver_url()
        stores = ["sqlite"] + (["postgres"] if os.environ.get("PRESIGN_TEST_POSTGRES_URL") else [])
        out = {"seconds": SECONDS, "rounds": ROUNDS, "threads": THREADS, "stores": {}}
        for store in stores:
            runs = {"off": [], "on": []}
            for _ in range(ROUNDS):
                for mode in ("off", "on"):
                    runs[mode].append(run(fresh_url(store), mode, address, webhook_url))
            summary = {}
            for key in ("issues_per_s", "confirms_per_s", "confirm_p99_ms"):
                off = statistics.median(r[key] for r in runs["off"])
                on = statistics.median(r[key] for r in runs["on"])
                summary[key] = {"off": off, "on": on, "on_over_off": round(on / off, 3) if off else None}
            out["stores"][store] = {"summary": summary, "runs": runs}
        out["deliveries_received"] = Receiver.received
        print(json.dumps(out, indent=1))
    finally:
        if started:
            subprocess.run(["bash", os.path.join(ROOT, "scripts/stop-clamd.sh")], env=started, check=False)


if __name__ == "__main__":
    main()
