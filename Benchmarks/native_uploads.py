#!/usr/bin/env python3
"""The native multipart API's costs (issue 39): POST /uploads of a 1 GiB file with every part URL signed
up front, in µs per part, and the server's look at one open upload (the auto-completion pass: one
ListParts and two ledger writes), in CPU ms per open upload.

1. BENCH_CREATES creations of a BENCH_UPLOAD_MIB file (the server's part size: 5 MiB, 205 parts for
   1 GiB), one at a time: the median latency of POST /uploads (CreateMultipartUpload, the ledger, the
   intent, every URL signed) and the same divided by the part count. Each upload is aborted after.
2. BENCH_OPEN open uploads with no parts, looked at every second (multipart.checkEverySeconds = 1, the
   janitor every second, records.janitorBatchSize above BENCH_OPEN): presignd's CPU time
   (/proc/PID/stat) over BENCH_WINDOW seconds with them, minus the same window with none, divided by
   the looks made (BENCH_OPEN per second).

Needs the RGW of scripts/start-s3.sh (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET) and a release
build (Benchmarks/run.sh builds it; BENCH_BINARY overrides the path). Loopback only; the presignd
started here is stopped here.
  BENCH_UPLOAD_MIB=1024 BENCH_CREATES=30 BENCH_OPEN=200 BENCH_WINDOW=20
  (a smoke run: BENCH_CREATES=3 BENCH_OPEN=10 BENCH_WINDOW=3)
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

import bench
import benchlib

UPLOAD_MIB = int(os.environ.get("BENCH_UPLOAD_MIB", "1024"))
CREATES = int(os.environ.get("BENCH_CREATES", "30"))
OPEN = int(os.environ.get("BENCH_OPEN", "200"))
WINDOW = float(os.environ.get("BENCH_WINDOW", "20"))
MIB = 1024 * 1024


def config_file(tmp):
    """A type for large files (the default VIDEO type's limit, 5 GiB)."""
    path = os.path.join(tmp, "bench-types.json")
    with open(path, "w") as f:
        json.dump({"types": {"BENCHVIDEO": {
            "extensions": [], "contentTypes": ["video/mp4"], "keyTemplate": "bench-native/{uuid}",
            "permanentKeyTemplate": "", "maxBytes": 5 * 1024 * MIB, "expiresSeconds": 3600,
            "requiresChatroomId": False}}}, f)
    return path


def cpu_seconds(pid):
    """User + system CPU time of `pid`, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / bench.CLK_TCK


def create(port, size):
    t0 = time.perf_counter()
    status, body = benchlib.http_json(port, "POST", "/uploads",
                                      {"type": "BENCHVIDEO", "contentType": "video/mp4", "size": size}, timeout=120)
    elapsed = time.perf_counter() - t0
    if status != 201:
        raise SystemExit(f"POST /uploads answered {status}: {body}")
    return elapsed, body


def main():
    s3 = benchlib.s3_env()
    tmp = tempfile.mkdtemp(prefix="bench-native-")
    ps = None
    try:
        ps, port, _ = bench.start_presignd(tmp, benchlib.uppy_env(s3, {
            "PRESIGN_CONFIG": config_file(tmp), "PRESIGN_UPPY_ENABLED": "false", "PRESIGN_UPPY_DEFAULT_TYPE": "BENCHVIDEO",
            "PRESIGN_MULTIPART_ENABLED": "true", "PRESIGN_MULTIPART_CHECK_EVERY_SECONDS": "1",
            "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
            "PRESIGN_RECORDS_JANITOR_BATCH_SIZE": str(max(OPEN + 10, 100)),
            "PRESIGN_LIMITS_ENABLED": "false"}))
        size = UPLOAD_MIB * MIB
        latencies = []
        parts = 0
        for _ in range(CREATES):
            elapsed, body = create(port, size)
            latencies.append(elapsed)
            parts = len(body["parts"])
            benchlib.http_json(port, "DELETE", f"/uploads/{body['uploadId']}")
        median = statistics.median(latencies)
        print(json.dumps({"create_upload_mib": UPLOAD_MIB, "parts": parts, "creates": CREATES,
                          "median_ms": round(median * 1000, 2), "median_us_per_part": round(median * 1e6 / parts, 1)}),
              flush=True)

        time.sleep(1.5)
        idle0 = cpu_seconds(ps.pid)
        time.sleep(WINDOW)
        idle = cpu_seconds(ps.pid) - idle0
        ids = [create(port, 6 * MIB)[1]["uploadId"] for _ in range(OPEN)]
        time.sleep(2.0)  # every upload looked at once before the window
        busy0 = cpu_seconds(ps.pid)
        time.sleep(WINDOW)
        busy = cpu_seconds(ps.pid) - busy0
        looks = OPEN * WINDOW  # one look per upload per second
        print(json.dumps({"open_uploads": OPEN, "window_s": WINDOW, "cpu_idle_s": round(idle, 3),
                          "cpu_with_open_s": round(busy, 3),
                          "cpu_ms_per_look": round(max(0.0, busy - idle) * 1000 / looks, 3)}), flush=True)
        for upload_id in ids:
            benchlib.http_json(port, "DELETE", f"/uploads/{upload_id}")
    finally:
        if ps is not None:
            ps.send_signal(signal.SIGTERM)
            try:
                ps.wait(timeout=15)
            except subprocess.TimeoutExpired:
                ps.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
