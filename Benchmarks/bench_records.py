#!/usr/bin/env python3
"""Durable records per second through POST /images, and the same end to end against RGW.

Store benchmark (s3.verifyUploads=false, so only the records store is measured): presignd pinned to
CPU 0, wrk pinned to CPU 1 with 64 connections. Phase 1 issues N client-B URLs with known UUIDs
(POST /presigned-url), phase 2 confirms them (POST /images); the rate of 201s is the figure. Runs
SQLite and PostgreSQL, each with group commit and with one commit per record (maxBatch 1).

End to end (BENCH_E2E=1 and an RGW from scripts/start-s3.sh): 64 client threads each issue a URL,
PUT a small JPEG (512 bytes) to RGW, and confirm it (the content check's ranged GET against RGW, a
durable record); reports confirmations per second and their p50/p99.

Content check on and off (BENCH_MODE=content-check, an RGW as above): only the end-to-end run, twice
on one SQLite store setup, with IMAGE's content check on (the default: one ranged GET of the first
64 KiB, which stands in for the HEAD) and off (`types.IMAGE.contentCheck: false`: a HEAD); reports
confirmations per second of each and their ratio. BENCH_SECONDS sets each run's length.

Bounded in time; loopback only. Run through Benchmarks/run.sh or directly after a release build.
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import free_port, parse_latency, tiny_jpeg, wait_port, scratch_dir
import urllib.parse
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BENCH_BINARY") or os.path.join(ROOT, ".build", "release", "presignd")
SECONDS = int(os.environ.get("BENCH_SECONDS", "8"))
SERVER_CPU = os.environ.get("BENCH_SERVER_CPU", "0")
CLIENT_CPU = os.environ.get("BENCH_CLIENT_CPU", "1")

ISSUE_LUA = r"""
counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"contentType":"image/jpeg","imageKey":"00000000-0000-4000-8000-%012d"}', counter)
  return wrk.format("POST", "/presigned-url", {["Content-Type"] = "application/json", ["X-User-Id"] = "bench"}, body)
end
"""
CONFIRM_LUA = r"""
counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"imageKey":"00000000-0000-4000-8000-%012d","metadata":{"n":%d}}', counter, counter)
  return wrk.format("POST", "/images", {["Content-Type"] = "application/json", ["X-User-Id"] = "bench"}, body)
end
response = function(status, headers, body)
  if status == 201 then created = (created or 0) + 1 end
end
"""


def wrk(port, script, seconds, conns=64):
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script)
    proc = subprocess.run(["taskset", "-c", CLIENT_CPU, "wrk", "-t1", f"-c{conns}", f"-d{seconds}s", "--latency",
                          "-s", f.name, f"http://127.0.0.1:{port}"], capture_output=True, text=True,
                         timeout=seconds + 60)
    out = proc.stdout + proc.stderr
    os.unlink(f.name)
    m = re.search(r"(\d+) requests in", out)
    if not m:
        raise SystemExit("wrk failed:\n" + out)
    reqs = int(m.group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    # wrk writes the run's length as "8.00s", "1.00m" or "1.00h".
    length = re.search(r"requests in ([\d.]+)(ms|s|m|h)", out)
    dur = float(length.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[length.group(2)]
    return {"requests": reqs, "non2xx": int(non2xx.group(1)) if non2xx else 0, "seconds": dur,
            "p50_ms": parse_latency(out, "50"), "p99_ms": parse_latency(out, "99")}


def postgres_url():
    base = os.environ.get("PRESIGN_TEST_POSTGRES_URL")
    if not base:
        return None
    schema = "bench_" + uuid.uuid4().hex
    subprocess.run(["psql", base, "-q", "-c", f"CREATE SCHEMA {schema}"], check=True)
    return base + ("&" if "?" in base else "?") + "options=-csearch_path%3D" + schema


def start(records_url, extra, args=()):
    port = free_port()
    env = {"PATH": "/usr/bin:/bin", "PRESIGN_SERVER_PORT": str(port), "PRESIGN_SERVER_EVENT_LOOPS": "1",
           "PRESIGN_SERVER_WORKER_THREADS": "64", "PRESIGN_LOG_ACCESS_LOG": "false", "PRESIGN_LIMITS_ENABLED": "false",
           "PRESIGN_S3_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
           "PRESIGN_S3_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
           "PRESIGN_S3_ENDPOINT": "http://127.0.0.1:9", "PRESIGN_S3_VERIFY_UPLOADS": "false",
           "PRESIGN_RECORDS_URL": records_url}
    env.update(extra)
    log = open(tempfile.mktemp(prefix="presignd-bench-", suffix=".log"), "wb")
    p = subprocess.Popen(["taskset", "-c", SERVER_CPU, BIN, *args], env=env, stdout=log, stderr=log)
    p.logfile = log.name
    if not wait_port(port):
        p.kill()
        raise SystemExit("presignd did not start")
    return p, port


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()


def record_batches(port):
    """presignd_record_batches_total from /metrics: group-commit transactions so far."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    m = re.search(rb"^presignd_record_batches_total (\d+)", data, re.M)
    return int(m.group(1)) if m else 0


def store_bench(name, records_url, max_batch):
    p, port = start(records_url, {"PRESIGN_RECORDS_GROUP_COMMIT_MAX_BATCH": str(max_batch)})
    try:
        issued = wrk(port, ISSUE_LUA, SECONDS + 4)
        time.sleep(1)  # let the intent writer store the last batch
        if p.poll() is not None:
            raise SystemExit("presignd exited; log: " + open(p.logfile).read()[-2000:])
        batches_before = record_batches(port)
        confirmed = wrk(port, CONFIRM_LUA, SECONDS)
        batches = record_batches(port) - batches_before
    finally:
        stop(p)
    if issued["non2xx"]:
        raise SystemExit(f"{name}: {issued['non2xx']} issue requests failed")
    created = min(confirmed["requests"] - confirmed["non2xx"], issued["requests"])
    return {"store": name, "maxBatch": max_batch, "issued": issued["requests"],
            "confirm_requests": confirmed["requests"], "confirm_non2xx": confirmed["non2xx"],
            "durable_records_per_s": round(created / confirmed["seconds"]),
            # Group commit's batching (GroupCommitterTests only bounds it by maxBatch).
            "records_per_transaction": round(created / batches, 1) if batches else None,
            "p50_ms": confirmed["p50_ms"], "p99_ms": confirmed["p99_ms"]}


def e2e_bench(threads=64, content_check=True):
    s3 = os.environ.get("PRESIGN_TEST_S3_ENDPOINT")
    if not s3:
        return {"skipped": "PRESIGN_TEST_S3_ENDPOINT not set"}
    tmp = scratch_dir("presignd-bench-e2e-")
    args = ()
    if not content_check:
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump({"types": {"IMAGE": {"contentCheck": False}}}, f)
        args = ("--config", os.path.join(tmp, "config.json"))
    jpeg = tiny_jpeg()
    p, port = start(f"sqlite:{tmp}/p.sqlite3", {
        "PRESIGN_S3_ENDPOINT": s3, "PRESIGN_S3_VERIFY_UPLOADS": "true",
        "PRESIGN_S3_ACCESS_KEY_ID": os.environ["PRESIGN_TEST_S3_ACCESS_KEY"],
        "PRESIGN_S3_SECRET_ACCESS_KEY": os.environ["PRESIGN_TEST_S3_SECRET_KEY"],
        "PRESIGN_S3_BUCKET": os.environ.get("PRESIGN_TEST_S3_BUCKET", "uploads"),
        "PRESIGN_S3_REGION": os.environ.get("PRESIGN_TEST_S3_REGION", "us-east-1")}, args)
    s3host = urllib.parse.urlparse(s3)
    lat = []
    errors = [0]
    lock = threading.Lock()
    stop_at = time.time() + SECONDS

    def http(host, hport, method, target, headers, body=b""):
        c = socket.create_connection((host, hport), timeout=10)
        h = f"{method} {target} HTTP/1.1\r\nHost: {host}:{hport}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
        for k, v in headers.items():
            h += f"{k}: {v}\r\n"
        c.sendall(h.encode() + b"\r\n" + body)
        data = b""
        while True:
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
        c.close()
        head, _, rest = data.partition(b"\r\n\r\n")
        return int(head.split(b" ")[1]), rest

    def worker():
        while time.time() < stop_at:
            key = str(uuid.uuid4())
            st, body = http("127.0.0.1", port, "POST", "/presigned-url",
                            {"Content-Type": "application/json", "X-User-Id": "e2e"},
                            json.dumps({"contentType": "image/jpeg", "imageKey": key}).encode())
            if st != 200:
                with lock:
                    errors[0] += 1
                continue
            url = urllib.parse.urlparse(json.loads(body)["signedUrl"])
            st, _ = http(s3host.hostname, s3host.port, "PUT", url.path + "?" + url.query,
                         {"Content-Type": "image/jpeg"}, jpeg)
            t = time.time()
            st, _ = http("127.0.0.1", port, "POST", "/images", {"Content-Type": "application/json", "X-User-Id": "e2e"},
                         json.dumps({"imageKey": key}).encode())
            d = (time.time() - t) * 1000
            with lock:
                if st == 201:
                    lat.append(d)
                else:
                    errors[0] += 1

    ts = [threading.Thread(target=worker) for _ in range(threads)]
    t0 = time.time()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    elapsed = time.time() - t0
    stop(p)
    lat.sort()
    if not lat:
        return {"confirmed": 0, "errors": errors[0]}
    return {"threads": threads, "content_check": content_check, "confirmed": len(lat), "errors": errors[0],
            "confirms_per_s": round(len(lat) / elapsed), "p50_ms": round(lat[len(lat) // 2], 2),
            "p99_ms": round(lat[int(len(lat) * 0.99)], 2),
            "note": "client is Python (issue + PUT + confirm per loop), so this is a lower bound"}


def content_check_bench():
    """Confirmations per second against RGW with IMAGE's content check on, then off."""
    on = e2e_bench(content_check=True)
    off = e2e_bench(content_check=False)
    out = {"content_check_on": on, "content_check_off": off}
    if on.get("confirms_per_s") and off.get("confirms_per_s"):
        out["on_over_off"] = round(on["confirms_per_s"] / off["confirms_per_s"], 3)
    return out


def main():
    if os.environ.get("BENCH_MODE") == "content-check":
        print(json.dumps({"content_check_rgw": content_check_bench()}, indent=1))
        return
    results = []
    for batch in (256, 1):
        tmp = scratch_dir("presignd-bench-rec-")
        results.append(store_bench("sqlite", f"sqlite:{tmp}/p.sqlite3", batch))
        pg = postgres_url()
        if pg:
            results.append(store_bench("postgres", pg, batch))
    out = {"store": results}
    if os.environ.get("BENCH_E2E", "1") == "1":
        out["end_to_end_rgw"] = e2e_bench()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
