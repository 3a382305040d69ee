#!/usr/bin/env bash
# Makes the Python environment of `make bench-hdr`: `.build-hdr-bench-venv`, a venv of its own
# (no system site packages, so pyvips loads the libvips of pyvips-binary, 8.18) with pyvips,
# pyvips-binary, imagecodecs (libultrahdr) and numpy. Idempotent. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build-hdr-bench-venv
PYTHON=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "import numpy, imagecodecs, pyvips; assert pyvips.version(1) >= 18" 2>/dev/null; then
  echo "hdr-bench-venv: installing pyvips, pyvips-binary 8.18, imagecodecs and numpy into $VENV" >&2
  "$VENV/bin/python" -m pip install -q "pyvips==3.2.0" "pyvips-binary==8.18.7" "imagecodecs==2026.3.6" numpy >&2
fi
echo "$PWD/$VENV/bin/python"
