#!/usr/bin/env python3
"""The issue-route figure alone, repeated: GET /presigned-url (intents on, SQLite) against nginx static.

BENCH_ROUTE=part measures the Uppy part-URL route instead, GET /s3/multipart/{uploadId}/{n}?key=
(the intent looked up, one UploadPart URL signed): each round creates one upload on the RGW that
scripts/start-s3.sh exports (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET), measures, and
aborts it.

Rounds of: nginx static (wrk -t1 -c64) then presignd's issue route (wrk -t1 -c64), servers pinned to
BENCH_SERVER_CPU and wrk to BENCH_CLIENT_CPU, BENCH_SECONDS per run (default 8), BENCH_ROUNDS rounds
(default 3). Each round uses a fresh presignd (an empty database, as a deployment's first seconds;
the index and the intent table grow during the run). Prints each round's pair and ratio, the
per-thread CPU microseconds per request of presignd (event loop, intent writer), and the median ratio.
Loopback only; every run is bounded in time; the servers started here are stopped here.
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
import urllib.parse

import bench
import benchlib

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
ROUTE = os.environ.get("BENCH_ROUTE", "issue")


def part_route(port):
    """Creates an upload through POST /s3/multipart: the part-URL path to load, and its abort path."""
    status, body = benchlib.http_json(port, "POST", "/s3/multipart",
                                      {"filename": "bench.jpg", "type": "image/jpeg", "metadata": {}})
    if status != 200:
        raise SystemExit(f"POST /s3/multipart answered {status}: {body}")
    q = urllib.parse.quote
    base = f"/s3/multipart/{q(body['uploadId'], safe='')}"
    return f"{base}/1?key={q(body['key'], safe='')}", f"{base}?key={q(body['key'], safe='')}"


def thread_ticks(pid):
    """utime + stime per thread name of a process, in clock ticks."""
    ticks = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])
    return ticks


def stop(process, sig):
    process.send_signal(sig)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main():
    tmp = tempfile.mkdtemp(prefix="presignd-ratio-")
    os.chmod(tmp, 0o755)
    ng, ng_port, ng_pids = bench.start_nginx(tmp)
    rounds = []
    try:
        for r in range(ROUNDS):
            nginx = bench.run_wrk(f"http://127.0.0.1:{ng_port}/healthz", 64, ng_pids)
            run_dir = os.path.join(tmp, f"round{r}")
            os.makedirs(run_dir)
            overrides = benchlib.uppy_env(benchlib.s3_env()) if ROUTE == "part" else None
            ps, ps_port, _ = bench.start_presignd(run_dir, overrides)
            abort_path = None
            try:
                time.sleep(0.3)
                path = "/presigned-url?type=PROFILE&ext=jpg"
                if ROUTE == "part":
                    path, abort_path = part_route(ps_port)
                before = thread_ticks(ps.pid)
                presign = bench.run_wrk(f"http://127.0.0.1:{ps_port}{path}", 64, [ps.pid])
                after = thread_ticks(ps.pid)
            finally:
                if abort_path:
                    benchlib.http_json(ps_port, "DELETE", abort_path)
                stop(ps, signal.SIGTERM)
            per_thread = {
                name: round((after[name] - before.get(name, 0)) / bench.CLK_TCK * 1e6 / presign["requests"], 2)
                for name in after if after[name] > before.get(name, 0) and presign["requests"]
            }
            rounds.append({
                "nginx_static_rps": nginx["rps"], "nginx_cpu_us": round(nginx["cpu_us_per_req"], 2),
                "presign_rps": presign["rps"], "presign_cpu_us": round(presign["cpu_us_per_req"], 2),
                "presign_p50_ms": presign["p50_ms"], "presign_p99_ms": presign["p99_ms"],
                "presign_rss_kib": presign["rss_kib"], "presign_non2xx": presign["non2xx"],
                "route": ROUTE, "ratio": round(presign["rps"] / nginx["rps"], 3), "presign_cpu_us_by_thread": per_thread,
            })
            print(json.dumps(rounds[-1]), flush=True)
    finally:
        stop(ng, signal.SIGQUIT)
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps({"rounds": len(rounds), "median_ratio": statistics.median(r["ratio"] for r in rounds),
                      "min_ratio": min(r["ratio"] for r in rounds), "max_ratio": max(r["ratio"] for r in rounds)}))


if __name__ == "__main__":
    main()
