#!/usr/bin/env python3
"""The read-URL routes beside nginx, on one pinned core: GET /images/{id}/url and POST /images/urls
with 50 ids, SQLite and PostgreSQL, c=64 and c=256 (docs/read-urls.md).

presignd (release build, one event loop, access log on as in Benchmarks/bench.py) is pinned to CPU 0
and wrk to CPU 1; nginx (one worker, pinned to CPU 0) serves the 15-byte /healthz file of bench.py in
the same run, as the reference. The store is seeded first: 2,000 client-B URLs issued and confirmed as
records of one user with s3.verifyUploads=false (no storage calls: signing a read URL needs none), so
every request reads real records from the store. The single route rotates over the 2,000 ids, the
batch route over windows of 50 of them. Each run reports requests/s, p50/p99, the server's CPU
microseconds per request (utime + stime of every thread over the run) and the non-2xx count; a run
with any non-2xx answer is listed in `invalid_runs_with_errors`. The figure the issue asks for is
`ratio_url_vs_nginx_c64` on SQLite (aim: >= 0.6).

  BENCH_SECONDS=60 per wrk run (default 60; a smoke run: BENCH_SECONDS=3)
  BENCH_STORES=sqlite,postgres (PostgreSQL needs PRESIGN_TEST_POSTGRES_URL: a fresh schema is made)
  BENCH_CONNS=64,256   BENCH_SERVER_CPU=0 BENCH_CLIENT_CPU=1   BENCH_BINARY=.build/release/presignd
  BENCH_WORKER_THREADS (unset: server.workerThreads' default, 32; both routes run on the worker pool)

Bounded in time; loopback only; stops every process it started. After `swift build -c release
--product presignd`:  python3 Benchmarks/read_urls.py
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import time
import uuid

os.environ.setdefault("BENCH_SECONDS", "60")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench import presignd_env, run_wrk, start_nginx  # noqa: E402  (after BENCH_SECONDS is set)
from bench_records import postgres_url  # noqa: E402
from benchlib import free_port, wait_port, scratch_dir  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BENCH_BINARY") or os.path.join(ROOT, ".build", "release", "presignd")
SERVER_CPU = os.environ.get("BENCH_SERVER_CPU", "0")
RECORDS = 2000
BATCH = 50
USER = "bench"


def start(tmp, records_url):
    """presignd pinned to SERVER_CPU on `records_url`, with storage calls off: (process, port)."""
    port = free_port()
    env = presignd_env(tmp, port)
    env.update({"PRESIGN_RECORDS_URL": records_url, "PRESIGN_S3_VERIFY_UPLOADS": "false",
                "PRESIGN_S3_STARTUP_CHECK": "off"})
    if os.environ.get("BENCH_WORKER_THREADS"):
        env["PRESIGN_SERVER_WORKER_THREADS"] = os.environ["BENCH_WORKER_THREADS"]
    log = open(os.path.join(tmp, "presignd-%d.log" % port), "wb")
    p = subprocess.Popen(["taskset", "-c", SERVER_CPU, BIN], env=env, stdout=log, stderr=log)
    if not wait_port(port):
        p.kill()
        raise SystemExit("presignd did not start; log in " + log.name)
    return p, port


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()


def seed(port):
    """Issues and confirms RECORDS uploads of USER on one keep-alive connection: their record ids."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "X-User-Id": USER}
    keys = [str(uuid.uuid4()) for _ in range(RECORDS)]
    for key in keys:
        c.request("POST", "/presigned-url", body=json.dumps({"contentType": "image/jpeg", "imageKey": key}),
                  headers=headers)
        r = c.getresponse()
        r.read()
        if r.status != 200:
            raise SystemExit(f"issue answered {r.status}")
    ids = []
    for key in keys:
        c.request("POST", "/images", body=json.dumps({"imageKey": key, "metadata": {"filename": "photo.jpg"}}),
                  headers=headers)
        r = c.getresponse()
        body = r.read()
        if r.status != 201:
            raise SystemExit(f"confirm answered {r.status}: {body[:200]!r}")
        ids.append(json.loads(body)["id"])
    c.close()
    return ids


def lua_ids(ids):
    return "{" + ",".join('"%s"' % i for i in ids) + "}"


def url_script(tmp, ids):
    """A wrk script of GET /images/{id}/url over `ids`, in turn."""
    path = os.path.join(tmp, "url.lua")
    with open(path, "w") as f:
        f.write(f"""
local ids = {lua_ids(ids)}
local n = 0
request = function()
  n = n % #ids + 1
  return wrk.format("GET", "/images/" .. ids[n] .. "/url", {{["X-User-Id"] = "{USER}"}})
end
""")
    return path


def batch_script(tmp, ids):
    """A wrk script of POST /images/urls with BATCH ids each, windows of `ids` in turn."""
    path = os.path.join(tmp, "batch.lua")
    bodies = []
    for start in range(0, len(ids) - BATCH + 1, BATCH):
        bodies.append(json.dumps({"ids": ids[start:start + BATCH]}))
    with open(path, "w") as f:
        f.write("local bodies = {" + ",".join("[[%s]]" % b for b in bodies) + "}\n")
        f.write(f"""
local n = 0
request = function()
  n = n % #bodies + 1
  return wrk.format("POST", "/images/urls",
    {{["Content-Type"] = "application/json", ["X-User-Id"] = "{USER}"}}, bodies[n])
end
""")
    return path


def check(port, ids):
    """One answer of each route, as the runs will ask them: both must be 200 with URLs."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", f"/images/{ids[0]}/url", headers={"X-User-Id": USER})
    r = c.getresponse()
    one = json.loads(r.read())
    if r.status != 200 or "X-Amz-Signature=" not in one.get("url", ""):
        raise SystemExit(f"GET /images/{{id}}/url answered {r.status}: {one}")
    c.request("POST", "/images/urls", body=json.dumps({"ids": ids[:BATCH]}),
              headers={"Content-Type": "application/json", "X-User-Id": USER})
    r = c.getresponse()
    many = json.loads(r.read())
    if r.status != 200 or len(many.get("urls", {})) != BATCH:
        raise SystemExit(f"POST /images/urls answered {r.status}: {str(many)[:300]}")
    c.close()
    return len(one["url"])


def main():
    stores = os.environ.get("BENCH_STORES", "sqlite,postgres").split(",")
    conns = [int(c) for c in os.environ.get("BENCH_CONNS", "64,256").split(",")]
    tmp = scratch_dir("presignd-bench-readurls-")
    os.chmod(tmp, 0o755)  # nginx's worker reads its file
    results = {"duration_s": int(os.environ["BENCH_SECONDS"]), "records": RECORDS, "batch_ids": BATCH,
               "server_cpu": SERVER_CPU, "worker_threads": os.environ.get("BENCH_WORKER_THREADS", "default")}
    ng, ng_port, ng_pids = start_nginx(tmp)
    try:
        for c in conns:
            results[f"nginx_static_c{c}"] = run_wrk(f"http://127.0.0.1:{ng_port}/healthz", c, ng_pids)
        for store in stores:
            if store == "postgres":
                url = postgres_url()
                if not url:
                    results["postgres"] = {"skipped": "PRESIGN_TEST_POSTGRES_URL not set"}
                    continue
            else:
                url = f"sqlite:{tmp}/readurls.sqlite3"
            p, port = start(tmp, url)
            try:
                ids = seed(port)
                results[f"{store}_url_bytes"] = check(port, ids)
                single, batch = url_script(tmp, ids), batch_script(tmp, ids)
                base = f"http://127.0.0.1:{port}"
                for c in conns:
                    url_run = run_wrk(base, c, [p.pid], single)
                    results[f"{store}_url_c{c}"] = url_run
                    results[f"{store}_ratio_url_vs_nginx_c{c}"] = round(
                        url_run["rps"] / results[f"nginx_static_c{c}"]["rps"], 3)
                    batch_run = run_wrk(base, c, [p.pid], batch)
                    batch_run["urls_per_s"] = round(batch_run["rps"] * BATCH)
                    results[f"{store}_batch{BATCH}_c{c}"] = batch_run
            finally:
                stop(p)
    finally:
        ng.send_signal(signal.SIGQUIT)
        try:
            ng.wait(timeout=10)
        except subprocess.TimeoutExpired:
            ng.kill()
    bad = [k for k, v in results.items() if isinstance(v, dict) and (v.get("non2xx") or v.get("socket_errors"))]
    if bad:
        results["invalid_runs_with_errors"] = bad
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
