#!/usr/bin/env python3
"""Side-by-side benchmark of presignd and nginx on one pinned core.

Runs presignd (release build) pinned to CPU 0 and wrk pinned to CPU 1 against a static route
(/healthz) and the presign route, and, in the same run, nginx (one worker, pinned to CPU 0) serving
the same bytes. Prints requests/s, p50/p99 latency, server CPU microseconds per request and RSS for
both, and the ratios. Also: idle RSS, RSS growth with 10,000 idle keep-alive connections while new
clients are answered, and start-up time to the first accepted connection.

Every load is bounded in time and targets 127.0.0.1 only. Run through Benchmarks/run.sh.
"""
import json
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import time

from benchlib import free_port, parse_latency, wait_port, scratch_dir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BENCH_BINARY") or os.path.join(ROOT, ".build", "release", "presignd")
DURATION = int(os.environ.get("BENCH_SECONDS", "10"))
SERVER_CPU = os.environ.get("BENCH_SERVER_CPU", "0")
CLIENT_CPU = os.environ.get("BENCH_CLIENT_CPU", "1")
BODY = b'{"status":"ok"}'
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid):
    """utime + stime of a process and all its threads, in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def rss_kib(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def run_wrk(url, conns, pids, script=None):
    """wrk against `url`; `script` is a Lua file (requests with bodies, e.g. benchlib.write_post_script)."""
    before = sum(cpu_ticks(p) for p in pids)
    extra = ["-s", script] if script else []
    out = subprocess.run(
        ["taskset", "-c", CLIENT_CPU, "wrk", "-t1", f"-c{conns}", f"-d{DURATION}s", "--latency"] + extra + [url],
        capture_output=True, text=True, timeout=DURATION + 30).stdout
    after = sum(cpu_ticks(p) for p in pids)
    m = re.search(r"(\d+) requests in", out)
    reqs = int(m.group(1)) if m else 0
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    cpu_us = (after - before) / CLK_TCK * 1e6 / reqs if reqs else float("nan")
    return {
        "rps": rps, "p50_ms": parse_latency(out, "50"), "p99_ms": parse_latency(out, "99"),
        "cpu_us_per_req": cpu_us, "rss_kib": rss_kib(pids), "requests": reqs,
        "non2xx": int(non2xx.group(1)) if non2xx else 0, "socket_errors": errors.group(1) if errors else "",
    }


def start_nginx(tmp):
    port = free_port()
    www = os.path.join(tmp, "www")
    os.makedirs(www, exist_ok=True)
    os.chmod(www, 0o755)
    with open(os.path.join(www, "healthz"), "wb") as f:
        f.write(BODY)
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""
worker_processes 1;
worker_cpu_affinity 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log;
events {{ worker_connections 20000; }}
http {{
  access_log {tmp}/nginx-access.log;
  keepalive_requests 1000000;
  client_body_temp_path {tmp}/body; proxy_temp_path {tmp}/proxy; fastcgi_temp_path {tmp}/fcgi;
  uwsgi_temp_path {tmp}/uwsgi; scgi_temp_path {tmp}/scgi;
  server {{
    listen 127.0.0.1:{port};
    location = /healthz {{ root {www}; default_type application/json; }}
  }}
}}
""")
    p = subprocess.Popen(["taskset", "-c", SERVER_CPU, "nginx", "-c", conf, "-p", tmp],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_port(port):
        p.kill()
        raise SystemExit("nginx did not start")
    time.sleep(0.3)
    # the master and its single worker
    pids = [p.pid] + [int(x) for x in subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()]
    return p, port, pids


def presignd_env(tmp, port):
    env = {
        "PATH": "/usr/bin:/bin",
        "PRESIGN_SERVER_PORT": str(port),
        "PRESIGN_SERVER_EVENT_LOOPS": "1",
        "PRESIGN_SERVER_MAX_CONNECTIONS": "20000",
        "PRESIGN_S3_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "PRESIGN_S3_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "PRESIGN_S3_ENDPOINT": "http://127.0.0.1:9",
        "PRESIGN_RECORDS_URL": f"sqlite:{tmp}/presignd.sqlite3",
        "PRESIGN_LOG_ACCESS_LOG": os.environ.get("BENCH_ACCESS_LOG", "true"),
        # One user from one address at full speed: the per-user and per-address limits would answer 429.
        "PRESIGN_LIMITS_ENABLED": "false",
    }
    return env


def start_presignd(tmp, env_overrides=None):
    """presignd pinned to SERVER_CPU; `env_overrides` changes presignd_env's settings (None removes one)."""
    port = free_port()
    env = presignd_env(tmp, port)
    for k, v in (env_overrides or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    logf = open(os.path.join(tmp, "presignd.log"), "wb")
    t0 = time.monotonic()
    p = subprocess.Popen(["taskset", "-c", SERVER_CPU, BIN], env=env, stdout=logf, stderr=logf)
    if not wait_port(port):
        p.kill()
        raise SystemExit("presignd did not start; log in " + tmp)
    startup_ms = (time.monotonic() - t0) * 1000
    return p, port, startup_ms


def hold_idle(port, n, pids):
    """Opens n keep-alive connections, one request each; returns (rss growth KiB, fresh client ok)."""
    rss0 = rss_kib(pids)
    socks = []
    req = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
    for i in range(n):
        s = socket.socket()
        s.setblocking(True)
        s.settimeout(5)
        s.connect(("127.0.0.1", port))
        s.sendall(req)
        socks.append(s)
    ok = 0
    for s in socks:
        try:
            data = s.recv(4096)
            if data.startswith(b"HTTP/1.1 200"):
                ok += 1
        except OSError:
            pass
    time.sleep(0.5)
    rss1 = rss_kib(pids)
    fresh = socket.create_connection(("127.0.0.1", port), timeout=2)
    t = time.monotonic()
    fresh.sendall(req)
    fresh_ok = fresh.recv(4096).startswith(b"HTTP/1.1 200")
    fresh_ms = (time.monotonic() - t) * 1000
    fresh.close()
    for s in socks:
        s.close()
    return {"connections": n, "answered": ok, "rss_before_kib": rss0, "rss_after_kib": rss1,
            "growth_kib": rss1 - rss0, "fresh_client_ok": fresh_ok, "fresh_client_ms": round(fresh_ms, 2)}


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    tmp = scratch_dir("presignd-bench-")
    os.chmod(tmp, 0o755)  # nginx's worker runs as an unprivileged user and must read the file
    results = {"duration_s": DURATION, "server_cpu": SERVER_CPU, "client_cpu": CLIENT_CPU}
    ng, ng_port, ng_pids = start_nginx(tmp)
    ps, ps_port, startup_ms = start_presignd(tmp)
    try:
        time.sleep(0.5)
        results["presignd_idle_rss_kib"] = rss_kib([ps.pid])
        results["presignd_startup_ms"] = round(startup_ms, 1)
        presign_url = f"http://127.0.0.1:{ps_port}/presigned-url?type=PROFILE&ext=jpg"
        for conns in (64, 256):
            results[f"nginx_static_c{conns}"] = run_wrk(f"http://127.0.0.1:{ng_port}/healthz", conns, ng_pids)
            results[f"presignd_static_c{conns}"] = run_wrk(f"http://127.0.0.1:{ps_port}/healthz", conns, [ps.pid])
        results["presignd_presign_c64"] = run_wrk(presign_url, 64, [ps.pid])
        for conns in (64, 256):
            results[f"ratio_static_c{conns}"] = round(
                results[f"presignd_static_c{conns}"]["rps"] / results[f"nginx_static_c{conns}"]["rps"], 3)
        results["ratio_presign_c64_vs_nginx_static"] = round(
            results["presignd_presign_c64"]["rps"] / results["nginx_static_c64"]["rps"], 3)
        if os.environ.get("BENCH_IDLE", "1") == "1":
            results["presignd_idle_10k"] = hold_idle(ps_port, 10000, [ps.pid])
    finally:
        ps.send_signal(signal.SIGTERM)
        try:
            ps.wait(timeout=15)
        except subprocess.TimeoutExpired:
            ps.kill()
        ng.send_signal(signal.SIGQUIT)
        try:
            ng.wait(timeout=10)
        except subprocess.TimeoutExpired:
            ng.kill()
    bad = [k for k, v in results.items() if isinstance(v, dict) and v.get("non2xx")]
    if bad:
        results["invalid_runs_with_errors"] = bad
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
