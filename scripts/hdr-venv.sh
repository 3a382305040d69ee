#!/usr/bin/env bash
# Makes the Python environment of the gain-map tests: `.build-hdr-venv`, a venv that sees the
# system's site packages, with imagecodecs (whose wheels ship libultrahdr: the reference Ultra
# HDR encoder and decoder the tests make their inputs with and read our outputs back through)
# and numpy. Idempotent: installs only what the venv cannot import yet. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build-hdr-venv
PYTHON=${PYTHON:-python3}
IMAGECODECS_VERSION=2026.3.6

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv --system-site-packages "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "import numpy, imagecodecs; imagecodecs.ultrahdr_encode" 2>/dev/null; then
  echo "hdr-venv: installing imagecodecs $IMAGECODECS_VERSION (libultrahdr) and numpy into $VENV" >&2
  "$VENV/bin/python" -m pip install -q "imagecodecs==$IMAGECODECS_VERSION" numpy >&2
fi
echo "$PWD/$VENV/bin/python"
