#!/usr/bin/env python3
"""webhooks_verify.py - presignd's webhook deliveries checked with the Standard Webhooks reference library.

Reads JSON on standard input: {"secret": "whsec_...", "deliveries": [{"id", "timestamp", "signature",
"body" (base64)}]} (what Tests/AppTests/WebhookReceiver.swift received), and prints
{"library", "verified", "refused": [ids], "tamperedAccepted": [ids]}:
  - each delivery through standardwebhooks.Webhook(secret).verify(body, headers); one whose timestamp is
    past the library's five-minute window (a long test) is checked with the library's own sign() instead;
  - for each, its body with one byte changed, another webhook-id, and a timestamp ten minutes old must be
    refused by verify(): any accepted is listed in tamperedAccepted.
Installed by scripts/setup.sh test (pip install standardwebhooks).
"""
import base64
import json
import sys
import time
from datetime import datetime, timezone
from importlib import metadata

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main():
    request = json.load(sys.stdin)
    hook = Webhook(request["secret"])
    verified, refused, tampered_accepted = 0, [], []
    now = time.time()
    for item in request["deliveries"]:
        body = base64.b64decode(item["body"])
        headers = {"webhook-id": item["id"], "webhook-timestamp": item["timestamp"],
                   "webhook-signature": item["signature"]}
        try:
            if abs(now - int(item["timestamp"])) < 240:
                hook.verify(body, headers)
            else:
                stamp = datetime.fromtimestamp(int(item["timestamp"]), tz=timezone.utc)
                expected = hook.sign(item["id"], stamp, body)
                if expected not in item["signature"].split(" "):
                    raise WebhookVerificationError("no matching signature")
            verified += 1
        except (WebhookVerificationError, ValueError) as error:
            refused.append(f'{item["id"]}: {error}')
            continue
        changed = bytearray(body) or bytearray(b" ")
        changed[len(changed) // 2] ^= 0x01
        old = str(int(now) - 600)
        variants = [
            (bytes(changed), headers),
            (body, dict(headers, **{"webhook-id": item["id"] + "x"})),
            (body, dict(headers, **{"webhook-timestamp": old})),
        ]
        for payload, variant in variants:
            try:
                hook.verify(payload, variant)
                tampered_accepted.append(item["id"])
            except WebhookVerificationError:
                pass
    json.dump({"library": metadata.version("standardwebhooks"), "verified": verified, "refused": refused,
               "tamperedAccepted": tampered_accepted}, sys.stdout)


if __name__ == "__main__":
    main()
