#!/usr/bin/env python3
"""Issue 21's memory figure: presignd's RSS idle and with 1 M live intents, on SQLite.

presignd (BENCH_BINARY, else the release build; default configuration with the rate limits off, one
event loop, SQLite in a fresh directory) is started and its VmRSS read once it listens and has answered
one request (idle). Then `GET /presigned-url?type=PROFILE&ext=jpg` is driven by wrk (c=BENCH_CONNS, 64)
until `presignd_intents_stored_total` on /metrics reaches BENCH_INTENTS (1,000,000), and wrk is stopped;
VmRSS is read again 2 s after the load stopped (with 1 M live intents). Last,
the server is restarted on the same file and VmRSS read once it listens (with the 1 M stored intents;
builds before schema version 10 rebuilt an in-memory index of them there). Every intent counted is a URL answered only after its commit, so the count is the
number of live intents (they expire long after the run).

RSS does not depend on the machine's load, unlike the rate, which is not reported as a figure (the
time taken is printed only to show how long a run takes). Loopback only; bounded by BENCH_MAX_SECONDS
(1800): the script fails if the count is not reached by then. Prints one JSON object. Smoke test:
BENCH_INTENTS=20000.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import bench

INTENTS = int(os.environ.get("BENCH_INTENTS", "1000000"))
CONNS = int(os.environ.get("BENCH_CONNS", "64"))
MAX_SECONDS = float(os.environ.get("BENCH_MAX_SECONDS", "1800"))
ISSUE_PATH = "/presigned-url?type=PROFILE&ext=jpg"


def metrics(port):
    """The counters of /metrics as a dict of name (with labels) to value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                out[name] = float(value)
            except ValueError:
                pass
    return out


def get(port, path):
    """Status of one GET."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def stop(process):
    """SIGTERM, then SIGKILL after 30 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def settle(pid, seconds=1.0):
    """VmRSS after `seconds` of quiet (the answer buffers of the last requests returned)."""
    time.sleep(seconds)
    return bench.rss_kib([pid])


def main():
    if not os.path.exists(bench.BIN):
        raise SystemExit(f"no presignd binary at {bench.BIN}: swift build -c release --product presignd")
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: SETUP_BENCH=1 bash scripts/setup.sh")
    tmp = tempfile.mkdtemp(prefix="presignd-intent-rss-")
    result = {"binary": bench.BIN, "intents_target": INTENTS, "conns": CONNS}
    failures = []
    # Access log off: a million lines on disk say nothing about memory.
    overrides = {"PRESIGN_LOG_ACCESS_LOG": "false"}
    ps, port, _ = bench.start_presignd(tmp, overrides)
    wrk = None
    try:
        if get(port, ISSUE_PATH) != 200:
            raise SystemExit("the issue route does not answer 200; log in " + tmp)
        result["idle_rss_kib"] = settle(ps.pid)
        started = time.monotonic()
        wrk = subprocess.Popen(
            ["taskset", "-c", bench.CLIENT_CPU, "wrk", "-t1", f"-c{CONNS}", f"-d{int(MAX_SECONDS)}s",
             f"http://127.0.0.1:{port}{ISSUE_PATH}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stored = 0.0
        while time.monotonic() - started < MAX_SECONDS:
            stored = metrics(port).get("presignd_intents_stored_total", 0.0)
            if stored >= INTENTS or wrk.poll() is not None:
                break
            time.sleep(0.5)
        stop(wrk)
        wrk = None
        result["load_seconds"] = round(time.monotonic() - started, 1)
        m = metrics(port)
        result["intents_stored"] = int(m.get("presignd_intents_stored_total", 0))
        result["commit_timeouts"] = int(m.get("presignd_intent_commit_timeouts_total", 0))
        result["refused"] = int(m.get("presignd_intents_refused_total", 0))
        if result["intents_stored"] < INTENTS:
            failures.append(f"only {result['intents_stored']} intents stored within {MAX_SECONDS} s")
        result["rss_with_live_intents_kib"] = settle(ps.pid, 2.0)
        result["peak_rss_kib"] = peak_rss_kib(ps.pid)
    finally:
        if wrk is not None:
            stop(wrk)
        stop(ps)
    # The same file, a fresh process (builds before schema version 10 rebuilt an index of the intents).
    ps, port, startup_ms = bench.start_presignd(tmp, overrides)
    try:
        result["restart_startup_ms"] = round(startup_ms, 1)
        if get(port, "/healthz") != 200:
            failures.append("the restarted server does not answer /healthz")
        result["restarted_rss_kib"] = settle(ps.pid)
    finally:
        stop(ps)
        shutil.rmtree(tmp, ignore_errors=True)
    result["failures"] = failures
    print(json.dumps(result, indent=2))
    if failures:
        print("FAILED: " + "; ".join(failures), file=sys.stderr)
        sys.exit(1)


def peak_rss_kib(pid):
    """VmHWM: the most the process held at once."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


if __name__ == "__main__":
    main()
