#!/usr/bin/env bash
# Result-cache hits served by `webimage serve` itself (issue #15, docs/PERFORMANCE.md "Service:
# result-cache hits"): one URL whose answer is a ~35 KB JPEG, warmed once, then
# `wrk -t2 -c8 -d${BENCH_SECONDS:-10}s`. Prints wrk's summary and the service CPU per request
# (utime+stime of the process over the run ÷ requests). Needs the release build and wrk
# (installed through scripts/setup.sh when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${WEBIMAGE_BIN:-.build/release/webimage}"
SECONDS_RUN="${BENCH_SECONDS:-10}"
command -v wrk >/dev/null 2>&1 || EXTRA_PACKAGES=wrk bash scripts/setup.sh
[ -x "$BIN" ] || { echo "bench-hits: build the release tool first (make release)" >&2; exit 1; }

WORK="$(mktemp -d /tmp/webimage-bench-hits.XXXXXX)"
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

# A 600×400 noisy gradient PNG (noise keeps the JPEG answer near 35 KB).
python3 - "$WORK/photo.png" <<'PY'
import random, struct, sys, zlib
w, h = 600, 400
random.seed(1)
rows = []
for y in range(h):
    row = bytearray([0])
    for x in range(w):
        n = random.randint(-20, 20)
        row += bytes([max(0, min(255, x * 255 // w + n)), max(0, min(255, y * 255 // h + n)), max(0, min(255, 128 + n))])
    rows.append(bytes(row))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY

"$BIN" serve --bind 127.0.0.1:0 --local-root "$WORK" > "$WORK/out" 2> "$WORK/err" &
SERVER=$!
for _ in $(seq 100); do grep -q '^listening on ' "$WORK/out" && break; sleep 0.1; done
BASE="$(sed -n 's/^listening on //p' "$WORK/out")"
[ -n "$BASE" ] || { echo "bench-hits: the service did not start" >&2; cat "$WORK/err" >&2; exit 1; }
URL="$BASE/insecure/w:420/q:89/plain/local://photo.png@jpg"
SIZE="$(curl -s -o /dev/null -w '%{size_download}' "$URL")"
echo "bench-hits: $URL ($SIZE bytes)"

ticks() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }
BEFORE="$(ticks)"
OUTPUT="$(timeout $((SECONDS_RUN + 60)) wrk -t2 -c8 -d"${SECONDS_RUN}s" "$URL")"
AFTER="$(ticks)"
echo "$OUTPUT"
REQUESTS="$(echo "$OUTPUT" | awk '/requests in/ {print $1}')"
HZ="$(getconf CLK_TCK)"
awk -v t=$((AFTER - BEFORE)) -v n="$REQUESTS" -v hz="$HZ" 'BEGIN { if (n > 0) printf "bench-hits: service CPU per request %.1f µs (%d requests)\n", t * 1e6 / hz / n, n }'
echo "bench-hits: load average $(cut -d' ' -f1-3 /proc/loadavg)"
