#!/usr/bin/env bash
# `make soak-service` (issue #15, RSS goals): a release `webimage serve` against a loopback
# origin serving generated JPEG/PNG/WebP/GIF sources of 0.3-12 MP (scripts/soak-sources.py, into
# a temporary folder, never committed). Two runs, each on a fresh service process:
#   1. peak: SOAK_PEAK_REQUESTS renders of the 12 MP sources to 500 px, SOAK_PEAK_CONCURRENCY
#      (4) at a time; prints `soak-peak: sources=12MP concurrency=4 requests=N rss_end=YMB peak=WMB`
#   2. soak: SOAK_REQUESTS (100000) renders over every source, each with its own cache buster,
#      width and output format, SOAK_CONCURRENCY (4) at a time; VmRSS read after the first 10 %
#      and at the end, VmHWM (peak); prints
#        soak: requests=N rss_10pct=XMB rss_end=YMB growth=Z% peak=WMB
# SOAK_PEAK_SOURCES=.webp (a name ending) limits the peak run to those 12 MP sources, and
# SOAK_PEAK_ONLY=1 skips the soak run (e.g. one format's shrink-on-load peak, issue #15).
# SOAK_PEAK_DISTINCT=1 gives every peak request a source URL of its own (same bytes; see
# soak-load.py): 4 distinct 12 MP sources in memory at once instead of one shared source.
# SOAK_SERVICE_ENV adds environment to the service only (e.g. `MALLOC_ARENA_MAX=4`, or
# `LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2`); WEBIMAGE_BIN skips the build.
# SOAK_RESULT_CACHE_BYTES (default 8 MiB) bounds the service's result cache, so the figures show
# the renders' memory rather than the cache filling up (which the default 64 MiB would do).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SWIFT="${SWIFT:-swift}"
REQUESTS="${SOAK_REQUESTS:-100000}"
CONCURRENCY="${SOAK_CONCURRENCY:-4}"
PEAK_REQUESTS="${SOAK_PEAK_REQUESTS:-60}"
PEAK_CONCURRENCY="${SOAK_PEAK_CONCURRENCY:-4}"
RESULT_CACHE_BYTES="${SOAK_RESULT_CACHE_BYTES:-8388608}"
read -r -a SERVICE_ENV <<<"${SOAK_SERVICE_ENV:-}"

cd "$ROOT"
if [ -n "${WEBIMAGE_BIN:-}" ]; then
  BIN="$WEBIMAGE_BIN"
else
  # shellcheck disable=SC2086
  timeout 3600 "$SWIFT" build -c release --product webimage ${SWIFT_BUILD_FLAGS:-} >&2
  BIN="$("$SWIFT" build -c release --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage"
fi
python3 -c "import PIL" 2>/dev/null || python3 -m pip install -q pillow

WORK="$(mktemp -d /tmp/webimage-soak.XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_http() { # URL: polls for a 200, up to 60 s
  local deadline=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$deadline" ]; do
    curl -fs -o /dev/null --max-time 5 "$1" && return 0
    sleep 0.1
  done
  echo "soak-service: $1 did not answer" >&2; return 1
}

echo "soak-service: generating sources" >&2
mkdir -p "$WORK/origin"
python3 "$ROOT/scripts/soak-sources.py" "$WORK/origin" >"$WORK/sources.txt"
ORIGIN_PORT="$(free_port)"
python3 -m http.server "$ORIGIN_PORT" --bind 127.0.0.1 -d "$WORK/origin" >"$WORK/origin.log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$ORIGIN_PORT/p03.jpg"

run() { # NAME COUNT CONCURRENCY [peak]: a fresh service (own source cache) and one load run
  local port; port="$(free_port)"
  rm -rf "$WORK/cache-$1"
  env "${SERVICE_ENV[@]}" "$BIN" serve --bind "127.0.0.1:$port" --cache-dir "$WORK/cache-$1" \
    --allow-network loopback --result-cache-bytes "$RESULT_CACHE_BYTES" \
    --download-timeout 120 --max-processing-time 300 >"$WORK/$1.out" 2>"$WORK/$1.err" &
  local pid=$!
  PIDS+=("$pid")
  wait_http "http://127.0.0.1:$port/health"
  python3 "$ROOT/scripts/soak-load.py" "http://127.0.0.1:$port" "http://127.0.0.1:$ORIGIN_PORT" \
    "$WORK/sources.txt" "$2" "$3" "$pid" ${4:-}
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
echo "soak-service: service environment: ${SOAK_SERVICE_ENV:-(none)}" >&2
run peak "$PEAK_REQUESTS" "$PEAK_CONCURRENCY" peak
[ "${SOAK_PEAK_ONLY:-0}" = 1 ] || run soak "$REQUESTS" "$CONCURRENCY"
