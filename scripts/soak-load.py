#!/usr/bin/env python3
"""The load of `make soak-service`: COUNT renders at a fixed concurrency, RSS sampled.

Usage: soak-load.py BASE_URL ORIGIN_URL SOURCES_FILE COUNT CONCURRENCY PID [peak]

SOURCES_FILE lists `NAME MEGAPIXELS` lines (soak-sources.py). Request i renders source
i mod len with a width, output format and cache buster (`cb:i`) of its own, so every request
is a result-cache miss and renders. The service's VmRSS (/proc/PID/status) is read once the
first 10 % of the requests have completed and at the end, with VmHWM (its peak). Prints one line:
  soak: requests=N rss_10pct=XMB rss_end=YMB growth=Z% peak=WMB
With `peak`, only the 12 MP sources are used (only those whose names end in SOAK_PEAK_SOURCES,
e.g. `.webp`, when that environment variable is set), each rendered to 500 px, and the line is
  soak-peak: sources=12MP concurrency=C requests=N rss_end=YMB peak=WMB
With SOAK_PEAK_DISTINCT=1 as well, each peak request names its source with a query of its own
(`p12.png?v=i`, which the origin ignores): the same bytes, but a distinct source URL to the
service, which fetches and holds each copy separately (no source cache hit, no shared source) —
the worst case of concurrent distinct sources; the line then says `sources=12MP…-distinct`.
MB are MiB. Responses other than 200 and transport errors are counted on standard error and make
the exit status 1.
"""
import http.client
import os
import sys
import threading
import urllib.parse

base, origin, sources_file, count, concurrency, pid = sys.argv[1:7]
count, concurrency = int(count), int(concurrency)
peak_mode = len(sys.argv) > 7 and sys.argv[7] == "peak"
host = urllib.parse.urlsplit(base)
assert host.hostname == "127.0.0.1" and urllib.parse.urlsplit(origin).hostname == "127.0.0.1", "loopback only"

sources = [line.split() for line in open(sources_file) if line.strip()]
if peak_mode:
    sources = [s for s in sources if float(s[1]) >= 12 and s[0].endswith(os.environ.get("SOAK_PEAK_SOURCES", ""))]
    assert sources, "no 12 MP source matches SOAK_PEAK_SOURCES"
names = [s[0] for s in sources]
distinct = peak_mode and os.environ.get("SOAK_PEAK_DISTINCT") == "1"
FORMATS = ["jpg", "webp", "png", "jpg", "webp"]


def status_kb(field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise SystemExit(f"soak: {field} not in /proc/{pid}/status (did the service exit?)")


def path(i):
    name = names[i % len(names)]
    k = i // len(names)
    width = 100 + (k * 37) % 900
    fmt = "avif" if i % 25 == 0 else FORMATS[i % len(FORMATS)]
    if fmt == "avif":
        width = min(width, 320)
    if peak_mode:
        width, fmt = 500, "jpg"
        if distinct:
            name += f"%3Fv%3D{i}"
    return f"/insecure/rs:fit:{width}:{width}/cb:{i}/plain/{origin}/{name}@{fmt}"


lock = threading.Lock()
next_index = 0
done = 0
errors = 0
rss_10pct = None
samples = []  # VmRSS (kB) every 5 % of the run, after the first 10 %


def worker():
    global next_index, done, errors, rss_10pct
    conn = None
    while True:
        with lock:
            if next_index >= count:
                break
            i = next_index
            next_index += 1
        status = 0
        try:
            if conn is None:
                conn = http.client.HTTPConnection(host.hostname, host.port, timeout=300)
            conn.request("GET", path(i))
            response = conn.getresponse()
            response.read()
            status = response.status
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except Exception:
            if conn is not None:
                conn.close()
            conn = None
        with lock:
            done += 1
            if status != 200:
                errors += 1
                if errors <= 5:
                    print(f"soak: request {i} ({path(i)}) answered {status}", file=sys.stderr)
            if done == max(1, count // 10):
                rss_10pct = status_kb("VmRSS")
            if done % max(1, count // 20) == 0:
                rss = status_kb("VmRSS")
                if rss_10pct is not None:
                    samples.append(rss)
                print(f"soak: {done}/{count} VmRSS={rss / 1024:.1f}MB", file=sys.stderr, flush=True)


threads = [threading.Thread(target=worker) for _ in range(concurrency)]
for t in threads:
    t.start()
for t in threads:
    t.join()
rss_end, peak = status_kb("VmRSS"), status_kb("VmHWM")
if peak_mode:
    print(f"soak-peak: sources=12MP{os.environ.get('SOAK_PEAK_SOURCES', '')}{'-distinct' if distinct else ''} concurrency={concurrency} requests={count} "
          f"rss_end={rss_end / 1024:.1f}MB peak={peak / 1024:.1f}MB")
else:
    growth = (rss_end - rss_10pct) / rss_10pct * 100
    print(f"soak: requests={count} rss_10pct={rss_10pct / 1024:.1f}MB rss_end={rss_end / 1024:.1f}MB "
          f"growth={growth:.1f}% peak={peak / 1024:.1f}MB")
if samples and not peak_mode:
    # One sample moves with what is in flight; the band shows whether RSS drifts.
    print(f"soak: VmRSS after the first 10 %, {len(samples)} samples: min={min(samples) / 1024:.1f}MB "
          f"max={max(samples) / 1024:.1f}MB", file=sys.stderr)
if errors:
    print(f"soak: {errors} of {count} requests failed", file=sys.stderr)
    sys.exit(1)
