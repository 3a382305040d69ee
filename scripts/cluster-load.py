#!/usr/bin/env python3
"""Bounded HTTP load for `make cluster-demo`: a fixed number of GETs at a fixed concurrency.

Usage: cluster-load.py BASE_URL URLS_FILE COUNT CONCURRENCY RESULTS_FILE [KILL_PIDFILE KILL_AT METRICS_URL RENDERS_FILE]

Each line of URLS_FILE is `ACCEPT<TAB>PATH`; request i uses line i mod len. Every request appends
`STATUS LATENCY_MS` to RESULTS_FILE (status 0 = transport error or timeout). With KILL_PIDFILE,
the process named there gets SIGKILL once KILL_AT requests have completed; just before, its render
count (from METRICS_URL) is written to RENDERS_FILE, so the renders it did are not lost with it.
No request starts between that event and the kill (those under way go on), so the renders the
instance finishes after its count was read are at most CONCURRENCY - 1.
"""
import http.client
import os
import signal
import sys
import threading
import time
import urllib.parse

base, urls_file, count, concurrency, results_file = sys.argv[1:6]
count, concurrency = int(count), int(concurrency)
kill_pidfile = sys.argv[6] if len(sys.argv) > 7 else None
kill_at = int(sys.argv[7]) if len(sys.argv) > 7 else -1
metrics_url = sys.argv[8] if len(sys.argv) > 9 else None
renders_file = sys.argv[9] if len(sys.argv) > 9 else None


def render_count(url):
    """webimage_stage_duration_seconds_count{stage="encode"} of one instance: one per render."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", parts.path)
    text = conn.getresponse().read().decode()
    conn.close()
    for line in text.splitlines():
        if line.startswith('webimage_stage_duration_seconds_count{stage="encode"}'):
            return int(float(line.split()[-1]))
    return 0

host = urllib.parse.urlsplit(base)
assert host.hostname == "127.0.0.1", "loopback only"
with open(urls_file) as f:
    urls = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]

lock = threading.Lock()
held = threading.Event()  # clear from the kill event until the kill is done: no request starts
held.set()
next_index = 0
done = 0
results = []


def worker():
    global next_index, done
    conn = None
    while True:
        held.wait()
        with lock:
            if not held.is_set():
                continue
            if next_index >= count:
                break
            i = next_index
            next_index += 1
        accept, path = urls[i % len(urls)]
        start = time.monotonic()
        status = 0
        try:
            if conn is None:
                conn = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
            conn.request("GET", path, headers={"Accept": accept})
            response = conn.getresponse()
            response.read()
            status = response.status
        except Exception:
            if conn is not None:
                conn.close()
            conn = None
        elapsed = (time.monotonic() - start) * 1000
        with lock:
            results.append((status, elapsed))
            done += 1
            fire = done == kill_at
            completed = done
            if fire and kill_pidfile:
                held.clear()
        if fire and kill_pidfile:
            try:
                if metrics_url and renders_file:
                    try:
                        renders = render_count(metrics_url)
                    except Exception:
                        renders = 0
                    with open(renders_file, "w") as f:
                        f.write(f"{renders}\n")
                with open(kill_pidfile) as f:
                    os.kill(int(f.read().strip()), signal.SIGKILL)
            finally:
                held.set()
            print(f"cluster-demo: SIGKILL sent to instance pid from {kill_pidfile} after {completed} requests had completed",
                  file=sys.stderr)


threads = [threading.Thread(target=worker) for _ in range(concurrency)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if kill_pidfile and done < kill_at:
    sys.exit("cluster-load: finished before the kill point")
with open(results_file, "a") as f:
    for status, elapsed in results:
        f.write(f"{status} {elapsed:.2f}\n")
