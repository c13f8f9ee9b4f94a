#!/usr/bin/env python3
"""Presign S3 UploadPart URLs and browser form uploads (POST) with botocore, for cross-checking
presignd's signer (Tests/SigV4Tests/PresignerMultipartBotocoreTests.swift).

Reads one JSON document on stdin:
  {"accessKeyId": "...", "secretAccessKey": "...",
   "cases": [{"kind": "upload_part" | "post", "bucket": "...", "key": "...", "region": "...",
              "endpoint": "https://...", "addressing": "path" | "virtual", "expires": 600,
              "epochSeconds": 1795942771, "sessionToken": null | "...",
              "uploadId": "...", "partNumber": 3,                       # upload_part
              "contentType": null | "...", "lengthMin": null | 0, "lengthMax": null | 10,
              "successActionStatus": null | 201}]}                      # post
and prints {"botocore": "<version>", "results": [{"url": "...", "fields": {...} | null}]} in case
order. An upload_part URL comes from generate_presigned_url('upload_part', Params={Bucket, Key,
UploadId, PartNumber}); a form from generate_presigned_post(Bucket, Key, Fields, Conditions) with the
conditions in the order Content-Type, content-length-range, success_action_status. botocore's clock
is fixed at the case's time (botocore.auth and botocore.signers both read it).
"""
import datetime
import json
import sys

try:
    import boto3
    import botocore
    import botocore.auth
    import botocore.signers
    from botocore.config import Config
except ImportError as error:  # the Swift test reports this message
    sys.exit(f"boto3_multipart_crosscheck: boto3/botocore is not installed ({error}); run: pip install boto3")

fixed_time = [datetime.datetime(1970, 1, 1)]


def current_datetime(remove_tzinfo=True):
    """botocore's clock, fixed at the case being signed."""
    now = fixed_time[0]
    return now if remove_tzinfo else now.replace(tzinfo=datetime.timezone.utc)


botocore.auth.get_current_datetime = current_datetime
botocore.signers.get_current_datetime = current_datetime


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
        client = clients[client_key]
        if case["kind"] == "upload_part":
            url = client.generate_presigned_url(
                "upload_part", ExpiresIn=case["expires"],
                Params={"Bucket": case["bucket"], "Key": case["key"], "UploadId": case["uploadId"],
                        "PartNumber": case["partNumber"]})
            results.append({"url": url, "fields": None})
            continue
        fields, conditions = {}, []
        if case.get("contentType") is not None:
            fields["Content-Type"] = case["contentType"]
            conditions.append({"Content-Type": case["contentType"]})
        if case.get("lengthMin") is not None:
            conditions.append(["content-length-range", case["lengthMin"], case["lengthMax"]])
        if case.get("successActionStatus") is not None:
            fields["success_action_status"] = str(case["successActionStatus"])
            conditions.append({"success_action_status": str(case["successActionStatus"])})
        post = client.generate_presigned_post(
            case["bucket"], case["key"], Fields=fields, Conditions=conditions, ExpiresIn=case["expires"])
        results.append({"url": post["url"], "fields": post["fields"]})
    json.dump({"botocore": botocore.__version__, "results": results}, sys.stdout, ensure_ascii=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
