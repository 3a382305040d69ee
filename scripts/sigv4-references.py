#!/usr/bin/env python3
"""Writes Tests/Fixtures/sigv4/references.json: S3 GetObject and PutObject requests as botocore
builds and signs them, the reference of the Swift SigV4 signer's tests (S3SignatureV4Tests).

For each case, botocore's S3 client serialises a GetObject request (bucket, key, versionId,
addressing style, endpoint) and the request's URL is captured before anything is sent; then
botocore's S3SigV4Auth signs a GET of that URL with no other header at a fixed time. The PUT
cases do the same with PutObject and sign a PUT of that URL with the case's body (over plain
http, where botocore always signs the body's SHA-256). The table keeps the URL, the method, the
body and the signature headers.

Run it in the venv of scripts/s3-venv.sh:
    "$(bash scripts/s3-venv.sh)" scripts/sigv4-references.py
"""
import datetime
import json
import os
import sys
from unittest import mock

import botocore
import botocore.auth
import botocore.session
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

FIXED = datetime.datetime(2026, 1, 27, 12, 34, 56)
KEY_ID = "AKIDEXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
TOKEN = "IQoJb3JpZ2luX2VjEXAMPLE//////////wEaCXVzLWVhc3QtMSJHMEUCIQ=="

CASES = [
    # name, bucket, key, version, region, endpoint, style, token
    ("plain", "images", "photos/cat.jpg", None, "us-east-1", "http://127.0.0.1:9000", "path", False),
    ("space", "images", "my photos/a b.jpg", None, "us-east-1", "http://127.0.0.1:9000", "path", False),
    ("plus", "images", "a+b=c&d.png", None, "eu-west-1", "http://127.0.0.1:9000", "path", False),
    ("unicode", "images", "fotos/Ünïcødé 猫.webp", None, "us-east-1", "http://127.0.0.1:9000", "path", False),
    ("dotdot", "images", "a/../b/./c.jpg", None, "us-east-1", "http://127.0.0.1:9000", "path", False),
    ("tilde-and-specials", "images", "~user/(1)!*'@$,;:.jpg", None, "us-east-1", "http://127.0.0.1:9000", "path", False),
    ("percent", "images", "100% real%20.jpg", None, "us-east-1", "http://127.0.0.1:9000", "path", False),
    ("version", "images", "v/cat.jpg", "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY", "us-east-1", "http://127.0.0.1:9000", "path", False),
    ("session-token", "images", "cat.jpg", None, "us-west-2", "http://127.0.0.1:9000", "path", True),
    ("https-default-port", "images", "cat.jpg", None, "ap-southeast-2", "https://storage.example.com", "path", False),
    ("virtual-host", "my-images", "dir/cat dog.jpg", None, "us-west-2", None, "virtual", False),
    ("virtual-host-token-version", "my-images", "x+y.png", "null", "eu-central-1", None, "virtual", True),
]

PUT_CASES = [
    # name, bucket, key, region, endpoint, token, body
    ("put-result", "results", "renders/v1/0123456789abcdef", "us-east-1", "http://127.0.0.1:9000", False,
     "webimage-result-v1\n{\"contentType\":\"image/webp\"}body bytes"),
    ("put-token-unicode", "results", "prefix with space/Ünï+key", "eu-west-1", "http://127.0.0.1:9000", True, "x" * 1000),
    ("put-empty", "results", "empty", "us-west-2", "http://127.0.0.1:9000", False, ""),
]


def botocore_url(bucket, key, version, region, endpoint, style, operation="get_object"):
    session = botocore.session.get_session()
    client = session.create_client(
        "s3", region_name=region, endpoint_url=endpoint,
        aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET,
        config=Config(s3={"addressing_style": style}, retries={"max_attempts": 0}),
    )
    captured = {}

    class Captured(Exception):
        pass

    def capture(request, **kwargs):
        captured["url"] = request.url
        raise Captured()

    client.meta.events.register("before-send.s3", capture)
    params = {"Bucket": bucket, "Key": key}
    if version is not None:
        params["VersionId"] = version
    if operation == "put_object":
        params["Body"] = b""
    try:
        getattr(client, operation)(**params)
    except Captured:
        pass
    return captured["url"]


def sign(url, region, token, method="GET", body=None):
    credentials = Credentials(KEY_ID, SECRET, TOKEN if token else None)
    request = AWSRequest(method=method, url=url, headers={}, data=body)
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=FIXED):
        botocore.auth.S3SigV4Auth(credentials, "s3", region).add_auth(request)
    return request.headers


def main():
    out = []
    for name, bucket, key, version, region, endpoint, style, token in CASES:
        url = botocore_url(bucket, key, version, region, endpoint, style)
        headers = sign(url, region, token)
        out.append({
            "name": name, "bucket": bucket, "key": key, "versionId": version, "region": region,
            "endpoint": endpoint, "pathStyle": style == "path",
            "sessionToken": TOKEN if token else None,
            "url": url,
            "amzDate": headers["X-Amz-Date"],
            "contentSHA256": headers["X-Amz-Content-SHA256"],
            "authorization": headers["Authorization"],
        })
    for name, bucket, key, region, endpoint, token, body in PUT_CASES:
        url = botocore_url(bucket, key, None, region, endpoint, "path", operation="put_object")
        headers = sign(url, region, token, method="PUT", body=body.encode("utf-8"))
        out.append({
            "name": name, "bucket": bucket, "key": key, "versionId": None, "region": region,
            "endpoint": endpoint, "pathStyle": True,
            "sessionToken": TOKEN if token else None,
            "url": url, "method": "PUT", "body": body,
            "amzDate": headers["X-Amz-Date"],
            "contentSHA256": headers["X-Amz-Content-SHA256"],
            "authorization": headers["Authorization"],
        })
    document = {
        "generator": "scripts/sigv4-references.py with botocore " + botocore.__version__,
        "accessKeyID": KEY_ID, "secretAccessKey": SECRET,
        "date": FIXED.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cases": out,
    }
    path = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "sigv4", "references.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {len(out)} cases to {os.path.normpath(path)}", file=sys.stderr)


if __name__ == "__main__":
    main()
