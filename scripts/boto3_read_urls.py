#!/usr/bin/env python3
"""Presign S3 read URLs with a serving policy with botocore, and read Content-Disposition values the way
Python's email package does, for cross-checking presignd's read URLs.

Reads one JSON document on stdin:
  {"accessKeyId": "...", "secretAccessKey": "...",
   "cases": [{"bucket": "...", "key": "...", "region": "...", "endpoint": "http://...",
              "expires": 7200, "epochSeconds": 1795942771, "contentType": "image/jpeg",
              "contentDisposition": "inline; filename=...", "cacheControl": "private, max-age=7200, immutable"}],
   "dispositions": ["attachment; filename=\"a.jpg\"; filename*=UTF-8''a.jpg", ...]}
and prints
  {"botocore": "<version>", "results": [{"url": "...", "signature": "...", "query": [[name, value], ...]}],
   "parsed": [{"disposition": "attachment", "filename": "a.jpg", "params": [["filename", "a.jpg"], ...]}, ...]}
in case order. Each URL is boto3's generate_presigned_url("get_object", ResponseContentType=...,
ResponseContentDisposition=..., ResponseCacheControl=...), path-style, s3v4, with botocore's clock fixed
at the case's time; `query` is its query as sent (names and values still percent-encoded). Each
disposition is parsed by email.message.Message: its get_content_disposition, get_filename (which picks
the plain `filename` when both forms are there) and get_params, each value RFC 2231-decoded (the
`filename*=UTF-8''…` form of RFC 5987).
"""
import datetime
import email.message
import email.utils
import json
import sys
import urllib.parse

try:
    import boto3
    import botocore
    import botocore.auth
    from botocore.config import Config
except ImportError as error:  # the Swift test reports this message
    sys.exit(f"boto3_read_urls: boto3/botocore is not installed ({error}); run: pip install boto3")

fixed_time = [datetime.datetime(1970, 1, 1)]


def current_datetime(remove_tzinfo=True):
    """botocore's clock, fixed at the case being signed."""
    now = fixed_time[0]
    return now if remove_tzinfo else now.replace(tzinfo=datetime.timezone.utc)


botocore.auth.get_current_datetime = current_datetime


def parse_disposition(value):
    """What a mail or HTTP client built on Python's email package makes of a Content-Disposition value:
    its type, the file name get_filename() picks, and every parameter after the type, RFC 2231 values
    (`filename*=UTF-8''…`) decoded, in order."""
    message = email.message.Message()
    message["Content-Disposition"] = value
    params = message.get_params(header="content-disposition")[1:]
    return {"disposition": message.get_content_disposition(), "filename": message.get_filename(),
            "params": [[name, email.utils.collapse_rfc2231_value(v)] for name, v in params]}


def main():
    document = json.load(sys.stdin)
    clients = {}
    results = []
    for case in document.get("cases", []):
        fixed_time[0] = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=case["epochSeconds"])
        client_key = (case["region"], case["endpoint"])
        if client_key not in clients:
            clients[client_key] = boto3.client(
                "s3", region_name=case["region"], endpoint_url=case["endpoint"],
                aws_access_key_id=document["accessKeyId"], aws_secret_access_key=document["secretAccessKey"],
                config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
        url = clients[client_key].generate_presigned_url("get_object", Params={
            "Bucket": case["bucket"], "Key": case["key"], "ResponseContentType": case["contentType"],
            "ResponseContentDisposition": case["contentDisposition"], "ResponseCacheControl": case["cacheControl"],
        }, ExpiresIn=case["expires"])
        query = [pair.split("=", 1) for pair in urllib.parse.urlsplit(url).query.split("&")]
        signature = [value for name, value in query if name == "X-Amz-Signature"]
        results.append({"url": url, "signature": signature[0], "query": query})
    parsed = [parse_disposition(value) for value in document.get("dispositions", [])]
    json.dump({"botocore": botocore.__version__, "results": results, "parsed": parsed}, sys.stdout,
              ensure_ascii=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
