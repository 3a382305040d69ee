#!/usr/bin/env bash
# `make test` on a busy machine: stress-ng keeps STRESS_WORKERS CPU workers (default 4) busy for
# the whole suite, which must pass all the same (no test may depend on machine speed). stress-ng
# stops when the suite ends — however it ends — and after STRESS_TIMEOUT seconds (default 3600)
# at the latest. Exits with the suite's status.
set -uo pipefail

workers="${STRESS_WORKERS:-4}"
limit="${STRESS_TIMEOUT:-3600}"
make="${MAKE:-make}"

if ! command -v stress-ng >/dev/null 2>&1; then
  EXTRA_PACKAGES=stress-ng bash "$(dirname "$0")/setup.sh"
fi

stress-ng --cpu "$workers" --timeout "${limit}s" --quiet &
stress=$!
stop_stress() {
  kill -TERM "$stress" 2>/dev/null
  wait "$stress" 2>/dev/null
}
trap stop_stress EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "test-under-load: stress-ng --cpu $workers running (pid $stress, at most $limit s)"
"$make" test
status=$?
echo "test-under-load: make test exited with $status"
exit "$status"
