#!/usr/bin/env python3
"""Issue 21's proof run: the issue route under sustained load, on SQLite and on PostgreSQL, beside nginx.

For each store (BENCH_STORES="sqlite postgres"), presignd (release build, default configuration with
the rate limits off, one event loop) is pinned to BENCH_SERVER_CPU (0) and wrk -t1 to BENCH_CLIENT_CPU
(1). `GET /presigned-url?type=PROFILE&ext=jpg` is driven for BENCH_SECONDS (60) at each of BENCH_CONNS
("64 256"); in the same run nginx (one worker, pinned the same way) serves a static file as large as
one answer of that route, at the same connection counts. Reported per case: req/s, non-2xx answers,
socket errors, p50/p99, server CPU microseconds per request, RSS (idle before the runs and after each),
and the ratios to nginx; issue 21's targets (SQLite >= 0.9 x nginx with 0 non-2xx and p99 <= 5 ms at
c=256; PostgreSQL >= 0.6 x nginx with 0 non-2xx) are checked and printed beside them.

Every answer must be a 2xx: a run with any non-2xx answer (wrk's "Non-2xx or 3xx responses") or any
socket error fails the script loudly (exit 1, after printing the figures), since a 503 is a URL that
was not issued and would flatter the rate.

PostgreSQL: BENCH_POSTGRES_URL, else PRESIGN_TEST_POSTGRES_URL (scripts/start-postgres.sh); each run
gets a fresh schema, dropped afterwards. Loopback only; every load is bounded in time; the servers
started here are stopped here. Prints one JSON object. Smoke test: BENCH_SECONDS=3 BENCH_CONNS=64.
BENCH_PRESIGND_ENV ("NAME=value ...") adds settings to presignd's environment, for an A/B of one setting.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid

import bench

# The issue's proof run is sustained: 60 s per case unless BENCH_SECONDS says otherwise (bench.py's own
# default, 10 s, is for its short static-route runs).
bench.DURATION = int(os.environ.get("BENCH_SECONDS", "60"))
STORES = os.environ.get("BENCH_STORES", "sqlite postgres").split()
CONNS = [int(c) for c in os.environ.get("BENCH_CONNS", "64 256").split()]
ISSUE_PATH = "/presigned-url?type=PROFILE&ext=jpg"
TARGETS = {"sqlite": {"ratio": 0.9, "p99_ms_at_256": 5.0}, "postgres": {"ratio": 0.6, "p99_ms_at_256": None}}


def postgres_url():
    """The base PostgreSQL URL, or exit saying how to get one."""
    url = os.environ.get("BENCH_POSTGRES_URL") or os.environ.get("PRESIGN_TEST_POSTGRES_URL")
    if not url:
        raise SystemExit("no PostgreSQL: eval \"$(bash scripts/start-postgres.sh)\" or set BENCH_POSTGRES_URL")
    return url


def psql(url, sql):
    """Runs `sql` on `url` with psql (fails loudly)."""
    subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qc", sql], check=True, capture_output=True, timeout=30)


def fresh_schema(url):
    """A new schema on `url` and the URL that uses it: (schema, url)."""
    schema = "bench_" + uuid.uuid4().hex[:12]
    psql(url, f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in url else "?"
    return schema, url + sep + "options=" + urllib.parse.quote(f"-csearch_path={schema}")


def one_answer(port):
    """One answer of the issue route: (status, body bytes)."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{ISSUE_PATH}")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def stop(process):
    """SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_store(store, tmp, failures):
    """The runs of one store; appends what failed to `failures`."""
    # BENCH_PRESIGND_ENV: "NAME=value ..." settings added to the default configuration (an A/B of one
    # setting, e.g. PRESIGN_RECORDS_INTENT_WRITER_LANES=1).
    overrides = dict(item.split("=", 1) for item in os.environ.get("BENCH_PRESIGND_ENV", "").split())
    schema = None
    base = None
    if store == "postgres":
        base = postgres_url()
        schema, url = fresh_schema(base)
        overrides["PRESIGN_RECORDS_URL"] = url
    work = os.path.join(tmp, store)
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    ps, port, startup_ms = bench.start_presignd(work, overrides)
    ng = None
    try:
        status, body = one_answer(port)
        if status != 200:
            failures.append(f"{store}: the issue route answered {status}: {body[:200]!r}")
            return {"first_answer_status": status}
        # nginx serves a file as large as one answer (bench.start_nginx serves BODY as /healthz).
        bench.BODY = body
        ng, ng_port, ng_pids = bench.start_nginx(work)
        result = {"answer_bytes": len(body), "startup_ms": round(startup_ms, 1),
                  "idle_rss_kib": bench.rss_kib([ps.pid])}
        for conns in CONNS:
            nginx = bench.run_wrk(f"http://127.0.0.1:{ng_port}/healthz", conns, ng_pids)
            presignd = bench.run_wrk(f"http://127.0.0.1:{port}{ISSUE_PATH}", conns, [ps.pid])
            ratio = round(presignd["rps"] / nginx["rps"], 3) if nginx["rps"] else None
            target = TARGETS[store]
            case = {"nginx": nginx, "presignd": presignd, "ratio": ratio, "target_ratio": target["ratio"],
                    "meets_ratio": ratio is not None and ratio >= target["ratio"]}
            if conns == 256 and target["p99_ms_at_256"] is not None:
                case["target_p99_ms"] = target["p99_ms_at_256"]
                case["meets_p99"] = presignd["p99_ms"] is not None and presignd["p99_ms"] <= target["p99_ms_at_256"]
            result[f"c{conns}"] = case
            for who, figures in (("presignd", presignd), ("nginx", nginx)):
                if figures["non2xx"]:
                    failures.append(f"{store} c={conns}: {who} answered {figures['non2xx']} non-2xx")
                if figures["socket_errors"]:
                    failures.append(f"{store} c={conns}: {who} socket errors: {figures['socket_errors']}")
                if not figures["requests"]:
                    failures.append(f"{store} c={conns}: {who} answered nothing")
        result["rss_after_kib"] = bench.rss_kib([ps.pid])
        return result
    finally:
        stop(ps)
        if ng is not None:
            stop(ng)
        if schema is not None:
            psql(base, f"DROP SCHEMA {schema} CASCADE")


def main():
    if not os.path.exists(bench.BIN):
        raise SystemExit(f"no presignd binary at {bench.BIN}: swift build -c release --product presignd")
    for tool in ("wrk", "nginx", "taskset"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: SETUP_BENCH=1 bash scripts/setup.sh")
    tmp = tempfile.mkdtemp(prefix="presignd-intent-bench-")
    os.chmod(tmp, 0o755)  # nginx's worker runs as an unprivileged user and must read the file
    failures = []
    results = {"seconds": bench.DURATION, "server_cpu": bench.SERVER_CPU, "client_cpu": bench.CLIENT_CPU,
               "binary": bench.BIN, "stores": {}}
    try:
        for store in STORES:
            results["stores"][store] = run_store(store, tmp, failures)
    finally:
        results["failures"] = failures
        print(json.dumps(results, indent=2))
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("FAILED: " + "; ".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
