#!/usr/bin/env python3
"""presignd pinned to ONE CPU with server.eventLoops left at its default, against nginx pinned the same way.

The default number of event loops counts the CPUs the process may use (affinity mask, cgroup quota;
docs/operations.md), so under `taskset -c BENCH_SERVER_CPU` presignd should start one loop and match the
one-loop figures of bench.py. For contrast, the same presignd is also run with one loop per online CPU
of the host (`PRESIGN_SERVER_EVENT_LOOPS` = os.cpu_count(), what the default used to be), all of them on
that one CPU. wrk -t1 pinned to BENCH_CLIENT_CPU; BENCH_SECONDS per run.

Knobs: BENCH_CONNS="64 256" (static route), BENCH_ROUTES="static presign" (presign: the issue route at
64 connections), BENCH_PER_CORE=1 (0 skips the one-loop-per-host-CPU contrast). Prints one JSON object:
per case the loops' count and source from presignd's start-up log, the live loop threads, and wrk's
figures; and the ratios to nginx. Loopback only; every run is bounded in time; the servers started here
are stopped here.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import bench

CONNS = [int(c) for c in os.environ.get("BENCH_CONNS", "64 256").split()]
ROUTES = os.environ.get("BENCH_ROUTES", "static presign").split()
PER_CORE = os.environ.get("BENCH_PER_CORE", "1") == "1"


def event_loops_line(log_path, process, timeout=15.0):
    """presignd's `"msg":"event loops"` start-up line as a dict (None if it did not come in time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with open(log_path, "rb") as f:
            for line in f:
                if b'"msg":"event loops"' in line:
                    return json.loads(line)
        time.sleep(0.01)
    return None


def thread_names(pid):
    """The names of the process's threads other than its main one."""
    names = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        if tid == str(pid):
            continue
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return names


def loop_threads(pid, timeout=5.0):
    """How many of the process's threads are event loops (presignd-loopN), once every thread has named
    itself (a new thread carries the process's name until then)."""
    deadline = time.monotonic() + timeout
    names = thread_names(pid)
    while "presignd" in names and time.monotonic() < deadline:
        time.sleep(0.01)
        names = thread_names(pid)
    return sum(n.startswith("presignd-loop") for n in names)


def stop(process, sig):
    process.send_signal(sig)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_presignd(tmp, name, overrides):
    run_dir = os.path.join(tmp, name)
    os.makedirs(run_dir)
    ps, port, _ = bench.start_presignd(run_dir, overrides)
    result = {}
    try:
        line = event_loops_line(os.path.join(run_dir, "presignd.log"), ps)
        result["event_loops"] = {"count": line.get("count"), "source": line.get("source")} if line else None
        result["loop_threads"] = loop_threads(ps.pid)
        if "static" in ROUTES:
            for c in CONNS:
                result[f"static_c{c}"] = bench.run_wrk(f"http://127.0.0.1:{port}/healthz", c, [ps.pid])
        if "presign" in ROUTES:
            result["presign_c64"] = bench.run_wrk(
                f"http://127.0.0.1:{port}/presigned-url?type=PROFILE&ext=jpg", 64, [ps.pid])
    finally:
        stop(ps, signal.SIGTERM)
    return result


def add_ratios(case, nginx):
    """`case` with its requests/s over nginx's static route at the same connections (the issue route
    over nginx at 64)."""
    ratios = {}
    for key, run in case.items():
        if key.startswith("static_c") and key in nginx:
            ratios[f"ratio_{key}"] = round(run["rps"] / nginx[key]["rps"], 3)
        if key == "presign_c64" and "static_c64" in nginx:
            ratios["ratio_presign_c64_vs_nginx_static"] = round(run["rps"] / nginx["static_c64"]["rps"], 3)
    return {**case, **ratios}


def main():
    tmp = tempfile.mkdtemp(prefix="presignd-pinned-")
    os.chmod(tmp, 0o755)  # nginx's worker runs as an unprivileged user and must read the file
    results = {"duration_s": bench.DURATION, "server_cpu": bench.SERVER_CPU, "client_cpu": bench.CLIENT_CPU,
               "host_cpus": os.cpu_count()}
    ng, ng_port, ng_pids = bench.start_nginx(tmp)
    try:
        nginx = {}
        if "static" in ROUTES or "presign" in ROUTES:
            for c in sorted(set(CONNS + ([64] if "presign" in ROUTES else []))):
                nginx[f"static_c{c}"] = bench.run_wrk(f"http://127.0.0.1:{ng_port}/healthz", c, ng_pids)
        results["nginx"] = nginx
        cases = {"default": {"PRESIGN_SERVER_EVENT_LOOPS": None}}
        if PER_CORE:
            cases["one_loop_per_host_cpu"] = {"PRESIGN_SERVER_EVENT_LOOPS": str(os.cpu_count())}
        for name, overrides in cases.items():
            results[name] = add_ratios(run_presignd(tmp, name, overrides), nginx)
    finally:
        stop(ng, signal.SIGQUIT)
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
