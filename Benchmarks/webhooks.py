#!/usr/bin/env python3
"""The issue and confirm routes with webhooks on against off (issue 38: delivery is off the request path).

One release binary, run in alternating rounds with webhooks off and on (an endpoint that wants every
event: a local receiver answering 204, or BENCH_RECEIVER=slow one that takes 2 s per request, or =down
a port where nothing listens). Each run is the store benchmark of Benchmarks/bench_records.py:
presignd pinned to CPU 0 (one event loop, storage unchecked: `s3.verifyUploads=false`), wrk and the
receiver (this process) pinned to CPU 1, wrk with 64 connections; phase 1 issues client-B URLs (POST /presigned-url), phase 2 confirms them
(POST /images, one upload.completed written per record in the group commit's transaction). Reports
each phase's requests per second, p50 and p99, the server's CPU (user + system) per confirmation, and
on/off ratios per store (SQLite; PostgreSQL too when PRESIGN_TEST_POSTGRES_URL is set). With the
receiver answering, each "on" run also reports the events received while the confirmations ran and how
long after them the last record's event arrived (the senders run at nice 10: on a saturated CPU they
yield to the request path and catch up afterwards).

  BENCH_SECONDS=8 (each wrk run), BENCH_ROUNDS=3 (on/off pairs), BENCH_RECEIVER=ok|slow|down,
  BENCH_STORES=sqlite,postgres (those of them that are available), BENCH_BINARY (default
  .build/release/presignd).

Loopback only; every process it starts is stopped by its PID. Smoke run: BENCH_SECONDS=2 BENCH_ROUNDS=1.
"""
import http.server
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_records import CLIENT_CPU, CONFIRM_LUA, ISSUE_LUA, postgres_url, start, stop, wrk  # noqa: E402
from benchlib import free_port, scratch_dir  # noqa: E402

SECONDS = int(os.environ.get("BENCH_SECONDS", "8"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
RECEIVER = os.environ.get("BENCH_RECEIVER", "ok")
DRAIN_LIMIT = 300
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


class Receiver(http.server.BaseHTTPRequestHandler):
    """Reads each delivery and answers 204 (after 2 s when slow) on a kept-alive HTTP/1.1 connection, as
    a receiver behind any web framework does; counts them."""
    protocol_version = "HTTP/1.1"
    received = 0
    lock = threading.Lock()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if RECEIVER == "slow":
            time.sleep(2)
        with Receiver.lock:
            Receiver.received += 1
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def receiver_url():
    """The endpoint's URL: a threaded receiver on loopback, or a port where nothing listens."""
    port = free_port()
    if RECEIVER != "down":
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{port}/webhooks"


def cpu_ticks(pid):
    """The process's user and system CPU so far, in clock ticks (/proc/PID/stat)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


def run(records_url, url):
    """One run: issue then confirm, webhooks to `url` (None: off). With a receiver, also the events it
    received while the confirmations ran and the seconds after them until every record's event arrived
    (at most DRAIN_LIMIT)."""
    extra = {"PRESIGN_RECORDS_GROUP_COMMIT_MAX_BATCH": "256"}
    if url:
        extra.update({"PRESIGN_WEBHOOKS_URL": url, "PRESIGN_WEBHOOKS_SECRET": SECRET})
    p, port = start(records_url, extra)
    drain = None
    try:
        issued = wrk(port, ISSUE_LUA, SECONDS)
        time.sleep(1)
        received_before = Receiver.received
        user0, sys0 = cpu_ticks(p.pid)
        confirmed = wrk(port, CONFIRM_LUA, SECONDS)
        user1, sys1 = cpu_ticks(p.pid)
        during = Receiver.received - received_before
        created = min(confirmed["requests"] - confirmed["non2xx"], issued["requests"])
        if url and RECEIVER == "ok":
            started = time.time()
            while Receiver.received - received_before < created and time.time() - started < DRAIN_LIMIT:
                time.sleep(0.05)
            drain = {"received_during_load": during, "received": Receiver.received - received_before,
                     "seconds_after_load": round(time.time() - started, 2)}
        if p.poll() is not None:
            raise SystemExit("presignd exited; log: " + open(p.logfile).read()[-2000:])
    finally:
        stop(p)
    if issued["non2xx"]:
        raise SystemExit(f"{issued['non2xx']} issue requests failed")
    tick = os.sysconf("SC_CLK_TCK")
    out = {"issue_per_s": round(issued["requests"] / issued["seconds"]), "issue_p99_ms": issued["p99_ms"],
           "confirm_per_s": round(created / confirmed["seconds"]), "confirm_p50_ms": confirmed["p50_ms"],
           "confirm_p99_ms": confirmed["p99_ms"], "confirm_non2xx": confirmed["non2xx"],
           "confirm_cpu_us": round(((user1 - user0) + (sys1 - sys0)) / tick / max(1, created) * 1e6, 1)}
    if drain:
        out["deliveries"] = drain
    return out


def fresh_url(store):
    if store == "sqlite":
        return f"sqlite:{scratch_dir('presignd-bench-wh-')}/p.sqlite3"
    return postgres_url()


def main():
    # The receiver stands for the app's backend on another machine: it runs in this process, kept on
    # the client's CPU beside wrk so that it never takes the pinned server's CPU.
    os.sched_setaffinity(0, {int(CLIENT_CPU)})
    url = receiver_url()
    stores = ["sqlite"] + (["postgres"] if os.environ.get("PRESIGN_TEST_POSTGRES_URL") else [])
    stores = [s for s in stores if s in os.environ.get("BENCH_STORES", "sqlite,postgres").split(",")]
    out = {"receiver": RECEIVER, "seconds": SECONDS, "rounds": ROUNDS, "stores": {}}
    for store in stores:
        runs = {"off": [], "on": []}
        for _ in range(ROUNDS):
            for mode in ("off", "on"):
                runs[mode].append(run(fresh_url(store), url if mode == "on" else None))
        summary = {}
        for key in ("issue_per_s", "confirm_per_s", "confirm_cpu_us"):
            off = statistics.median(r[key] for r in runs["off"])
            on = statistics.median(r[key] for r in runs["on"])
            summary[key] = {"off": off, "on": on, "on_over_off": round(on / off, 3) if off else None}
        out["stores"][store] = {"summary": summary, "runs": runs}
    out["deliveries_received"] = Receiver.received
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
