"""Where a request's CPU time goes by thread, at concurrency 1 and 2 (docs/PERFORMANCE.md, "The
request line against its floor"): a release `webimage serve` renders the service benchmark's 2 MP
JPEG task (fit 512, JPEG q80, a fresh cache buster per request, fetched from a loopback origin,
Benchmarks/python/service_origin.py: a strong ETag per file over persistent connections, or
none with ORIGIN_ETAG=0, a connection per request with ORIGIN_KEEPALIVE=0) in
rounds of REQUESTS sequential requests, then REQUESTS at concurrency 2, alternating which goes first; per request: the process's CPU-ms (utime+stime),
each thread group's CPU-ms and voluntary context switches (/proc/PID/task/*), medians of the
rounds.

  python3 scripts/service-thread-cpu.py [BIN] [REQUESTS] [ROUNDS] [-- extra serve arguments]

BIN defaults to .build/release/webimage; REQUESTS 40; ROUNDS 5. Needs Pillow (the sources come
from Benchmarks/python/service_sources.py). Thread groups: `NIO` (the event loops: HTTP, the
downloader, the egress proxy), `swift` (the Swift concurrency pool, libdispatch and the
processing pool, whose threads Foundation names alike on Linux), `other`.
"""
import collections
import concurrent.futures
import http.client
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
extra = args[args.index("--") + 1:] if "--" in args else []
args = args[:args.index("--")] if "--" in args else args
BIN = args[0] if args else os.path.join(ROOT, ".build", "release", "webimage")
REQUESTS = int(args[1]) if len(args) > 1 else 40
ROUNDS = int(args[2]) if len(args) > 2 else 5
TICKS = os.sysconf("SC_CLK_TCK")
ORIGIN_ETAG = os.environ.get("ORIGIN_ETAG", "1") != "0"
ORIGIN_KEEPALIVE = os.environ.get("ORIGIN_KEEPALIVE", "1") != "0"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def group(name):
    if name.startswith("NIO"):
        return "NIO"
    if "qos" in name or name.startswith(("webimage", "bimage")):
        return "swift"
    return "other"


def threads(pid):
    """{group: (CPU ticks, voluntary switches)} over the process's live threads."""
    out = collections.defaultdict(lambda: [0, 0])
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                status = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        g = out[group(name)]
        g[0] += int(fields[11]) + int(fields[12])
        g[1] += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
    return out


def main():
    work = tempfile.mkdtemp(prefix="service-thread-cpu.")
    origin = server = None
    try:
        sources = os.path.join(work, "origin")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "python", "service_sources.py"), sources],
                       check=True, capture_output=True)
        origin_port = free_port()
        origin = subprocess.Popen([sys.executable, os.path.join(ROOT, "Benchmarks", "python", "service_origin.py"),
                                   str(origin_port), sources] + ([] if ORIGIN_ETAG else ["--no-etag"])
                                  + ([] if ORIGIN_KEEPALIVE else ["--close"]),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):  # the origin is listening before the first request
            try:
                socket.create_connection(("127.0.0.1", origin_port), 1).close()
                break
            except OSError:
                time.sleep(0.05)
        server = subprocess.Popen([BIN, "serve", "--bind", "127.0.0.1:0", "--allow-network", "loopback"] + extra,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
        counter = iter(range(1, 1 << 30))

        def get(_=None):
            path = (f"/insecure/rs:fit:512:512/q:80/f:jpg/cb:{next(counter)}/plain/"
                    f"http://127.0.0.1:{origin_port}/photo.jpg")
            for attempt in range(100):
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                    conn.request("GET", path)
                    response = conn.getresponse()
                    response.read()
                    conn.close()
                    if response.status != 200:
                        raise RuntimeError(f"HTTP {response.status}")
                    return
                except ConnectionRefusedError:
                    time.sleep(0.1)  # the origin is still starting
            raise RuntimeError("no answer")

        for _ in range(6):
            get()
        samples = {1: [], 2: []}
        for r in range(ROUNDS):
            for concurrency in ((1, 2) if r % 2 == 0 else (2, 1)):
                before, t0 = threads(server.pid), time.perf_counter()
                if concurrency == 1:
                    for _ in range(REQUESTS):
                        get()
                else:
                    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
                        list(pool.map(get, range(REQUESTS)))
                wall, after = time.perf_counter() - t0, threads(server.pid)
                row = {"wall": wall * 1000 / REQUESTS}
                for g in set(before) | set(after):
                    row[g] = ((after[g][0] - before[g][0]) * 1000 / TICKS / REQUESTS,
                              (after[g][1] - before[g][1]) / REQUESTS)
                row["total"] = sum(v[0] for k, v in row.items() if k != "wall")
                samples[concurrency].append(row)
        print(f"{os.path.basename(BIN)}: {REQUESTS} requests × {ROUNDS} rounds per concurrency, medians per request; "
              f"origin {'with a strong ETag' if ORIGIN_ETAG else 'without ETag'}, "
              f"{'keep-alive' if ORIGIN_KEEPALIVE else 'a connection per request'}; load average {os.getloadavg()[0]:.1f}")
        for concurrency, rows in samples.items():
            med = lambda f: statistics.median(f(r) for r in rows)  # noqa: E731
            parts = [f"CPU {med(lambda r: r['total']):.2f} ms"]
            for g in ("NIO", "swift", "other"):
                parts.append(f"{g} {med(lambda r: r.get(g, (0, 0))[0]):.2f} ms, "
                             f"{med(lambda r: r.get(g, (0, 0))[1]):.1f} wake-ups")
            print(f"concurrency {concurrency}: " + "; ".join(parts) + f"; wall {med(lambda r: r['wall']):.1f} ms")
    finally:
        for p in (server, origin):
            if p and p.poll() is None:
                p.terminate()
                p.wait(10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
