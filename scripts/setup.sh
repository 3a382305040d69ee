#!/usr/bin/env bash
# Installs the Debian packages swift-web-image needs, and only those that are missing.
# Idempotent: a no-op when everything is present. Runs as root, or through sudo.
set -euo pipefail

# Codec libraries (headers + shared objects) the system-library targets link against.
BUILD_PACKAGES=(libturbojpeg0-dev libjpeg62-turbo-dev libspng-dev libwebp-dev libgif-dev libavif-dev libheif-dev libjxl-dev libtiff-dev liblcms2-dev librsvg2-dev libpoppler-glib-dev pkg-config)
# What the tests run besides the build: `cjpeg` and `jpegtran` (libjpeg-turbo-progs) write the
# progressive JPEGs of the reduced-scan tests; `script` (util-linux, package bsdutils) drives the
# terminal tests on a pseudo-terminal; `stress-ng` keeps the CPUs busy for `make test-under-load`;
# `rsvg-convert` (librsvg2-bin) renders the SVG references; GNU `time` (package time) reports a
# child's own peak RSS for the decode-budget tests (a child spawned straight from the big test
# process would inherit the test process's high-water mark across exec); `nginx` (plus `curl`,
# `procps` for pgrep, `python3`) runs the short cluster run of ClusterTests (scripts/cluster-demo.sh,
# SPEC V-10) — Debian's `nginx` package, which bookworm's transitional `nginx-light` also installs;
# `python3-venv` makes `.build-s3-venv` (scripts/s3-venv.sh: botocore and moto's S3 server for the
# S3 tests), which the Makefile's setup target fills after this script; `iproute2` (`ip netns`,
# veth links) builds the hosts of `make cluster-hosts` and its short run in ClusterHostsTests.
TEST_PACKAGES=(libjpeg-turbo-progs bsdutils stress-ng librsvg2-bin time nginx curl procps python3 python3-venv iproute2)
# CEPH=1 (make test, make setup-ceph, make cluster-hosts S3_BACKEND=ceph): Ceph's RADOS Gateway,
# the real S3 that scripts/ceph-rgw.sh starts for the S3 suites and the cluster (64 packages,
# about 270 MB installed, about 25-30 s here).
CEPH_PACKAGES=(ceph-mon ceph-osd radosgw ceph-common)
if [ "${CEPH:-0}" = 1 ]; then EXTRA_PACKAGES="${EXTRA_PACKAGES:-} ${CEPH_PACKAGES[*]}"; fi

missing=()
for p in "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" ${EXTRA_PACKAGES:-}; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists: update before the first install.
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
