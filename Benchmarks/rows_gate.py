#!/usr/bin/env python3
"""Issue 35's speed gate for SQLite intents as rows: the build before (OLD_BINARY) against this one
(NEW_BINARY), in alternating runs on the same machine, pinned as the other benchmarks.

Per round, each build in turn (the order flips every round, so a noisy moment hits one round, not one
build), every case on a fresh server with a fresh SQLite file (default configuration, rate limits off,
one event loop, access log on), pinned to BENCH_SERVER_CPU (0), wrk -t1 pinned to BENCH_CLIENT_CPU (1),
BENCH_SECONDS (60) each:
  - `GET /presigned-url?type=PROFILE&ext=jpg` at each of BENCH_CONNS ("64 256") connections;
  - client B's `POST /presigned-url` with a fresh random UUID as `imageKey` per request
    (benchlib.write_post_script) at BENCH_POST_CONNS (64).
Then, for the new build (and the old one with BENCH_RSS_OLD=1), the memory and start-up case: a fresh
server's RSS once it answered one request (idle), the issue route driven by wrk until
`presignd_intents_stored_total` reaches BENCH_RSS_INTENTS (2,000,000; URLs live 600 s, so every one is
still live), RSS 2 s after the load stopped, then a new server on the same file: the time from exec to
its first accepted connection, and its RSS.

The gate (issue 35): GET >= 0.85 x the old build's req/s at every connection count and POST >= 0.6 x,
both as medians over the rounds, with no non-2xx answer and no socket error in any run; RSS after the
intents within 16 MiB of idle; start-up with them under 1 s. Prints one JSON object and a PASS or FAIL
line per check; exits 1 when a check fails.

  git worktree add /work/wt-base 0a9c255 && (cd /work/wt-base && swift build -c release --product presignd)
  swift build -c release --product presignd
  python3 Benchmarks/rows_gate.py          # OLD_BINARY=/work/wt-base/.build/release/presignd by default

Smoke test: BENCH_SECONDS=3 BENCH_ROUNDS=1 BENCH_RSS_INTENTS=20000 python3 Benchmarks/rows_gate.py
Loopback only; every load is bounded in time; the servers started here are stopped here.
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import bench
import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OLD = os.environ.get("OLD_BINARY", "/work/wt-base/.build/release/presignd")
NEW = os.environ.get("NEW_BINARY", os.path.join(ROOT, ".build", "release", "presignd"))
bench.DURATION = int(os.environ.get("BENCH_SECONDS", "60"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
CONNS = [int(c) for c in os.environ.get("BENCH_CONNS", "64 256").split()]
POST_CONNS = int(os.environ.get("BENCH_POST_CONNS", "64"))
RSS_INTENTS = int(os.environ.get("BENCH_RSS_INTENTS", "2000000"))
RSS_OLD = os.environ.get("BENCH_RSS_OLD", "0") == "1"
MAX_FILL_SECONDS = float(os.environ.get("BENCH_MAX_SECONDS", "500"))
ISSUE_PATH = "/presigned-url?type=PROFILE&ext=jpg"
GATE = {"get_ratio": 0.85, "post_ratio": 0.6, "rss_growth_kib": 16 * 1024, "startup_ms": 1000.0}


def stop(process, timeout=30):
    """SIGTERM, then SIGKILL after `timeout` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def request(port, method, path, body=None):
    """Status of one request to the server."""
    data = body.encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def metric(port, name):
    """One counter of /metrics (0 when absent)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return 0.0


def start(binary, directory, env=None):
    """A server of `binary` on a SQLite file in `directory` (made when missing): (process, port, ms)."""
    os.makedirs(directory, exist_ok=True)
    bench.BIN = binary
    return bench.start_presignd(directory, env or {})


def run_case(binary, tmp, label, case, post_script):
    """One load case on a fresh server of `binary`: wrk's figures."""
    directory = os.path.join(tmp, label)
    ps, port, _ = start(binary, directory)
    try:
        if case == "post":
            first = request(port, "POST", "/presigned-url", '{"contentType":"image/jpeg","imageKey":"'
                            + "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a" + '"}')
            if first != 200:
                raise SystemExit(f"{label}: POST /presigned-url answered {first}; log in {directory}")
            return bench.run_wrk(f"http://127.0.0.1:{port}/presigned-url", POST_CONNS, [ps.pid], script=post_script)
        first = request(port, "GET", ISSUE_PATH)
        if first != 200:
            raise SystemExit(f"{label}: the issue route answered {first}; log in {directory}")
        return bench.run_wrk(f"http://127.0.0.1:{port}{ISSUE_PATH}", case, [ps.pid])
    finally:
        stop(ps)
        shutil.rmtree(directory, ignore_errors=True)


def memory_case(binary, tmp, label):
    """RSS idle and after RSS_INTENTS intents, and the start-up of a server on that file."""
    directory = os.path.join(tmp, label)
    quiet = {"PRESIGN_LOG_ACCESS_LOG": "false"}
    ps, port, _ = start(binary, directory, quiet)
    result = {}
    wrk = None
    try:
        if request(port, "GET", ISSUE_PATH) != 200:
            raise SystemExit(f"{label}: the issue route does not answer 200; log in {directory}")
        time.sleep(1)
        result["idle_rss_kib"] = bench.rss_kib([ps.pid])
        began = time.monotonic()
        wrk = subprocess.Popen(
            ["taskset", "-c", bench.CLIENT_CPU, "wrk", "-t1", "-c64", f"-d{int(MAX_FILL_SECONDS)}s",
             f"http://127.0.0.1:{port}{ISSUE_PATH}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stored = 0.0
        while time.monotonic() - began < MAX_FILL_SECONDS and wrk.poll() is None:
            stored = metric(port, "presignd_intents_stored_total")
            if stored >= RSS_INTENTS:
                break
            time.sleep(0.5)
        stop(wrk)
        wrk = None
        result["fill_seconds"] = round(time.monotonic() - began, 1)
        result["intents_stored"] = int(metric(port, "presignd_intents_stored_total"))
        time.sleep(2)
        result["rss_after_intents_kib"] = bench.rss_kib([ps.pid])
        result["rss_growth_kib"] = result["rss_after_intents_kib"] - result["idle_rss_kib"]
    finally:
        if wrk is not None:
            stop(wrk)
        stop(ps)
    ps, port, startup_ms = start(binary, directory, quiet)
    try:
        result["restart_startup_ms"] = round(startup_ms, 1)
        result["restart_healthz"] = request(port, "GET", "/healthz")
        time.sleep(1)
        result["restart_rss_kib"] = bench.rss_kib([ps.pid])
    finally:
        stop(ps)
        shutil.rmtree(directory, ignore_errors=True)
    return result


def main():
    for binary in (OLD, NEW):
        if not os.path.exists(binary):
            raise SystemExit(f"no presignd binary at {binary} (see this script's docstring)")
    for tool in ("wrk", "taskset"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: SETUP_BENCH=1 bash scripts/setup.sh")
    tmp = tempfile.mkdtemp(prefix="presignd-rows-gate-")
    post_script = benchlib.write_post_script(tmp)
    cases = [c for c in CONNS] + ["post"]
    runs = {"old": {str(c): [] for c in cases}, "new": {str(c): [] for c in cases}}
    order = []
    try:
        for r in range(ROUNDS):
            builds = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            order.append(builds)
            for case in cases:
                for build in builds:
                    binary = OLD if build == "old" else NEW
                    figures = run_case(binary, tmp, f"r{r}-{build}-{case}", case, post_script)
                    figures["load"] = os.getloadavg()[0]
                    runs[build][str(case)].append(figures)
                    print(f"round {r + 1} {build} {case}: {figures['rps']:.0f} req/s, non-2xx {figures['non2xx']}, "
                          f"{figures['cpu_us_per_req']:.1f} us CPU/req", file=sys.stderr)
        memory = {"new": memory_case(NEW, tmp, "memory-new")}
        if RSS_OLD:
            memory["old"] = memory_case(OLD, tmp, "memory-old")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    checks = []
    medians = {}
    for case in cases:
        key = str(case)
        old = statistics.median(f["rps"] for f in runs["old"][key])
        new = statistics.median(f["rps"] for f in runs["new"][key])
        ratio = round(new / old, 3) if old else None
        medians[key] = {"old_rps": old, "new_rps": new, "ratio": ratio}
        bound = GATE["post_ratio"] if case == "post" else GATE["get_ratio"]
        name = "client B POST /presigned-url" if case == "post" else f"GET /presigned-url c={case}"
        checks.append((f"{name}: new/old {ratio} >= {bound}", ratio is not None and ratio >= bound))
        bad = [f for build in ("old", "new") for f in runs[build][key] if f["non2xx"] or f["socket_errors"]
               or not f["requests"]]
        checks.append((f"{name}: every run answered, all 2xx, no socket error", not bad))
    m = memory["new"]
    checks.append((f"new build: {m['intents_stored']} intents stored (asked {RSS_INTENTS})",
                   m["intents_stored"] >= RSS_INTENTS))
    checks.append((f"new build: RSS after the intents {m['rss_growth_kib']} KiB above idle <= {GATE['rss_growth_kib']}",
                   m["rss_growth_kib"] <= GATE["rss_growth_kib"]))
    checks.append((f"new build: start-up with them {m['restart_startup_ms']} ms < {GATE['startup_ms']:.0f}",
                   m["restart_startup_ms"] < GATE["startup_ms"] and m["restart_healthz"] == 200))
    result = {
        "seconds": bench.DURATION, "rounds": ROUNDS, "order": order, "old_binary": OLD, "new_binary": NEW,
        "server_cpu": bench.SERVER_CPU, "client_cpu": bench.CLIENT_CPU, "runs": runs, "medians": medians,
        "memory": memory, "checks": [{"check": c, "passed": ok} for c, ok in checks],
    }
    print(json.dumps(result, indent=1))
    for check, ok in checks:
        print(("PASS " if ok else "FAIL ") + check, file=sys.stderr)
    sys.exit(0 if all(ok for _, ok in checks) else 1)


if __name__ == "__main__":
    main()
