#!/usr/bin/env bash
# python-venv.sh NAME: makes the Python environment NAME of the tests and tools, a venv under
# `.build-NAME-venv` that sees the system's site packages, and prints its python.
# Idempotent: installs only when the venv cannot import what it needs yet.
#   s3       botocore (the reference SigV4 signer of scripts/sigv4-references.py) and moto's
#            server mode (the S3-compatible server the S3 tests start on loopback)
#   quality  PyPI's `ssimulacra2` (the reference SSIMULACRA2 of scripts/ssimulacra2-reference.py;
#            it brings numpy, scipy and Pillow)
#   hdr      imagecodecs, whose wheels ship libultrahdr (the reference Ultra HDR encoder and
#            decoder the gain-map tests make their inputs with and read our outputs back through),
#            and numpy
#   hdr-bench  pyvips with pyvips-binary (libvips 8.18, the peer of `make bench-hdr`),
#            imagecodecs (libultrahdr) and numpy
set -euo pipefail
cd "$(dirname "$0")/.."
NAME=${1:?usage: scripts/python-venv.sh s3|quality|hdr|hdr-bench}
PYTHON=${PYTHON:-python3}

case "$NAME" in
  s3)
    CHECK="import botocore, moto.server, flask, flask_cors"
    PACKAGES=("botocore==1.43.11" "moto[server]==5.2.1") ;;
  quality)
    CHECK="import ssimulacra2, numpy, scipy, PIL"
    PACKAGES=("ssimulacra2==0.3.0") ;;
  hdr)
    CHECK="import numpy, imagecodecs; imagecodecs.ultrahdr_encode"
    PACKAGES=("imagecodecs==2026.3.6" numpy) ;;
  hdr-bench)
    CHECK="import numpy, imagecodecs, pyvips; assert pyvips.version(1) >= 18"
    PACKAGES=("pyvips==3.2.0" "pyvips-binary==8.18.7" "imagecodecs==2026.3.6" numpy) ;;
  *) echo "python-venv: no environment named '$NAME' (s3, quality, hdr, hdr-bench)" >&2; exit 2 ;;
esac

VENV=.build-$NAME-venv
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv --system-site-packages "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "$CHECK" 2>/dev/null; then
  echo "python-venv: installing ${PACKAGES[*]} into $VENV" >&2
  "$VENV/bin/python" -m pip install -q "${PACKAGES[@]}" >&2
fi
echo "$PWD/$VENV/bin/python"
