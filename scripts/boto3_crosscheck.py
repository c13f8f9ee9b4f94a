#!/usr/bin/env python3
"""Presign S3 URLs with botocore, for cross-checking presignd's SigV4 signer.

Reads one JSON document on stdin:
  {"accessKeyId": "...", "secretAccessKey": "...",
   "cases": [{"method": "PUT", "bucket": "...", "key": "...", "region": "...",
              "endpoint": "https://...", "addressing": "path" | "virtual",
              "expires": 600, "epochSeconds": 1795942771,
              "signedHeaders": {"content-type": "image/jpeg", ...}, "sessionToken": null | "..."}]}
and prints {"botocore": "<version>", "results": [{"url": "...", "signature": "..."}]} in case order.

Each URL is made the way an application makes it: boto3.client("s3", signature_version="s3v4")
.generate_presigned_url(...), with botocore's clock fixed at the case's time. The script refuses
(exit 1) a URL whose query holds anything beyond the SigV4 parameters (x-id, checksum parameters),
so that a signature comparison is always made on the same canonical input.
"""
import datetime
import json
import sys
import urllib.parse

try:
    import boto3
    import botocore
    import botocore.auth
    from botocore.config import Config
except ImportError as error:  # the Swift test reports this message
    sys.exit(f"boto3_crosscheck: boto3/botocore is not installed ({error}); run: pip install boto3")

OPERATIONS = {"PUT": "put_object", "GET": "get_object", "HEAD": "head_object", "DELETE": "delete_object"}
HEADER_PARAMETERS = {
    "content-type": ("ContentType", str),
    "content-length": ("ContentLength", int),
    "content-md5": ("ContentMD5", str),
    "x-amz-checksum-sha256": ("ChecksumSHA256", str),
    "if-none-match": ("IfNoneMatch", str),
    "range": ("Range", str),
}
AUTH_PARAMETERS = {"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders",
                   "X-Amz-Signature"}

fixed_time = [datetime.datetime(1970, 1, 1)]


def current_datetime(remove_tzinfo=True):
    """botocore's clock, fixed at the case being signed."""
    now = fixed_time[0]
    return now if remove_tzinfo else now.replace(tzinfo=datetime.timezone.utc)


botocore.auth.get_current_datetime = current_datetime


def main():
    document = json.load(sys.stdin)
    clients = {}
    results = []
    for case in document["cases"]:
        fixed_time[0] = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=case["epochSeconds"])
        token = case.get("sessionToken")
        client_key = (case["region"], case["endpoint"], case["addressing"], token)
        if client_key not in clients:
            clients[client_key] = boto3.client(
                "s3", region_name=case["region"], endpoint_url=case["endpoint"],
                aws_access_key_id=document["accessKeyId"], aws_secret_access_key=document["secretAccessKey"],
                aws_session_token=token,
                config=Config(signature_version="s3v4", s3={"addressing_style": case["addressing"]}))
        params = {"Bucket": case["bucket"], "Key": case["key"]}
        for name, value in case.get("signedHeaders", {}).items():
            parameter, kind = HEADER_PARAMETERS[name]
            params[parameter] = kind(value)
        url = clients[client_key].generate_presigned_url(
            OPERATIONS[case["method"]], Params=params, ExpiresIn=case["expires"])
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True)
        expected = AUTH_PARAMETERS | ({"X-Amz-Security-Token"} if token else set())
        if set(query) != expected:
            sys.exit(f"boto3_crosscheck: botocore added or dropped query parameters: {sorted(set(query) ^ expected)}")
        signed = query["X-Amz-SignedHeaders"][0].split(";")
        wanted = sorted(["host"] + list(case.get("signedHeaders", {})))
        if signed != wanted:
            sys.exit(f"boto3_crosscheck: botocore signed {signed}, the case asks for {wanted}")
        results.append({"url": url, "signature": query["X-Amz-Signature"][0]})
    json.dump({"botocore": botocore.__version__, "results": results}, sys.stdout, ensure_ascii=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
