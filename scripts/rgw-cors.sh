#!/usr/bin/env bash
# rgw-cors.sh - apply the bucket CORS rule browser uploads need (presigned PUT, multipart parts,
# presigned POST) to the test RGW, with a signed PutBucketCors (boto3), then print the rule back.
#
# Usage:   bash scripts/rgw-cors.sh ORIGIN[,ORIGIN...]      e.g. https://app.example.com
# Needs:   S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET (as start-s3.sh exports them);
#          optional S3_REGION (us-east-1), S3_CORS_MAX_AGE (3000 seconds).
#
# The rule: AllowedOrigins as given, AllowedMethods PUT POST GET HEAD, AllowedHeaders *,
# ExposeHeaders ETag and Location, MaxAgeSeconds. Without ETag exposed a browser cannot read a
# part's ETag, so Uppy's multipart upload stalls at 100 % before CompleteMultipartUpload.
set -euo pipefail
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 ORIGIN[,ORIGIN...]" >&2; exit 2; }
for name in S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET; do
  [ -n "${!name:-}" ] || { echo "[rgw-cors] $name is not set (eval \"\$(bash scripts/start-s3.sh)\")" >&2; exit 2; }
done
CORS_ORIGINS=$1 S3_REGION=${S3_REGION:-us-east-1} S3_CORS_MAX_AGE=${S3_CORS_MAX_AGE:-3000} python3 - <<'PY'
import json
import os
import sys

try:
    import boto3
    from botocore.config import Config
except ImportError as error:
    sys.exit(f"[rgw-cors] boto3 is not installed ({error})")

env = os.environ
client = boto3.client(
    "s3", endpoint_url=env["S3_ENDPOINT"], region_name=env["S3_REGION"],
    aws_access_key_id=env["S3_ACCESS_KEY"], aws_secret_access_key=env["S3_SECRET_KEY"],
    config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
rule = {
    "AllowedOrigins": [origin.strip() for origin in env["CORS_ORIGINS"].split(",") if origin.strip()],
    "AllowedMethods": ["PUT", "POST", "GET", "HEAD"],
    "AllowedHeaders": ["*"],
    "ExposeHeaders": ["ETag", "Location"],
    "MaxAgeSeconds": int(env["S3_CORS_MAX_AGE"]),
}
client.put_bucket_cors(Bucket=env["S3_BUCKET"], CORSConfiguration={"CORSRules": [rule]})
applied = client.get_bucket_cors(Bucket=env["S3_BUCKET"])["CORSRules"]
print(json.dumps(applied))
PY
