#!/usr/bin/env python3
"""check-examples.py - checks examples/kubernetes.yaml against the server it describes.

It must parse as YAML (PyYAML, installed by scripts/setup.sh) into a Deployment, a
PodDisruptionBudget and a Service that select the same pods; every PRESIGN_* variable it sets must be
a setting of docs/operations.md's key table (ConfigKeyTests keeps that table complete), or the _FILE
form of one; and its timings must be in step with the drain on SIGTERM (docs/operations.md, "Running
several instances"): the readiness probe takes a pod out (period x failures) before the drain delay
ends, and the grace period covers the delay and the drain timeout.

Usage: python3 scripts/check-examples.py [--self-test]
"""
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_DELAY_MS = 5000
DEFAULT_DRAIN_MS = 10000


def known_variables():
    guide = (ROOT / "docs/operations.md").read_text()
    names = set(re.findall(r"^\| `[a-zA-Z0-9.]+` \| `(PRESIGN_[A-Z0-9_]+)`", guide, re.M))
    if len(names) < 50:
        raise SystemExit(f"check-examples: only {len(names)} settings found in docs/operations.md's table")
    return names


def problems(documents, known):
    found = []
    kinds = {d.get("kind"): d for d in documents if isinstance(d, dict)}
    for kind in ("Deployment", "PodDisruptionBudget", "Service"):
        if kind not in kinds:
            found.append(f"no {kind}")
    if found:
        return found
    deployment = kinds["Deployment"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    for kind, selector in (
        ("Deployment", deployment["spec"]["selector"]["matchLabels"]),
        ("PodDisruptionBudget", kinds["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"]),
        ("Service", kinds["Service"]["spec"]["selector"]),
    ):
        if any(labels.get(k) != v for k, v in selector.items()):
            found.append(f"the {kind}'s selector {selector} does not match the pods' labels {labels}")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    env = {e["name"]: e.get("value") for e in container.get("env", [])}
    for name in env:
        if not name.startswith("PRESIGN_"):
            continue
        base = name[: -len("_FILE")] if name.endswith("_FILE") else name
        if name not in known and base not in known:
            found.append(f"{name} is not a setting (docs/operations.md, Keys)")
    delay = int(env.get("PRESIGN_SERVER_DRAIN_DELAY_MS") or DEFAULT_DELAY_MS)
    drain = int(env.get("PRESIGN_SERVER_DRAIN_TIMEOUT_MS") or DEFAULT_DRAIN_MS)
    probe = container.get("readinessProbe") or {}
    if probe.get("httpGet", {}).get("path") != "/readyz":
        found.append("the readiness probe is not on /readyz")
    if (container.get("livenessProbe") or {}).get("httpGet", {}).get("path") != "/healthz":
        found.append("the liveness probe is not on /healthz")
    out_ms = 1000 * (probe.get("periodSeconds", 10) * probe.get("failureThreshold", 3) + probe.get("timeoutSeconds", 1))
    if out_ms >= delay:
        found.append(f"the readiness probe takes up to {out_ms} ms to mark a pod out, not less than the drain delay {delay} ms")
    grace = 1000 * pod.get("terminationGracePeriodSeconds", 30)
    if grace <= delay + drain:
        found.append(f"terminationGracePeriodSeconds ({grace} ms) does not cover the drain delay + drain timeout ({delay + drain} ms)")
    return found


def self_test(known):
    good = list(yaml.safe_load_all((ROOT / "examples/kubernetes.yaml").read_text()))
    assert problems(good, known) == [], problems(good, known)

    def altered(change):
        documents = list(yaml.safe_load_all((ROOT / "examples/kubernetes.yaml").read_text()))
        change({d["kind"]: d for d in documents})
        return problems(documents, known)

    def container(k):
        return k["Deployment"]["spec"]["template"]["spec"]["containers"][0]

    assert any("PRESIGN_SERVER_DRAIN_DELAY" in p for p in altered(
        lambda k: container(k)["env"].append({"name": "PRESIGN_SERVER_DRAIN_DELAY", "value": "1"})))
    assert any("drain delay" in p for p in altered(lambda k: container(k)["readinessProbe"].update(periodSeconds=10)))
    assert any("terminationGracePeriodSeconds" in p for p in altered(
        lambda k: k["Deployment"]["spec"]["template"]["spec"].update(terminationGracePeriodSeconds=15)))
    assert any("Service" in p for p in altered(lambda k: k["Service"]["spec"].update(selector={"app": "other"})))
    print("check-examples: self-test passed")


def main():
    known = known_variables()
    if "--self-test" in sys.argv[1:]:
        self_test(known)
    documents = list(yaml.safe_load_all((ROOT / "examples/kubernetes.yaml").read_text()))
    found = problems(documents, known)
    for p in found:
        print(f"check-examples: examples/kubernetes.yaml: {p}", file=sys.stderr)
    if found:
        return 1
    print("check-examples: examples/kubernetes.yaml is in step with the server")
    return 0


if __name__ == "__main__":
    sys.exit(main())
