#!/usr/bin/env bash
# Runs the built test bundle (`swift build --build-tests` first) with Swift Testing's verbose
# output — a line when each test starts and when it ends, written as it happens — through
# scripts/test-watch.py, which names a test still running after TEST_REPORT_SECONDS (default
# 300) and, when no test has ended for TEST_HANG_SECONDS (default 1800), names every test still
# running and stops the run. Arguments go to the test bundle (`--filter PATTERN`, `--skip PATTERN`).
set -euo pipefail

swift="${SWIFT:-swift}"
# shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags
bin="$("$swift" build --show-bin-path ${SWIFT_BUILD_FLAGS:-})"
bundle="$bin/swift-web-imagePackageTests.xctest"
if [[ ! -x "$bundle" ]]; then
  echo "run-tests: $bundle not found (run swift build --build-tests first)" >&2
  exit 1
fi
exec python3 "$(dirname "$0")/test-watch.py" \
  --report "${TEST_REPORT_SECONDS:-300}" --hang "${TEST_HANG_SECONDS:-1800}" \
  -- "$bundle" --testing-library swift-testing --verbose "$@"
