"""Instruction counts of presignd's event loop under callgrind: N keep-alive requests from one client.

Usage: python3 Benchmarks/callgrind_loop.py BINARY TAG PATH N (the loop is the thread with the most
instructions but the main thread; output files in /tmp/sm/cg-TAG.out-*). CG_ENV (a JSON object) adds or overrides
presignd's environment, CG_ARGS (space-separated) adds command-line arguments, e.g. a --config file
with compatibility routes.

CG_UPLOAD (a JSON body, e.g. '{"filename":"a.jpg","type":"image/jpeg","metadata":{}}') first creates a
multipart upload through POST /s3/multipart (the Uppy routes must be on, with a real store in CG_ENV)
and fills `{uploadId}` and `{key}` in PATH (percent-encoded), so PATH can be the part-URL route
`/s3/multipart/{uploadId}/1?key={key}`; the upload is aborted after the loop. Both extra requests are
the same in every run, so they cancel out of (count at N1 - count at N2) / (N1 - N2).

CG_MODE=confirm counts N confirmations (`POST /images`) instead, with a real store in CG_ENV (RGW's
PRESIGN_S3_*): first, outside the count, it issues N URLs through PATH (e.g. `/presigned-url?type=PROFILE&ext=jpg`),
PUTs the same JPEG (Tests/ImageProbeTests/Fixtures) to each straight to storage and waits until
`presignd_intents_pending` is 0; then it zeroes callgrind's counters (`callgrind_control -z`) and
confirms each key once (every one must answer 201). It prints every thread's instructions by role:
the event loop, the worker(s) (one by default here: PRESIGN_SERVER_WORKER_THREADS=1), the group
committer, the intent writer, the rest; a thread's role is read from the functions it ran.

CG_BODY (a JSON body in which each `{uuid}` becomes a fresh UUID per request) sends N `POST PATH` requests
with that body instead of N GETs, e.g. client B's issue route
`CG_BODY='{"contentType":"image/jpeg","imageKey":"{uuid}"}' … /presigned-url N`; every thread's
instructions are printed by role as in CG_MODE=confirm (the issue's intent is written by the writer)."""
import glob, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.parse

binary, tag, path, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
tmp = tempfile.mkdtemp(prefix="sm-cg-")
copy = os.path.join(tmp, "presignd")
shutil.copy(binary, copy)
subprocess.run(["strip", "-g", copy], check=True)
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
env = {
    "PATH": "/usr/bin:/bin", "PRESIGN_SERVER_PORT": str(port), "PRESIGN_SERVER_EVENT_LOOPS": "1",
    "PRESIGN_S3_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
    "PRESIGN_S3_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "PRESIGN_S3_ENDPOINT": "http://127.0.0.1:9", "PRESIGN_RECORDS_URL": f"sqlite:{tmp}/p.sqlite3",
    "PRESIGN_LOG_ACCESS_LOG": "true", "PRESIGN_LIMITS_ENABLED": "false", "AWS_EC2_METADATA_DISABLED": "true",
}
mode = os.environ.get("CG_MODE", "loop")
if mode == "confirm":
    env["PRESIGN_SERVER_WORKER_THREADS"] = "1"
env.update(json.loads(os.environ.get("CG_ENV", "{}")))
extra_args = os.environ.get("CG_ARGS", "").split()
os.makedirs("/tmp/sm", exist_ok=True)
out = f"/tmp/sm/cg-{tag}.out"
for f in glob.glob(out + "*"):
    os.remove(f)
log = open(os.path.join(tmp, "log"), "wb")
p = subprocess.Popen(["valgrind", "--tool=callgrind", "--separate-threads=yes", f"--callgrind-out-file={out}", copy] + extra_args,
                     env=env, stdout=log, stderr=log)
for _ in range(600):
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=60); break
    except OSError:
        time.sleep(0.1)
buf = b""


def exchange(raw):
    """Sends one request, returns (status line, body) of its answer."""
    global buf
    c.sendall(raw)
    while True:
        h = buf.find(b"\r\n\r\n")
        if h >= 0:
            head = buf[:h].decode()
            length = int([l.split(":")[1] for l in head.split("\r\n") if l.lower().startswith("content-length")][0])
            if len(buf) >= h + 4 + length:
                body = buf[h + 4:h + 4 + length]
                buf = buf[h + 4 + length:]
                return head.split("\r\n")[0], body
        buf += c.recv(65536)


abort = None
if os.environ.get("CG_UPLOAD"):
    payload = os.environ["CG_UPLOAD"].encode()
    status, body = exchange(b"POST /s3/multipart HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                            + f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
    if not status.startswith("HTTP/1.1 200"):
        raise SystemExit(f"POST /s3/multipart answered {status}: {body!r}")
    created = json.loads(body)
    q = lambda v: urllib.parse.quote(v, safe="")
    path = path.replace("{uploadId}", q(created["uploadId"])).replace("{key}", q(created["key"]))
    abort = f"DELETE /s3/multipart/{q(created['uploadId'])}?key={q(created['key'])} HTTP/1.1\r\nHost: bench\r\n\r\n"
req = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
ok = 0
if mode == "confirm":
    import http.client
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "ImageProbeTests", "Fixtures",
                           "jpeg-baseline-64x48.jpg")
    jpeg = open(fixture, "rb").read()
    keys = []
    for i in range(n):
        status, body = exchange(req)
        if not status.startswith("HTTP/1.1 200"):
            raise SystemExit(f"GET {path} answered {status}: {body!r}")
        url = urllib.parse.urlsplit(json.loads(body)["presignedUrl"])
        store = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        store.request("PUT", url.path + "?" + url.query, body=jpeg, headers={"Content-Type": "image/jpeg"})
        answer = store.getresponse()
        answer.read()
        store.close()
        if answer.status != 200:
            raise SystemExit(f"PUT to storage answered {answer.status}")
        keys.append(json.loads(body)["key"])
    # Every intent stored before the count starts (the writer's batch is not part of a confirmation).
    for _ in range(600):
        _, metrics = exchange(b"GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n")
        if re.search(rb"^presignd_intents_pending 0$", metrics, re.M):
            break
        time.sleep(0.05)
    else:
        raise SystemExit("the intents were not stored")
    subprocess.run(["callgrind_control", "-z", str(p.pid)], check=True, stdout=subprocess.DEVNULL)
    for key in keys:
        payload = json.dumps({"imageKey": key}).encode()
        status, body = exchange(b"POST /images HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                                + f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
        if not status.startswith("HTTP/1.1 201"):
            raise SystemExit(f"POST /images answered {status}: {body!r}")
        ok += 1
    path = "POST /images"
elif os.environ.get("CG_BODY"):
    import uuid
    template = os.environ["CG_BODY"]
    for i in range(n):
        payload = template.replace("{uuid}", str(uuid.uuid4()).upper()).encode()
        status, body = exchange(f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n".encode()
                                + f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
        if status.startswith("HTTP/1.1 20"):
            ok += 1
        elif i == 0:
            raise SystemExit(f"POST {path} answered {status}: {body!r}")
    # Every intent stored before the count ends (the writer's batches are part of an issue).
    for _ in range(600):
        _, metrics = exchange(b"GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n")
        if re.search(rb"^presignd_intents_pending 0$", metrics, re.M):
            break
        time.sleep(0.05)
else:
    for i in range(n):
        status, _ = exchange(req)
        if status.startswith("HTTP/1.1 200"): ok += 1
if abort:
    exchange(abort.encode())
c.close()
time.sleep(0.5)
p.send_signal(signal.SIGTERM)
p.wait(timeout=120)
totals = []
for f in sorted(glob.glob(out + "*")):
    for line in open(f, errors="replace"):
        if line.startswith("totals:") or line.startswith("summary:"):
            totals.append((int(line.split()[1]), f)); break
totals.sort(reverse=True)
if mode == "confirm" or os.environ.get("CG_BODY"):
    def role(f):
        """A thread's role from the functions it ran (the main thread is the first file)."""
        if f.endswith("-01"):
            return "main"
        text = open(f, errors="replace").read()
        for name, marker in (("loop", "epoll_wait"), ("worker", "WorkerPool"), ("committer", "GroupCommitter"),
                             ("writer", "IntentWriter"), ("janitor", "Janitor")):
            if marker in text:
                return name
        return "other"
    roles = {}
    for t, f in totals:
        roles[role(f)] = roles.get(role(f), 0) + t
    counted = sum(t for r, t in roles.items() if r != "main")
    print(f"{tag} {path}: {ok}/{n} ok; per role (instructions, per confirmation): "
          + ", ".join(f"{r}={t} ({t / n:.0f})" for r, t in sorted(roles.items()))
          + f"; all but main={counted} ({counted / n:.0f})")
    sys.exit(0)
# The main thread (out-01) starts the server; at small N it can outweigh the loop, so it is never the loop.
loop = ([t for t in totals if not t[1].endswith("-01")] or totals)[0][0]
print(f"{tag} {path}: {ok}/{n} ok; loop thread {loop} instructions, {loop / n:.0f} per request; threads: "
      + ", ".join(f"{os.path.basename(f)}={t}" for t, f in totals))
