#!/usr/bin/env bash
# Runs the built test bundle (`swift build --build-tests` first) with Swift Testing's verbose
# output — a line when each test starts and when it ends, written as it happens — through
# scripts/test-watch.py, which names a test still running after TEST_REPORT_SECONDS (default
# 300) and, when no test has ended for TEST_HANG_SECONDS (default 1800), names every test still
# running and stops the run. Arguments go to the test bundle (`--filter PATTERN`, `--skip PATTERN`).
#
# One known crash is not ours: Foundation's `Process.run()` on Linux (Swift 6.3) reads 256 bytes
# of every `/proc/self/fd` entry's name wherever the entry sits, past the end of glibc's buffer
# when it is the last one before an unmapped page, and the whole test process dies with "Bad
# pointer dereference" in `Process.run()` (swiftlang/swift-corelibs-foundation#5472, fixed
# upstream, not in the toolchain here). It strikes at random in a small share of the runs that
# start child processes. When the run dies that way — the crashed thread's frames name
# `Process.run()` — the same tests are run again, at most RUN_TESTS_CRASH_RETRIES times
# (default 2), and it is said on standard error. A failing test, a hang, or any other crash is
# never run again.
set -euo pipefail

swift="${SWIFT:-swift}"
# shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags
bin="$("$swift" build --show-bin-path ${SWIFT_BUILD_FLAGS:-})"
bundle="$bin/swift-web-imagePackageTests.xctest"
if [[ ! -x "$bundle" ]]; then
  echo "run-tests: $bundle not found (run swift build --build-tests first)" >&2
  exit 1
fi
log="$(mktemp -t run-tests.XXXXXX)"
trap 'rm -f "$log"' EXIT
retries="${RUN_TESTS_CRASH_RETRIES:-2}"
attempt=0
while :; do
  status=0
  python3 "$(dirname "$0")/test-watch.py" \
    --report "${TEST_REPORT_SECONDS:-300}" --hang "${TEST_HANG_SECONDS:-1800}" \
    -- "$bundle" --testing-library swift-testing --verbose "$@" 2>&1 | tee "$log" || status=$?
  [[ "$status" -eq 0 ]] && exit 0
  # The crashed thread's frames: from "Thread N … crashed:" to the next thread or the registers.
  if [[ "$attempt" -lt "$retries" ]] && grep -aq '^\*\*\* Program crashed' "$log" &&
    awk '/^Thread .* crashed:/ { on = 1; next } on && /^(Thread |Registers)/ { exit } on' "$log" |
    grep -aqE 'Process\.run\(\)|findMaximumOpenFromProcSelfFD'; then
    attempt=$((attempt + 1))
    echo "run-tests: the test process died in Foundation's Process.run() (swift-corelibs-foundation#5472, not this project's code); running the same tests again ($attempt of $retries)" >&2
    continue
  fi
  exit "$status"
done
