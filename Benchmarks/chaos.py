#!/usr/bin/env python3
"""chaos.py - a bounded correctness run (not a speed figure): client uploads against the real
presignd on PostgreSQL and RGW while PostgreSQL, radosgw and presignd itself are killed (-9) and
restarted at random moments. At the end: every acknowledged (201/200) record is present with its id,
each record's object is in RGW at the recorded size, and every object under the run's prefixes that
has no record still has its intent (so the janitor will find it after its grace), except the objects
of URLs whose intent a kill -9 of presignd lost (counted apart, with the time from issue to kill: the
crash window docs/records.md describes).

It starts (and stops) its own PostgreSQL cluster (scripts/start-postgres.sh on --pg-port) and its
own RGW (scripts/start-s3.sh on --s3-port), and kills only processes it started, by PID.

    python3 Benchmarks/chaos.py [--duration 180] [--workers 6] [--seed N]
        [--binary .build/debug/presignd] [--pg-port 25460] [--s3-port 19260]

Prints one JSON object of figures; exit status 1 if anything acknowledged was lost, an integrity
check failed, or a confirmation was refused with a 4xx other than INTENT_NOT_FOUND (the uploads are a
real JPEG with random bytes after it, so the content check must pass them).
"""
import argparse, json, os, random, signal, socket, subprocess, sys, threading, time, uuid
import http.client
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JPEG_FIXTURE = os.path.join(ROOT, "Tests", "ImageProbeTests", "Fixtures", "jpeg-baseline-64x48.jpg")
with open(JPEG_FIXTURE, "rb") as _f:
    JPEG = _f.read()


def sh(cmd, env=None, check=True):
    r = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{cmd}: {r.returncode}: {r.stderr[-2000:]}")
    return r


def exports(text):
    out = {}
    for line in text.splitlines():
        if line.startswith("export ") and "=" in line:
            k, v = line[len("export "):].split("=", 1)
            out[k] = v
    return out


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def request(port, method, path, body=None, user="chaos", timeout=20):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"X-User-Id": user}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        c.request(method, path, body=data, headers=headers)
        r = c.getresponse()
        raw = r.read()
        try:
            doc = json.loads(raw) if raw else {}
        except ValueError:
            doc = {}
        return r.status, doc
    finally:
        c.close()


class Run:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.acks = {}            # image key -> record id (first 201 or 200)
        self.pending = {}         # image key -> time its URL was issued (uploaded, not yet settled)
        self.lost = []            # (image key, issued at) answered 404 INTENT_NOT_FOUND
        self.faults = {"postgres": 0, "rgw": 0, "presignd": 0}
        self.presignd_kills = []  # times of kill -9 of presignd
        self.counts = {"issued": 0, "issue_503": 0, "uploaded": 0, "confirm_503": 0, "confirm_5xx_other": 0,
                       "conn_errors": 0, "duplicate_ids": 0, "confirm_4xx": 0}
        self.refused = []         # (image key, status, code) of confirmations refused with another 4xx
        self.user = "chaos" + uuid.uuid4().hex[:8]
        self.server = None
        self.server_up = threading.Event()

    # ------------------------------------------------------------ processes
    def start_backends(self):
        a = self.a
        self.pg_env = dict(os.environ, PG_PORT=str(a.pg_port))
        self.pg_url = exports(sh(["bash", f"{ROOT}/scripts/start-postgres.sh"], env=self.pg_env).stdout)["PRESIGN_TEST_POSTGRES_URL"]
        self.s3_dir = f"/tmp/presignd-chaos-s3-{a.s3_port}"
        self.s3_env = dict(os.environ, S3_PORT=str(a.s3_port), S3_STATE_DIR=self.s3_dir)
        self.s3 = exports(sh(["bash", f"{ROOT}/scripts/start-s3.sh"], env=self.s3_env).stdout)
        self.port = free_port()

    def stop_backends(self):
        sh(["bash", f"{ROOT}/scripts/stop-postgres.sh"], env=self.pg_env, check=False)
        sh(["bash", f"{ROOT}/scripts/stop-s3.sh"], env=self.s3_env, check=False)

    def start_server(self):
        env = {
            "PATH": "/usr/bin:/bin", "PRESIGN_SERVER_PORT": str(self.port), "PRESIGN_RECORDS_URL": self.pg_url,
            "PRESIGN_S3_ENDPOINT": self.s3["S3_ENDPOINT"], "PRESIGN_S3_BUCKET": self.s3["S3_BUCKET"],
            "PRESIGN_S3_REGION": self.s3["S3_REGION"], "PRESIGN_S3_ACCESS_KEY_ID": self.s3["S3_ACCESS_KEY"],
            "PRESIGN_S3_SECRET_ACCESS_KEY": self.s3["S3_SECRET_KEY"], "PRESIGN_LIMITS_ENABLED": "false",
            "PRESIGN_RECORDS_DELETE_UNCONFIRMED_OBJECTS": "true", "PRESIGN_LOG_ACCESS_LOG": "false",
        }
        self.log = open(f"/tmp/presignd-chaos-{self.port}.log", "ab")
        self.server = subprocess.Popen([self.a.binary], env=env, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        for _ in range(3000):
            try:
                if request(self.port, "GET", "/healthz", timeout=2)[0] == 200:
                    self.server_up.set()
                    return
            except OSError:
                pass
            if self.server.poll() is not None:
                raise RuntimeError("presignd exited at start")
            time.sleep(0.01)
        raise RuntimeError("presignd did not answer /healthz")

    def kill_server(self):
        self.server_up.clear()
        self.server.send_signal(signal.SIGKILL)
        self.server.wait()
        with self.lock:
            self.presignd_kills.append(time.time())

    def rgw_pid(self):
        with open(self.s3["S3_PID_FILE"]) as f:
            return int(f.read().strip())

    def restart_rgw(self):
        sh(["radosgw", "-c", f"{self.s3_dir}/ceph.conf", "-n", "client.rgw.a"])
        for _ in range(3000):
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.a.s3_port, timeout=2)
                c.request("GET", "/")
                c.getresponse().read()
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("radosgw did not come back")

    def inject(self):
        kind = self.rng.choice(["postgres", "rgw", "presignd"])
        down = self.rng.uniform(0.5, 4.0)
        if kind == "postgres":
            sh(["bash", f"{ROOT}/scripts/pg-fault.sh", "kill9"], env=self.pg_env)
            time.sleep(down)
            sh(["bash", f"{ROOT}/scripts/pg-fault.sh", "start"], env=self.pg_env)
        elif kind == "rgw":
            os.kill(self.rgw_pid(), signal.SIGKILL)
            time.sleep(down)
            self.restart_rgw()
        else:
            self.kill_server()
            time.sleep(down)
            self.start_server()
        with self.lock:
            self.faults[kind] += 1

    # ------------------------------------------------------------ clients
    def put(self, url, body):
        u = urlsplit(url)
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
        try:
            c.request("PUT", u.path + "?" + u.query, body=body, headers={"Content-Type": "image/jpeg"})
            r = c.getresponse()
            r.read()
            return r.status
        finally:
            c.close()

    def confirm(self, key):
        """True when settled (recorded, or lost); False to try again later."""
        try:
            status, doc = request(self.port, "POST", "/images", {"imageKey": key}, user=self.user)
        except OSError:
            with self.lock:
                self.counts["conn_errors"] += 1
            return False
        with self.lock:
            if status in (200, 201):
                rid = doc.get("id")
                if key in self.acks and self.acks[key] != rid:
                    self.counts["duplicate_ids"] += 1
                self.acks.setdefault(key, rid)
                self.pending.pop(key, None)
                return True
            if status == 404 and doc.get("code") == "INTENT_NOT_FOUND":
                self.lost.append((key, self.pending.pop(key, None)))
                return True
            if status == 503:
                self.counts["confirm_503"] += 1
            elif 400 <= status < 500:
                # A refusal no retry changes (e.g. 422 CONTENT_MISMATCH): settled, and counted as a failure.
                self.counts["confirm_4xx"] += 1
                self.refused.append((key, status, doc.get("code")))
                self.pending.pop(key, None)
                return True
            else:
                self.counts["confirm_5xx_other"] += 1
            return False

    def worker(self):
        while not self.stop.is_set():
            self.server_up.wait(5)
            try:
                status, doc = request(self.port, "GET", "/presigned-url?type=PROFILE&ext=jpg", user=self.user)
            except OSError:
                with self.lock:
                    self.counts["conn_errors"] += 1
                time.sleep(0.05)
                continue
            if status != 200:
                with self.lock:
                    self.counts["issue_503" if status == 503 else "confirm_5xx_other"] += 1
                time.sleep(0.05)
                continue
            key, url = doc["key"], doc["presignedUrl"]
            with self.lock:
                self.counts["issued"] += 1
                self.pending[key] = time.time()
            # A real JPEG (the content check reads its header) with random bytes after it, so every
            # object differs.
            body = JPEG + os.urandom(self.rng.randint(16, 4096))
            for _ in range(200):
                try:
                    if self.put(url, body) == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.05)
            else:
                with self.lock:
                    self.pending.pop(key, None)  # never uploaded: nothing to confirm
                continue
            with self.lock:
                self.counts["uploaded"] += 1
            for _ in range(100):
                if self.stop.is_set() or self.confirm(key):
                    break
                time.sleep(0.1)

    # ------------------------------------------------------------ the run
    def run(self):
        self.start_backends()
        try:
            self.start_server()
            threads = [threading.Thread(target=self.worker, daemon=True) for _ in range(self.a.workers)]
            for t in threads:
                t.start()
            end = time.time() + self.a.duration
            while time.time() < end:
                time.sleep(self.rng.uniform(3, 10))
                if time.time() < end:
                    self.inject()
            self.stop.set()
            for t in threads:
                t.join(60)
            # Settle what is left: every uploaded URL is confirmed once more (all parts are up now).
            for key in list(self.pending):
                for _ in range(300):
                    if self.confirm(key):
                        break
                    time.sleep(0.1)
            return self.verify()
        finally:
            if self.server and self.server.poll() is None:
                self.server.send_signal(signal.SIGTERM)
                try:
                    self.server.wait(30)
                except subprocess.TimeoutExpired:
                    self.server.kill()
            self.stop_backends()

    def verify(self):
        import botocore.session
        from botocore.config import Config
        s3 = botocore.session.get_session().create_client(
            "s3", endpoint_url=self.s3["S3_ENDPOINT"], region_name=self.s3["S3_REGION"],
            aws_access_key_id=self.s3["S3_ACCESS_KEY"], aws_secret_access_key=self.s3["S3_SECRET_KEY"],
            config=Config(s3={"addressing_style": "path"}))
        bucket = self.s3["S3_BUCKET"]
        psql = ["psql", self.pg_url, "-X", "-A", "-t", "-F", "\t", "-c"]
        rows = sh(psql + [f"SELECT image_key, id, object_key, size FROM records WHERE owner_id = '{self.user}'"]).stdout
        records = {}
        for line in rows.splitlines():
            if line.strip():
                k, rid, obj, size = line.split("\t")
                records[k] = (rid, obj, int(size))
        intents = set(sh(psql + [f"SELECT object_key FROM intents WHERE owner_id = '{self.user}'"]).stdout.split())
        intents |= set(sh(psql + [f"SELECT permanent_key FROM intents WHERE owner_id = '{self.user}' AND permanent_key IS NOT NULL"]).stdout.split())
        missing = [k for k, rid in self.acks.items() if records.get(k, (None,))[0] != rid]
        bad_objects = []
        for k, (rid, obj, size) in records.items():
            try:
                head = s3.head_object(Bucket=bucket, Key=obj)
                if head["ContentLength"] != size:
                    bad_objects.append((k, "size"))
            except Exception as e:  # noqa: BLE001 - reported, not hidden
                bad_objects.append((k, str(e)[:80]))
        recorded_objects = {obj for (_, obj, _) in records.values()}
        unfindable = []
        for prefix in (f"delete/profile/{self.user}/", f"profile/{self.user}/"):
            token = None
            while True:
                kw = {"Bucket": bucket, "Prefix": prefix}
                if token:
                    kw["ContinuationToken"] = token
                page = s3.list_objects_v2(**kw)
                for o in page.get("Contents", []):
                    if o["Key"] not in recorded_objects and o["Key"] not in intents:
                        unfindable.append(o["Key"])
                if not page.get("IsTruncated"):
                    break
                token = page["NextContinuationToken"]
        # Objects of URLs whose intent a kill -9 of presignd lost (the documented crash window: the
        # upload, and a copy a confirmation made just before the kill) are counted apart.
        lost_names = {k.rsplit("/", 1)[-1] for k, _ in self.lost}
        left_by_lost = [o for o in unfindable if o.rsplit("/", 1)[-1] in lost_names]
        unfindable = [o for o in unfindable if o.rsplit("/", 1)[-1] not in lost_names]
        kills = self.presignd_kills
        windows = []
        for key, issued_at in self.lost:
            after = [k - issued_at for k in kills if issued_at is not None and k >= issued_at]
            windows.append(round(min(after) * 1000) if after else None)
        figures = {
            "duration_s": self.a.duration, "workers": self.a.workers, "seed": self.a.seed,
            "acks": len(self.acks), "records": len(records), "faults": self.faults, **self.counts,
            "lost_acknowledged": len(missing), "bad_objects": len(bad_objects),
            "objects_janitor_cannot_find": len(unfindable), "objects_left_by_lost_intents": len(left_by_lost),
            "urls_whose_intent_was_lost": len(self.lost), "lost_intent_issue_to_kill_ms": windows,
        }
        print(json.dumps(figures, indent=1))
        if missing or bad_objects or unfindable or self.counts["duplicate_ids"] or self.refused:
            print(json.dumps({"missing": missing[:10], "bad_objects": bad_objects[:10], "unfindable": unfindable[:10],
                              "refused": self.refused[:10]}), file=sys.stderr)
            return 1
        return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=float, default=180)
    p.add_argument("--workers", type=int, default=6)
    p.add_argument("--seed", type=int, default=int(time.time()))
    p.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/presignd"))
    p.add_argument("--pg-port", type=int, default=25460)
    p.add_argument("--s3-port", type=int, default=19260)
    sys.exit(Run(p.parse_args()).run())


if __name__ == "__main__":
    main()
