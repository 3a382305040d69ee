#!/usr/bin/env python3
"""The storage host of `make cluster-hosts`: moto's S3 server on a given address, checking AWS
Signature Version 4, with buckets made and objects uploaded before it reports ready.

It reuses scripts/moto-s3.py (the S3 tests' server): the first three calls, which moto lets
through unauthenticated (INITIAL_NO_AUTH_ACTION_COUNT), create an IAM user allowed s3:* and its
access key; with that key it creates every BUCKET named (empty buckets: a bare BUCKET argument)
and uploads every BUCKET/KEY=FILE. Then it writes one JSON line {"port", "accessKeyID",
"secretAccessKey"} to READY_FILE and serves until it is signalled. Every request after the setup
is appended to LOG_FILE as "METHOD /path?query".

    python3 scripts/cluster-storage.py HOST:PORT READY_FILE LOG_FILE results images/a.jpg=/path/a.jpg ...
"""
import importlib.util
import json
import os
import signal
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("moto_s3", os.path.join(HERE, "moto-s3.py"))
moto_s3 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(moto_s3)  # sets INITIAL_NO_AUTH_ACTION_COUNT before moto is imported

from moto.server import DomainDispatcherApplication, create_backend_app  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402


def main():
    bind, ready_path, log_path = sys.argv[1:4]
    host, _, port = bind.rpartition(":")
    recorder = moto_s3.Recorder(DomainDispatcherApplication(create_backend_app), log_path)
    server = make_server(host, int(port), recorder, threaded=True, request_handler=moto_s3.QuietHandler)
    endpoint = f"http://{host}:{server.server_port}"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    threading.Thread(target=server.serve_forever, daemon=True).start()
    iam = moto_s3.client("iam", endpoint)
    iam.create_user(UserName="webimage-cluster")
    iam.put_user_policy(
        UserName="webimage-cluster", PolicyName="s3",
        PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="webimage-cluster")["AccessKey"]
    s3 = moto_s3.client("s3", endpoint, key["AccessKeyId"], key["SecretAccessKey"])
    buckets = set()
    for argument in sys.argv[4:]:
        # The file is after the last "=" (a key may hold "=", a file name here does not).
        target, _, file = argument.rpartition("=") if "=" in argument else (argument, "", "")
        bucket, _, object_key = target.partition("/")
        if bucket not in buckets:
            s3.create_bucket(Bucket=bucket)
            buckets.add(bucket)
        if object_key:
            with open(file, "rb") as f:
                s3.put_object(Bucket=bucket, Key=object_key, Body=f.read())
    recorder.start_recording()
    ready = json.dumps({"port": server.server_port, "accessKeyID": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"]})
    with open(ready_path + ".tmp", "w", encoding="utf-8") as f:
        f.write(ready + "\n")
    os.rename(ready_path + ".tmp", ready_path)
    try:
        while True:
            signal.pause()
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
