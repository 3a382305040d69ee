#!/usr/bin/env bash
# Makes the Python environment of `make bench-resize`: `.build-resize-venv` (no system site
# packages, so the stock Pillow cannot shadow it) with PyPI's `pillow-simd` built from source
# with AVX2 (CC="cc -mavx2", its documented way), and `pyvips` with `pyvips-binary` (libvips
# 8.18 as a wheel, whatever the Debian libvips is). Idempotent: installs only what the venv
# cannot import yet. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build-resize-venv
PYTHON=${PYTHON:-python3}
PILLOW_SIMD_VERSION=12.1.1.post0
PYVIPS_VERSION=3.2.0
PYVIPS_BINARY_VERSION=8.18.7

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "import PIL, sys; sys.exit(0 if 'post' in PIL.__version__ else 1)" 2>/dev/null; then
  echo "resize-venv: building pillow-simd $PILLOW_SIMD_VERSION with AVX2 into $VENV (a few minutes)" >&2
  CC="cc -mavx2" "$VENV/bin/python" -m pip install -q --no-binary pillow-simd --no-cache-dir \
    "pillow-simd==$PILLOW_SIMD_VERSION" >&2
fi
if ! "$VENV/bin/python" -c "import pyvips" 2>/dev/null; then
  echo "resize-venv: installing pyvips $PYVIPS_VERSION + pyvips-binary $PYVIPS_BINARY_VERSION into $VENV" >&2
  "$VENV/bin/python" -m pip install -q "pyvips==$PYVIPS_VERSION" "pyvips-binary==$PYVIPS_BINARY_VERSION" >&2
fi
echo "$PWD/$VENV/bin/python"
