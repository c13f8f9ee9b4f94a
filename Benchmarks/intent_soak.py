#!/usr/bin/env python3
"""Sustained issuing with the janitor running: does SQLite's intents table stay bounded?

Starts presignd (BENCH_BINARY, default .build/release/presignd) with 1 s PROFILE URLs and a 1 s janitor,
then issues SOAK_RATE URLs/s (default 600) over one keep-alive connection for SOAK_SECONDS (default
470: past the janitor's 5 min grace). Every 20 s it prints the rows of `intents` (read from the file
with a read-only connection beside the server) and the writer's queue from /metrics; at the end, the
rows left. Expected: the rows level off near rate x (1 s + 300 s grace + janitor interval). Loopback
only; bounded in time; stops the server it started.
"""
import http.client
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

from benchlib import free_port, wait_port, scratch_dir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BENCH_BINARY") or os.path.join(ROOT, ".build", "release", "presignd")
RATE = float(os.environ.get("SOAK_RATE", "600"))
SECONDS = float(os.environ.get("SOAK_SECONDS", "470"))


def gauge(body, name):
    return int(re.search(rf"^{name} (\d+)", body, re.M).group(1))


def main():
    tmp = scratch_dir("presignd-soak-")
    with open(os.path.join(ROOT, "config", "presignd.json")) as f:
        config = json.load(f)
    config["types"]["PROFILE"]["expiresSeconds"] = 1
    config["records"]["janitorIntervalMs"] = 1000
    config["records"]["url"] = f"sqlite:{tmp}/presignd.sqlite3"
    with open(os.path.join(tmp, "config.json"), "w") as f:
        json.dump(config, f)
    port = free_port()
    env = {"PATH": "/usr/bin:/bin", "PRESIGN_SERVER_PORT": str(port), "PRESIGN_LIMITS_ENABLED": "false",
           "PRESIGN_S3_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE", "PRESIGN_S3_SECRET_ACCESS_KEY": "soak",
           "PRESIGN_LOG_ACCESS_LOG": "false"}
    server = subprocess.Popen([BIN, "--config", os.path.join(tmp, "config.json")], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_port(port):
            sys.exit("presignd did not start")
        issue = http.client.HTTPConnection("127.0.0.1", port)
        metrics = http.client.HTTPConnection("127.0.0.1", port)
        start = time.time()
        due = start
        issued = 0
        last_report = -20.0
        peak = 0
        db = sqlite3.connect(f"file:{tmp}/presignd.sqlite3?mode=ro", uri=True)
        while time.time() - start < SECONDS:
            for _ in range(10):
                issue.request("GET", "/presigned-url?type=PROFILE&ext=jpg")
                response = issue.getresponse()
                response.read()
                if response.status != 200:
                    sys.exit(f"issue answered {response.status}")
                issued += 1
            due += 10 / RATE
            time.sleep(max(0.0, due - time.time()))
            if time.time() - start - last_report >= 20:
                last_report = time.time() - start
                metrics.request("GET", "/metrics")
                body = metrics.getresponse().read().decode()
                rows = db.execute("SELECT COUNT(*) FROM intents").fetchone()[0]
                peak = max(peak, rows)
                print(f"t={last_report:5.0f}s issued={issued} rows={rows} "
                      f"pending={gauge(body, 'presignd_intents_pending')}", flush=True)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    db = sqlite3.connect(f"file:{tmp}/presignd.sqlite3?mode=ro", uri=True)
    rows = db.execute("SELECT COUNT(*) FROM intents").fetchone()[0]
    print(json.dumps({"issued": issued, "peak_rows": peak, "rows_left": rows}))


if __name__ == "__main__":
    main()
