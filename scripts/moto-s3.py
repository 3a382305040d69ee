#!/usr/bin/env python3
"""An S3-compatible server for the S3 tests: moto's server mode on 127.0.0.1, on a free port,
checking AWS Signature Version 4 (INITIAL_NO_AUTH_ACTION_COUNT).

It starts moto, then — with the first three calls, which moto lets through unauthenticated —
creates an IAM user with a policy allowing s3:* and an access key; with that key it creates the
buckets and uploads the objects named on the command line (BUCKET/KEY=FILE). Then it writes one
JSON line {"port", "accessKeyID", "secretAccessKey"} to READY_FILE (and stdout) and serves until
its standard input closes (so it never outlives the test that started it).

Every request after the setup is appended to LOG_FILE as one line "METHOD /path?query" before
moto handles it: when a client has its answer, the line is there.

    python3 scripts/moto-s3.py READY_FILE LOG_FILE images/cat.png=/path/to/cat.png ...
"""
import json
import os
import sys
import threading

os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
os.environ.setdefault("MOTO_ALLOW_NONEXISTENT_REGION", "true")

import botocore.session  # noqa: E402
from botocore.config import Config  # noqa: E402
from moto.server import DomainDispatcherApplication, create_backend_app  # noqa: E402
from werkzeug.serving import make_server, WSGIRequestHandler  # noqa: E402

REGION = "us-east-1"


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass


class Recorder:
    def __init__(self, app, log_path):
        self.app = app
        self.lock = threading.Lock()
        self.log = None
        self.log_path = log_path

    def start_recording(self):
        with self.lock:
            self.log = open(self.log_path, "a", encoding="utf-8")

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        query = environ.get("QUERY_STRING", "")
        raw = environ.get("RAW_URI") or environ.get("REQUEST_URI") or (path + ("?" + query if query else ""))
        with self.lock:
            if self.log is not None:
                self.log.write(environ.get("REQUEST_METHOD", "") + " " + raw + "\n")
                self.log.flush()
        return self.app(environ, start_response)


def client(service, endpoint, key_id="test", secret="test"):
    return botocore.session.get_session().create_client(
        service, region_name=REGION, endpoint_url=endpoint, aws_access_key_id=key_id, aws_secret_access_key=secret,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 0}))


def main():
    ready_path, log_path = sys.argv[1], sys.argv[2]
    recorder = Recorder(DomainDispatcherApplication(create_backend_app), log_path)
    server = make_server("127.0.0.1", 0, recorder, threaded=True, request_handler=QuietHandler)
    port = server.server_port
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{port}"

    iam = client("iam", endpoint)
    iam.create_user(UserName="webimage-test")
    iam.put_user_policy(
        UserName="webimage-test", PolicyName="s3",
        PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="webimage-test")["AccessKey"]
    s3 = client("s3", endpoint, key["AccessKeyId"], key["SecretAccessKey"])
    buckets = set()
    for argument in sys.argv[3:]:
        # The file is after the last "=" (a key may hold "=", a file name here does not).
        target, _, file = argument.rpartition("=") if "=" in argument else (argument, "", "")
        bucket, _, object_key = target.partition("/")
        if bucket not in buckets:
            s3.create_bucket(Bucket=bucket)
            buckets.add(bucket)
        with open(file, "rb") as f:
            s3.put_object(Bucket=bucket, Key=object_key, Body=f.read())
    recorder.start_recording()
    ready = json.dumps({"port": port, "accessKeyID": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"]})
    with open(ready_path + ".tmp", "w", encoding="utf-8") as f:
        f.write(ready + "\n")
    os.rename(ready_path + ".tmp", ready_path)
    print(ready, flush=True)
    try:
        sys.stdin.read()
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
