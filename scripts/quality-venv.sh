#!/usr/bin/env bash
# Makes the Python environment of the perceptual-metric tests: `.build-quality-venv`, a venv that
# sees the system's site packages, with PyPI's `ssimulacra2` (the reference SSIMULACRA2 that
# scripts/ssimulacra2-reference.py runs; it brings numpy, scipy and Pillow).
# Idempotent: installs only what the venv cannot import yet. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build-quality-venv
PYTHON=${PYTHON:-python3}
SSIMULACRA2_VERSION=0.3.0

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv --system-site-packages "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "import ssimulacra2, numpy, scipy, PIL" 2>/dev/null; then
  echo "quality-venv: installing ssimulacra2 $SSIMULACRA2_VERSION into $VENV" >&2
  "$VENV/bin/python" -m pip install -q "ssimulacra2==$SSIMULACRA2_VERSION" >&2
fi
echo "$PWD/$VENV/bin/python"
