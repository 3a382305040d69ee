#!/usr/bin/env bash
# Progressive JPEG thumbnails (SPEC C-4a): `webimage convert IN OUT --thumbnail N` on the 12 MP
# corpus photo re-encoded by cjpeg at q85 progressive, against the same pixels as baseline q85,
# and `vipsthumbnail -s N` on both. Whole processes, interleaved, CPU time (user + system of the
# child) per run; medians. 250 px reaches a 1/8 decode (the reduced-scan path); 500 px decodes at
# 1/4 in both tools (each keeps a 2× margin over the target), where every scan is needed.
# usage (from the project root): bash Benchmarks/run-thumbnail-progressive.sh [RUNS]
# BEFORE_BIN=path/to/another/webimage adds that build as "before" contenders, interleaved with
# this one (CLI rows and a second server), to measure a change.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-15}
DATA=.build-bench-data
SRC=${WEBIMAGE_CORPUS:-../shared/corpus}/sdwebimage/TestJFIF.jpg
mkdir -p "$DATA"
if [ ! -f "$DATA/photo-12mp-q85-progressive.jpg" ]; then
  djpeg -ppm "$SRC" > "$DATA/photo-12mp.ppm"
  cjpeg -quality 85 -outfile "$DATA/photo-12mp-q85-baseline.jpg" "$DATA/photo-12mp.ppm"
  cjpeg -quality 85 -progressive -outfile "$DATA/photo-12mp-q85-progressive.jpg" "$DATA/photo-12mp.ppm"
  rm "$DATA/photo-12mp.ppm"
fi
${SWIFT:-swift} build -c release --product webimage >/dev/null
BIN=$(${SWIFT:-swift} build -c release --show-bin-path)/webimage
export VIPS_CONCURRENCY=1
python3 - "$RUNS" "$BIN" "$DATA" "${SIZES:-250 500}" "${BEFORE_BIN:-}" <<'EOF'
import os, resource, statistics, subprocess, sys, tempfile
runs, binary, data, sizes = int(sys.argv[1]), sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4].split()]
before = sys.argv[5]
files = {k: os.path.join(data, f"photo-12mp-q85-{k}.jpg") for k in ("baseline", "progressive")}
out = os.path.join(tempfile.mkdtemp(), "thumb.jpg")

def cpu_ms(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)

for size in sizes:
    contenders = {}
    for kind, path in files.items():
        contenders[f"ours {kind}"] = [binary, "convert", path, out, "--thumbnail", str(size)]
        if before:
            contenders[f"before {kind}"] = [before, "convert", path, out, "--thumbnail", str(size)]
        contenders[f"vipsthumbnail {kind}"] = ["vipsthumbnail", path, "-s", str(size), "-o", out]
    times = {name: [] for name in contenders}
    for name, cmd in contenders.items():
        cpu_ms(cmd)  # warm the page cache
    for _ in range(runs):
        for name, cmd in contenders.items():
            times[name].append(cpu_ms(cmd))
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"== 4032x3024 q85 -> --thumbnail {size} ({runs} interleaved runs, CPU ms per process, median)")
    for name in contenders:
        print(f"  {name:26s} {med[name]:7.1f}")
    print(f"  ours progressive / ours baseline:          {med['ours progressive'] / med['ours baseline']:.2f}x")
    print(f"  ours progressive / vipsthumbnail progressive: {med['ours progressive'] / med['vipsthumbnail progressive']:.2f}x")
    if before:
        print(f"  before progressive / before baseline:      {med['before progressive'] / med['before baseline']:.2f}x")
EOF
# The service (`webimage serve`, imgproxy geometry: shrink on load without a 2x margin, so
# 500 px from 4032x3024 decodes at 1/8): server CPU per request, a new cache buster each time.
PORT=${PORT:-18735}
"$BIN" serve --bind "127.0.0.1:$PORT" --local-root "$PWD/$DATA" >/dev/null 2>&1 &
SERVER=$!
SERVERS="ours:$SERVER:$PORT"
if [ -n "${BEFORE_BIN:-}" ]; then
  "$BEFORE_BIN" serve --bind "127.0.0.1:$((PORT + 1))" --local-root "$PWD/$DATA" >/dev/null 2>&1 &
  BEFORE_SERVER=$!
  SERVERS="$SERVERS before:$BEFORE_SERVER:$((PORT + 1))"
fi
trap 'kill $SERVER ${BEFORE_SERVER:-} 2>/dev/null || true' EXIT
for server in $SERVERS; do
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:${server##*:}/health" && break; sleep 0.2; done
done
python3 - 9 5 $SERVERS <<'PY'
import os, statistics, sys, urllib.request
rounds, batch = int(sys.argv[1]), int(sys.argv[2])
servers = [tuple(s.split(":")) for s in sys.argv[3:]]  # label, pid, port
tick = os.sysconf("SC_CLK_TCK")
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / tick
counter = [0]
def get(port, kind, size):
    counter[0] += 1  # a new cache buster each time: every request renders
    url = f"http://127.0.0.1:{port}/insecure/rs:fit:{size}:{size}/cb:{counter[0]}/plain/local:///photo-12mp-q85-{kind}.jpg@jpg"
    with urllib.request.urlopen(url) as r: r.read()
for size in (500,):
    times = {(label, k): [] for label, _, _ in servers for k in ("baseline", "progressive")}
    ports = {label: (pid, port) for label, pid, port in servers}
    for label, k in times: get(ports[label][1], k, size)
    for _ in range(rounds):
        for label, k in times:
            pid, port = ports[label]
            start = cpu(pid)
            for _ in range(batch): get(port, k, size)
            times[(label, k)].append((cpu(pid) - start) / batch)
    med = {key: statistics.median(v) for key, v in times.items()}
    print(f"== service rs:fit:{size}:{size} from 4032x3024 q85 ({rounds} interleaved rounds of {batch} requests, server CPU ms per request, median)")
    for (label, k), v in med.items(): print(f"  {label} {k:12s} {v:6.1f}")
    for label, _, _ in servers:
        print(f"  {label} progressive / baseline: {med[(label, 'progressive')] / med[(label, 'baseline')]:.2f}x")
PY
kill $SERVER ${BEFORE_SERVER:-}; trap - EXIT
# JPEG XL: what libjxl 0.7 gives a thumbnail of at most 1/8 — a full decode against stopping at
# its DC progression event and flushing (Benchmarks/c/jxl_dc_flush.c), the same 12 MP picture.
mkdir -p "$DATA/bin"
gcc -O2 -o "$DATA/bin/jxl_dc_flush" Benchmarks/c/jxl_dc_flush.c -ljxl
if [ ! -f "$DATA/photo-12mp-d1.jxl" ]; then
  djpeg -ppm "$SRC" > "$DATA/photo-12mp.ppm"
  "$DATA/bin/jxl_dc_flush" encode "$DATA/photo-12mp.ppm" "$DATA/photo-12mp-d1.jxl" 7
  rm "$DATA/photo-12mp.ppm"
fi
echo "== JPEG XL 4032x3024 (distance 1): libjxl full decode vs DC event + flush, CPU ms (median of 5, three rounds)"
for round in 1 2 3; do
  for mode in full dc; do printf '  %s\n' "$("$DATA/bin/jxl_dc_flush" "$mode" "$DATA/photo-12mp-d1.jxl" 5)"; done
done
