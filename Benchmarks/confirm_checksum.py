#!/usr/bin/env python3
"""The confirmation's integrity proof (issue 37; docs/object-store.md, "Integrity"), and the issue route
with a checksum in the request.

1. Confirmation with `verifyChecksum: "read"` on RGW (which keeps no SHA-256, so presignd streams each
   object and hashes it): for 1 MiB and 20 MiB objects, BENCH_OBJECTS objects are issued (client B's
   POST /presigned-url declaring `checksumSHA256`) and PUT to RGW first; then their POST /images are
   sent BENCH_CONFIRM_CONCURRENCY at a time and timed alone. Reported per size: MiB/s confirmed, the
   server's CPU milliseconds per MiB (utime + stime of every thread over the confirmation phase), and
   its RSS before, at its highest (sampled every 20 ms) and after: with bounded-memory hashing it stays
   flat whatever the object's size. The same objects' sizes uploaded without a declared checksum (a
   HEAD only) are the baseline.
2. The issue route: wrk POSTs /presigned-url with a new key per request, without and with
   `checksumSHA256` and `contentMD5` in the body (storage calls off): requests/s, p99, CPU us/request.

presignd (BENCH_BINARY, default the release build) is pinned to BENCH_SERVER_CPU, wrk and this script to
BENCH_CLIENT_CPU. Needs RGW (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET from
scripts/start-s3.sh, or the PRESIGN_TEST_S3_* of the dev services). Loopback only; bounded in time;
stops every process it started.
  BENCH_OBJECTS=16  BENCH_CONFIRM_CONCURRENCY=4  BENCH_SECONDS=20 (each wrk run)
  BENCH_ISSUE_ROUNDS=1 (issue-route pairs, alternating which goes first, each run on a fresh server)
  BENCH_ISSUE_BODIES=checksums (the bodies compared with plain: sha256 = checksumSHA256 alone,
    checksums = size, checksumSHA256 and contentMD5; e.g. sha256,checksums)
  BENCH_PARTS=confirm,issue (either alone: BENCH_PARTS=issue)
  a smoke run: BENCH_OBJECTS=2 BENCH_SECONDS=2 BENCH_BINARY=.build/debug/presignd
"""
import base64
import concurrent.futures
import hashlib
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

os.environ.setdefault("BENCH_SECONDS", "20")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench  # noqa: E402  (after BENCH_SECONDS is set)
import benchlib  # noqa: E402

MIB = 1024 * 1024
OBJECTS = int(os.environ.get("BENCH_OBJECTS", "16"))
CONCURRENCY = int(os.environ.get("BENCH_CONFIRM_CONCURRENCY", "4"))
ISSUE_ROUNDS = int(os.environ.get("BENCH_ISSUE_ROUNDS", "1"))
PARTS = os.environ.get("BENCH_PARTS", "confirm,issue").split(",")
SIZES_MIB = [1, 20]
USER = "bench-checksum"

CONFIG = {"types": {"SUM": {
    "contentTypes": ["image/jpeg"], "keyTemplate": "bench-sum/{imageKey}", "maxBytes": 32 * MIB,
    "contentCheck": False, "verifyChecksum": "read"}}}


def s3():
    """RGW's settings from S3_* (scripts/start-s3.sh) or PRESIGN_TEST_S3_* (the dev services)."""
    if not os.environ.get("S3_ENDPOINT") and os.environ.get("PRESIGN_TEST_S3_ENDPOINT"):
        for a, b in [("S3_ENDPOINT", "ENDPOINT"), ("S3_ACCESS_KEY", "ACCESS_KEY"), ("S3_SECRET_KEY", "SECRET_KEY"),
                     ("S3_BUCKET", "BUCKET"), ("S3_REGION", "REGION")]:
            if os.environ.get("PRESIGN_TEST_S3_" + b):
                os.environ[a] = os.environ["PRESIGN_TEST_S3_" + b]
    return benchlib.s3_env()


def start(tmp, rgw, verify_uploads=True):
    """presignd pinned to bench.SERVER_CPU on RGW with CONFIG: (process, port)."""
    config = os.path.join(tmp, "config.json")
    with open(config, "w") as f:
        json.dump(CONFIG, f)
    port = benchlib.free_port()
    env = bench.presignd_env(tmp, port)
    env.update(benchlib.uppy_env(rgw, {"PRESIGN_UPPY_ENABLED": "false"}))
    env.update({"PRESIGN_S3_VERIFY_UPLOADS": "true" if verify_uploads else "false",
                "PRESIGN_S3_STARTUP_CHECK": "off", "PRESIGN_RECORDS_URL": f"sqlite:{tmp}/records-{port}.sqlite3",
                "PRESIGN_PRESIGN_DEFAULT_POST_TYPE": "SUM"})
    log = open(os.path.join(tmp, f"presignd-{port}.log"), "wb")
    p = subprocess.Popen(["taskset", "-c", bench.SERVER_CPU, bench.BIN, "--config", config], env=env,
                         stdout=log, stderr=log)
    if not benchlib.wait_port(port):
        p.kill()
        raise SystemExit("presignd did not start; log in " + log.name)
    return p, port


def call(port, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        c.request(method, path, body=None if body is None else json.dumps(body).encode(),
                  headers={"X-User-Id": USER, "Content-Type": "application/json"})
        r = c.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        c.close()


def put(url, headers, data):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        c.request("PUT", u.path + "?" + u.query, body=data, headers=headers)
        r = c.getresponse()
        r.read()
        if r.status != 200:
            raise SystemExit(f"PUT to RGW: HTTP {r.status}")
    finally:
        c.close()


def uploaded(port, data, declare):
    """`len(OBJECTS)` objects of `data` issued (declaring its SHA-256 when `declare`) and PUT: their keys."""
    sha = base64.b64encode(hashlib.sha256(data).digest()).decode()
    keys = []
    for _ in range(OBJECTS):
        body = {"contentType": "image/jpeg", "imageKey": str(uuid.uuid4()), "size": len(data)}
        if declare:
            body["checksumSHA256"] = sha
        status, ticket = call(port, "POST", "/presigned-url", body)
        if status != 200:
            raise SystemExit(f"POST /presigned-url: HTTP {status} {ticket}")
        put(ticket["signedUrl"], ticket["headers"], data)
        keys.append(ticket["imageKey"])
    return keys, sha


def confirm_phase(p, port, keys, size, sha):
    """Confirms `keys` CONCURRENCY at a time: MiB/s, CPU ms per MiB, RSS before / highest / after (KiB)."""
    rss = [bench.rss_kib([p.pid])]
    done = threading.Event()

    def sample():
        while not done.wait(0.02):
            rss.append(bench.rss_kib([p.pid]))
    sampler = threading.Thread(target=sample)
    sampler.start()
    before = bench.cpu_ticks(p.pid)
    t0 = time.monotonic()

    def one(key):
        status, record = call(port, "POST", "/images", {"imageKey": key})
        if status != 201 or (sha and record.get("sha256") != sha):
            raise SystemExit(f"POST /images: HTTP {status} {record}")
    with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
        list(pool.map(one, keys))
    wall = time.monotonic() - t0
    cpu_s = (bench.cpu_ticks(p.pid) - before) / bench.CLK_TCK
    done.set()
    sampler.join()
    after = bench.rss_kib([p.pid])
    mib = len(keys) * size / MIB
    return {"objects": len(keys), "object_mib": size / MIB, "mib_per_s": round(mib / wall, 1),
            "cpu_ms_per_mib": round(cpu_s * 1000 / mib, 2), "confirmations_per_s": round(len(keys) / wall, 1),
            "rss_kib_before": rss[0], "rss_kib_max": max(rss), "rss_kib_after": after}


ALL_ISSUE_BODIES = {
    "plain": "",
    "sha256": ',"checksumSHA256":"cRc5reHoWp/hr1Nw2YJb0w3TkSKB80ECoevO7HOqpDU="',
    "checksums": ',"size":1048576,"checksumSHA256":"cRc5reHoWp/hr1Nw2YJb0w3TkSKB80ECoevO7HOqpDU=",'
                 '"contentMD5":"Jl+55GiW2vkDAayLd69RIw=="',
}
# "plain" first, then the bodies compared with it (BENCH_ISSUE_BODIES, comma-separated).
ISSUE_BODIES = [("plain", "")] + [(name, ALL_ISSUE_BODIES[name])
                                  for name in os.environ.get("BENCH_ISSUE_BODIES", "checksums").split(",")
                                  if name != "plain"]


def issue_route(tmp, rgw):
    """wrk on POST /presigned-url without and with declared digests (storage calls off): ISSUE_ROUNDS
    rounds, the order of the bodies turned each round (plain, checksums; checksums, plain; ...), each
    run on a fresh server and database."""
    scripts = {}
    for name, members in ISSUE_BODIES:
        scripts[name] = os.path.join(tmp, f"issue-{name}.lua")
        with open(scripts[name], "w") as f:
            f.write(open(benchlib.write_post_script(tmp)).read().replace(
                """string.upper(uuid()) .. '"}'""", f"""string.upper(uuid()) .. '"{members}}}'"""))
    runs = {name: [] for name, _ in ISSUE_BODIES}
    for r in range(ISSUE_ROUNDS):
        order = [name for name, _ in ISSUE_BODIES]
        shift = r % len(order)
        for name in (order if r % 2 == 0 else order[::-1]) if len(order) == 2 else order[shift:] + order[:shift]:
            p, port = start(tmp, rgw, verify_uploads=False)
            try:
                run = bench.run_wrk(f"http://127.0.0.1:{port}/presigned-url", 64, [p.pid], scripts[name])
            finally:
                p.send_signal(signal.SIGTERM)
                p.wait(timeout=30)
            runs[name].append(run)
            print(json.dumps({"issue": name, "round": r, "run": run}), file=sys.stderr)
    out = {"rounds": ISSUE_ROUNDS, "runs": runs}
    for name, _ in ISSUE_BODIES[1:]:
        ratios = [round(c["rps"] / p["rps"], 3) for p, c in zip(runs["plain"], runs[name])]
        out[f"round_ratios_{name}"] = ratios
        out[f"rps_ratio_{name}_vs_plain"] = round(statistics.median(ratios), 3)
    return out


def main():
    rgw = s3()
    results = {"binary": bench.BIN, "objects": OBJECTS, "concurrency": CONCURRENCY, "confirm": [], "issue": None}
    with tempfile.TemporaryDirectory(prefix="bench-checksum-") as tmp:
        if "confirm" in PARTS:
            p, port = start(tmp, rgw)
            try:
                for size_mib in SIZES_MIB:
                    data = os.urandom(size_mib * MIB)
                    for declare in (False, True):
                        keys, sha = uploaded(port, data, declare)
                        r = confirm_phase(p, port, keys, len(data), sha if declare else None)
                        r["verify"] = "read (checksumSHA256 declared)" if declare else "HEAD only (nothing declared)"
                        results["confirm"].append(r)
                        print(json.dumps(r), file=sys.stderr)
            finally:
                p.send_signal(signal.SIGTERM)
                p.wait(timeout=30)
        if "issue" in PARTS:
            results["issue"] = issue_route(tmp, rgw)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
