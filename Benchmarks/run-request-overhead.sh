#!/usr/bin/env bash
# Per-request overhead of ImageDownloader over a bare AsyncHTTPClient GET (docs/PERFORMANCE.md,
# "Downloader"). The server runs in its own process, so the client's CPU time is the client's.
#   bash Benchmarks/run-request-overhead.sh [RUNS] [ROUNDS] [COUNT] [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
rounds=${2:-31}
count=${3:-100}
bench=${4:-}
if [ -z "$bench" ]; then
    swift build -c release --product webimage-pipeline-bench 2>&1 | grep -E "error|warning: " || true
    bench="$(swift build -c release --show-bin-path)/webimage-pipeline-bench"
fi
coproc SERVER { "$bench" serve "$count"; }
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
read -r -u "${SERVER[0]}" base
for _ in $(seq "$runs"); do
    "$bench" request-overhead "$base" both "$count" "$rounds"
done
