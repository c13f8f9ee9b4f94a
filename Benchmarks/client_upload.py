#!/usr/bin/env python3
"""client_upload.py - presign-upload against `aws s3 cp`: the same file, the same RGW, the same part size
and concurrency, in the same run; prints wall times, their ratio and the uploader's peak RSS.

presign-upload goes through presignd (POST /s3/multipart, a presigned URL per part, complete); aws s3 cp
signs its own requests with the S3 keys. Both read the file from disk. Loopback only.

Environment (RGW's from `eval "$(bash scripts/start-s3.sh)"`):
  S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET S3_REGION   the store (required)
  SIZE_MIB=256      the file's size           PART_MIB=8     part size (both tools)
  CONCURRENCY=4     parts in flight (both)    ROUNDS=1       alternating rounds (each tool once a round)
  BUILD=release     which build of presignd and presign-upload to use (built if missing)
  UPLOADER_BUILD=   another build for presign-upload only (default: BUILD), e.g. release uploader, debug server
  AWS=0             skip `aws s3 cp` (only presign-upload's wall time and peak RSS; no awscli needed)
  SMOKE=1           a tiny run (SIZE_MIB=12, PART_MIB=5) that only shows the script works, no figures
awscli is installed from PyPI into .build/bench-venv when `aws` is not on PATH.
RGW's memstore (S3_MEMSTORE_MB of scripts/start-s3.sh, default 1024) fills up: every round stores the file
twice, and RGW frees deleted multipart objects only at its garbage collection (hours later). A full OSD blocks
every PUT (presignd answers 504 STORAGE_TIMEOUT): start RGW with S3_MEMSTORE_MB >= 2 x SIZE_MIB x ROUNDS + 512.
Peak RSS target: 64 MiB + CONCURRENCY x PART_MIB.
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def env(name, default=None):
    value = os.environ.get(name, default)
    if value is None:
        sys.exit(f"client_upload: {name} is not set (eval \"$(bash scripts/start-s3.sh)\" first)")
    return value


def aws_binary():
    found = shutil.which("aws")
    if found:
        return found
    venv = os.path.join(ROOT, ".build", "bench-venv")
    aws = os.path.join(venv, "bin", "aws")
    if not os.path.exists(aws):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "awscli"], check=True)
    return aws


def build(config, products=("presignd", "presign-upload")):
    for product in products:
        binary = os.path.join(ROOT, ".build", config, product)
        if not os.path.exists(binary):
            subprocess.run(["swift", "build", "-c", config, "--product", product], cwd=ROOT, check=True)
    return os.path.join(ROOT, ".build", config)


def timed(argv, **kw):
    """Wall seconds and the child's peak RSS in MiB (ru_maxrss of this one child: each run is a fresh
    python child so RUSAGE_CHILDREN holds exactly it)."""
    probe = (
        "import resource,subprocess,sys,time,json;t=time.monotonic();"
        "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);"
        "print(json.dumps([r.returncode,time.monotonic()-t,"
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))"
    )
    out = subprocess.run([sys.executable, "-c", probe] + argv, capture_output=True, text=True, **kw)
    code, seconds, rss_kib = json.loads(out.stdout.strip().splitlines()[-1])
    if code != 0:
        sys.exit(f"client_upload: {argv[0]} exited {code}: {out.stderr[-2000:]}")
    return seconds, rss_kib / 1024


def start_server(bin_dir, work):
    e = dict(os.environ)
    e.update({
        "PRESIGN_SERVER_PORT": "0", "PRESIGN_RECORDS_URL": f"sqlite:{work}/bench.sqlite3",
        "PRESIGN_S3_ENDPOINT": env("S3_ENDPOINT"), "PRESIGN_S3_ACCESS_KEY_ID": env("S3_ACCESS_KEY"),
        "PRESIGN_S3_SECRET_ACCESS_KEY": env("S3_SECRET_KEY"), "PRESIGN_S3_BUCKET": env("S3_BUCKET", "uploads"),
        "PRESIGN_S3_REGION": env("S3_REGION", "us-east-1"), "PRESIGN_LIMITS_ENABLED": "false",
        "PRESIGN_UPPY_ENABLED": "true",
    })
    # The embedded types plus BENCH (the default type of the /s3 routes), large enough for the file.
    with open(os.path.join(ROOT, "Sources", "Config", "presignd.json")) as f:
        types = json.load(f)["types"]
    types["BENCH"] = dict(types["IMAGE"], maxBytes=4 << 30)
    config = os.path.join(work, "presignd.json")
    with open(config, "w") as f:
        json.dump({"types": types, "uppy": {"defaultType": "BENCH"}}, f)
    log = open(os.path.join(work, "presignd.log"), "w+")
    proc = subprocess.Popen([os.path.join(bin_dir, "presignd"), "--config", config], env=e, stderr=log,
                            stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        log.seek(0)
        m = re.search(r'"msg":"listening".*?"port":(\d+)', log.read())
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    log.seek(0)
    sys.exit("client_upload: presignd did not start: " + log.read()[-2000:])


def main():
    smoke = os.environ.get("SMOKE") == "1"
    size = int(os.environ.get("SIZE_MIB", "12" if smoke else "256"))
    part = int(os.environ.get("PART_MIB", "5" if smoke else "8"))
    conc = int(os.environ.get("CONCURRENCY", "4"))
    rounds = int(os.environ.get("ROUNDS", "1"))
    config = os.environ.get("BUILD", "release")
    uploader_config = os.environ.get("UPLOADER_BUILD") or config
    bin_dir = build(config, ("presignd",))
    uploader = os.path.join(build(uploader_config, ("presign-upload",)), "presign-upload")
    with_aws = os.environ.get("AWS", "1") != "0"
    aws = aws_binary() if with_aws else None
    work = tempfile.mkdtemp(prefix="presign-client-bench-")
    path = os.path.join(work, "bench.jpg")
    # A real JPEG first (the server checks the content at completion), random bytes after it.
    with open(os.path.join(ROOT, "Tests", "ImageProbeTests", "Fixtures", "jpeg-baseline-64x48.jpg"), "rb") as f:
        head = f.read()
    with open(path, "wb") as f:
        f.write(head + os.urandom((1 << 20) - len(head)))
        for _ in range(size - 1):
            f.write(os.urandom(1 << 20))
    awscfg = os.path.join(work, "aws-config")
    with open(awscfg, "w") as f:
        f.write(f"[default]\nregion = {env('S3_REGION', 'us-east-1')}\ns3 =\n"
                f"  multipart_threshold = {part}MB\n  multipart_chunksize = {part}MB\n"
                f"  max_concurrent_requests = {conc}\n")
    aws_env = dict(os.environ, AWS_CONFIG_FILE=awscfg, AWS_ACCESS_KEY_ID=env("S3_ACCESS_KEY"),
                   AWS_SECRET_ACCESS_KEY=env("S3_SECRET_KEY"), AWS_SHARED_CREDENTIALS_FILE="/dev/null",
                   AWS_EC2_METADATA_DISABLED="true")
    server, port = start_server(bin_dir, work)
    try:
        ours, theirs, rss = [], [], []
        for r in range(rounds):
            s, m = timed([uploader, "--server", f"http://127.0.0.1:{port}",
                          "--user-id", "bench", "--multipart-threshold", "1", "--part-size", str(part),
                          "--concurrency", str(conc), "--state-dir", os.path.join(work, "state"),
                          "--progress", "none", "--json", path])
            ours.append(s)
            rss.append(m)
            if not with_aws:
                continue
            s, _ = timed([aws, "s3", "cp", "--only-show-errors", "--endpoint-url", env("S3_ENDPOINT"), path,
                          f"s3://{env('S3_BUCKET', 'uploads')}/bench/awscli-{r}.jpg"], env=aws_env)
            theirs.append(s)
        target = 64 + conc * part
        best_ours = min(ours)
        print(f"client_upload: {size} MiB, part {part} MiB, concurrency {conc}, {rounds} round(s), "
              f"uploader build {uploader_config}" + (" [SMOKE: not a measurement]" if smoke else ""))
        print(f"  presign-upload  best {best_ours:.2f} s  ({', '.join(f'{x:.2f}' for x in ours)})")
        if with_aws:
            best_theirs = min(theirs)
            print(f"  aws s3 cp       best {best_theirs:.2f} s  ({', '.join(f'{x:.2f}' for x in theirs)})")
            print(f"  ratio presign-upload / aws: {best_ours / best_theirs:.2f} (target <= 1.0)")
        print(f"  presign-upload peak RSS {max(rss):.1f} MiB ({', '.join(f'{x:.1f}' for x in rss)}; "
              f"target < {target} MiB = 64 + {conc} x {part})")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
