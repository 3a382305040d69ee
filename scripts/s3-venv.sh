#!/usr/bin/env bash
# Makes the Python environment of the S3 tests and tools: `.build-s3-venv`, a venv that sees the
# system's site packages, with botocore (the reference SigV4 signer of scripts/sigv4-references.py)
# and moto's server mode (the S3-compatible server the S3 tests start on loopback).
# Idempotent: installs only what the venv cannot import yet. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build-s3-venv
PYTHON=${PYTHON:-python3}
BOTOCORE_VERSION=1.43.11
MOTO_VERSION=5.2.1

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv --system-site-packages "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "import botocore, moto.server, flask, flask_cors" 2>/dev/null; then
  echo "s3-venv: installing botocore $BOTOCORE_VERSION and moto[server] $MOTO_VERSION into $VENV" >&2
  "$VENV/bin/python" -m pip install -q "botocore==$BOTOCORE_VERSION" "moto[server]==$MOTO_VERSION" >&2
fi
echo "$PWD/$VENV/bin/python"
