#!/usr/bin/env python3
"""A large upload through the Uppy routes against `aws s3 cp`, same RGW, same part size and concurrency.

presignd side (a small Uppy-like client, here): POST /s3/multipart, GET .../batch for the part URLs,
PUT BENCH_CONCURRENCY parts at a time straight to RGW (threads, one connection each), then POST
.../complete (ListParts, CompleteMultipartUpload, HEAD, the record). awscli side: `aws s3 cp` of the
same file with `multipart_chunksize` = the part size and `max_concurrent_requests` = the concurrency,
set with `aws configure set` in a config file of its own (AWS_CONFIG_FILE; the user's is untouched).
awscli is installed from PyPI (pip) when missing. Prints both wall times and the ratio
presignd/awscli (below 1: presignd's path is faster). Rounds alternate the order.

Needs the RGW that scripts/start-s3.sh exports (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY,
S3_BUCKET) and a release build (Benchmarks/run.sh builds it). Loopback only; bounded in time; the
presignd started here is stopped here.
  BENCH_UPLOAD_MIB=256  BENCH_PART_MIB=16  BENCH_CONCURRENCY=6  BENCH_ROUNDS=3
  (a smoke run: BENCH_UPLOAD_MIB=16 BENCH_PART_MIB=5 BENCH_ROUNDS=1)
"""
import concurrent.futures
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

import bench
import benchlib

UPLOAD_MIB = int(os.environ.get("BENCH_UPLOAD_MIB", "256"))
PART_MIB = int(os.environ.get("BENCH_PART_MIB", "16"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "6"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
MIB = 1024 * 1024
# A real JPEG at the start, so the upload passes the record's content check.
JPEG = os.path.join(bench.ROOT, "Tests", "ImageProbeTests", "Fixtures", "jpeg-baseline-64x48.jpg")


def make_file(path):
    with open(JPEG, "rb") as f:
        head = f.read()
    with open(path, "wb") as f:
        f.write(head)
        left = UPLOAD_MIB * MIB - len(head)
        block = os.urandom(MIB)
        while left > 0:
            n = min(left, len(block))
            f.write(block[:n])
            left -= n


def config_file(tmp):
    """A type for large files (the default IMAGE type stops at 20 MiB), the Uppy routes' default."""
    path = os.path.join(tmp, "bench-types.json")
    with open(path, "w") as f:
        json.dump({"types": {"BENCHFILE": {
            "extensions": ["jpg"], "contentTypes": ["image/jpeg"], "keyTemplate": "bench/{uuid}/{filename}.{ext}",
            "permanentKeyTemplate": "", "maxBytes": 8 * 1024 * MIB, "expiresSeconds": 3600,
            "requiresChatroomId": False}}}, f)
    return path


def put_part(url, data):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=300)
    try:
        c.request("PUT", u.path + "?" + u.query, body=data, headers={"Content-Length": str(len(data))})
        r = c.getresponse()
        r.read()
        if r.status != 200:
            raise RuntimeError(f"part PUT answered {r.status}")
        return r.getheader("ETag")
    finally:
        c.close()


def presignd_upload(port, path):
    """The Uppy flow for the file at `path`: wall seconds."""
    size = os.path.getsize(path)
    part = PART_MIB * MIB
    count = (size + part - 1) // part
    t0 = time.monotonic()
    status, created = benchlib.http_json(port, "POST", "/s3/multipart",
                                         {"filename": "bench.jpg", "type": "image/jpeg", "metadata": {}})
    if status != 200:
        raise SystemExit(f"create answered {status}: {created}")
    q = urllib.parse.quote
    base = f"/s3/multipart/{q(created['uploadId'], safe='')}"
    key = q(created["key"], safe="")
    numbers = ",".join(str(n) for n in range(1, count + 1))
    status, signed = benchlib.http_json(port, "GET", f"{base}/batch?key={key}&partNumbers={numbers}")
    if status != 200:
        raise SystemExit(f"batch answered {status}: {signed}")
    urls = signed["presignedUrls"]

    def one(n):
        with open(path, "rb") as f:
            f.seek((n - 1) * part)
            data = f.read(part)
        return {"PartNumber": n, "ETag": put_part(urls[str(n)], data)}

    with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
        parts = list(pool.map(one, range(1, count + 1)))
    status, done = benchlib.http_json(port, "POST", f"{base}/complete?key={key}", {"parts": parts}, timeout=600)
    if status != 200:
        raise SystemExit(f"complete answered {status}: {done}")
    return time.monotonic() - t0


def ensure_awscli():
    if shutil.which("aws"):
        return "aws"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "awscli"], check=True, timeout=600)
    found = shutil.which("aws")
    if not found:
        raise SystemExit("awscli did not install")
    return found


def aws_upload(aws, env, path, key):
    t0 = time.monotonic()
    subprocess.run([aws, "s3", "cp", "--only-show-errors", "--endpoint-url", env["S3_ENDPOINT"], path,
                    f"s3://{env['S3_BUCKET_NAME']}/{key}"], env=env, check=True, timeout=900)
    return time.monotonic() - t0


def main():
    s3 = benchlib.s3_env()
    aws = ensure_awscli()
    tmp = tempfile.mkdtemp(prefix="presignd-mpu-")
    ps = None
    try:
        data = os.path.join(tmp, "upload.bin")
        make_file(data)
        aws_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "AWS_ACCESS_KEY_ID": s3["S3_ACCESS_KEY"],
                   "AWS_SECRET_ACCESS_KEY": s3["S3_SECRET_KEY"], "AWS_DEFAULT_REGION": s3["S3_REGION"],
                   "AWS_CONFIG_FILE": os.path.join(tmp, "aws-config"),
                   "AWS_SHARED_CREDENTIALS_FILE": os.path.join(tmp, "aws-credentials"),
                   "AWS_EC2_METADATA_DISABLED": "true", "S3_ENDPOINT": s3["S3_ENDPOINT"],
                   "S3_BUCKET_NAME": s3["S3_BUCKET"], "HOME": tmp}
        for setting, value in [("default.s3.multipart_chunksize", f"{PART_MIB}MB"),
                               ("default.s3.multipart_threshold", f"{PART_MIB}MB"),
                               ("default.s3.max_concurrent_requests", str(CONCURRENCY))]:
            subprocess.run([aws, "configure", "set", setting, value], env=aws_env, check=True, timeout=60)
        ps, port, _ = bench.start_presignd(tmp, benchlib.uppy_env(s3, {
            "PRESIGN_CONFIG": config_file(tmp), "PRESIGN_UPPY_DEFAULT_TYPE": "BENCHFILE",
            "PRESIGN_SERVER_EVENT_LOOPS": "0"}))
        rounds = []
        for r in range(ROUNDS):
            order = ["presignd", "awscli"] if r % 2 == 0 else ["awscli", "presignd"]
            times = {}
            for side in order:
                if side == "presignd":
                    times[side] = presignd_upload(port, data)
                else:
                    times[side] = aws_upload(aws, aws_env, data, f"bench-aws/{r}-{int(time.time())}.bin")
            rounds.append({"round": r, "upload_mib": UPLOAD_MIB, "part_mib": PART_MIB, "concurrency": CONCURRENCY,
                           "presignd_s": round(times["presignd"], 3), "awscli_s": round(times["awscli"], 3),
                           "ratio_presignd_over_awscli": round(times["presignd"] / times["awscli"], 3)})
            print(json.dumps(rounds[-1]), flush=True)
        print(json.dumps({"rounds": len(rounds),
                          "median_ratio": statistics.median(x["ratio_presignd_over_awscli"] for x in rounds)}))
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
