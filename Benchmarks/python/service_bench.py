"""`make bench-service` (issue #15, SPEC V-11): `webimage serve` against thumbor on the same
generated sources and tasks, interleaved in one run, plus vipsthumbnail as the floor.

Run through Benchmarks/run-service.sh, which installs the peers and builds the tool. Settings come
from the environment:
  WEBIMAGE      the release `webimage` binary (required)
  WEBIMAGE_BASE another `webimage` binary (the previous main's) measured as contender `base`,
                interleaved with ours round by round: old against new in one run (optional)
  THUMBOR       the thumbor console script in its venv; empty = thumbor not measured
  THUMBOR_ERROR why thumbor is missing (printed in the results)
  ROUNDS        rounds; each round runs every task on every contender, alternating who goes first (5)
  REQUESTS      requests per task, contender and round, at concurrency 1 (12)
  C4_REQUESTS   requests of the 12 MP task at concurrency 4, for peak RSS (24)
  WRK_SECONDS   seconds of the result-cache-hit run (wrk -t2 -c8) (5)
  TASKS         comma-separated task ids to run (all)
  OUT           where the Markdown results go (.build-bench/service-results.md)
  UPDATE_DOC    a Markdown file whose block between the bench-service markers is replaced
  PROFILE       1 = also sample ours with `perf record` during extra JPEG and 12 MP segments and
                write the top functions next to OUT (service-profile.txt)
  ORIGIN_ETAG, ORIGIN_KEEPALIVE  the loopback origin (Benchmarks/python/service_origin.py) answers
                as nginx and S3 do: a strong ETag per file (ORIGIN_ETAG=0: none, so ours hashes
                every source) over persistent HTTP/1.1 connections (ORIGIN_KEEPALIVE=0: HTTP/1.0,
                a connection per request, as `python3 -m http.server`)
  SECTIONS      comma-separated parts to run (all): tasks (the interleaved table, vipsthumbnail
                included), c4 (12 MP at concurrency 4), floor (the codec libraries called
                directly, service_floor.py), hits (wrk), scale (the sweep over workers/processes)
  DECODE_BENCH, ENCODE_FLOOR  the compiled Benchmarks/c programs the floor runs (run-service.sh
                builds them); FLOOR_ITERATIONS timed calls per program run (31)
  RESIZE_BENCH  the release `webimage-resize-bench`: the floor's resample step (our Resampler
                called directly); without it the floor has no resample and no ours ÷ floor
  SCALE_ROUNDS, SCALE_REQUESTS  the sweep: rounds (3), and requests per configuration and round (40)

Every request renders: ours gets a fresh `cb:` (cache buster) option per request and has no
source cache (no --cache-dir), so it fetches from the origin each time; thumbor runs with
no_storage and no result storage. CPU-ms per request is the server process's (and its
children's) utime+stime from /proc/PID/stat over a segment divided by its requests; peak RSS is
VmHWM from /proc/PID/status, reset before each segment through /proc/PID/clear_refs.
"""
import concurrent.futures
import http.client
import json
import os
import platform
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import service_floor  # noqa: E402  (next to this file)
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
MARK_BEGIN = "<!-- bench-service:begin -->"
MARK_END = "<!-- bench-service:end -->"


def env_int(name, default):
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


ROUNDS = env_int("ROUNDS", 5)
REQUESTS = env_int("REQUESTS", 12)
C4_REQUESTS = env_int("C4_REQUESTS", 24)
WRK_SECONDS = env_int("WRK_SECONDS", 5)
FLOOR_ITERATIONS = env_int("FLOOR_ITERATIONS", 31)
SCALE_ROUNDS = env_int("SCALE_ROUNDS", 3)
SCALE_REQUESTS = env_int("SCALE_REQUESTS", 40)
ALL_SECTIONS = ("tasks", "c4", "floor", "hits", "scale")
SECTIONS = [x for x in os.environ.get("SECTIONS", "").replace(" ", "").split(",") if x] or list(ALL_SECTIONS)
ORIGIN_ETAG = env_int("ORIGIN_ETAG", 1) != 0
ORIGIN_KEEPALIVE = env_int("ORIGIN_KEEPALIVE", 1) != 0
REQUEST_TIMEOUT = 120


class Task:
    def __init__(self, id, title, source, ours, thumbor, mime, vips, weight=1.0):
        self.id, self.title, self.source = id, title, source
        self.ours, self.thumbor, self.mime = ours, thumbor, mime
        self.vips = vips  # (size, output suffix with save options, input options)
        self.weight = weight  # share of REQUESTS, for slow tasks

    def requests(self):
        return max(1, round(REQUESTS * self.weight))


TASKS = [
    Task("jpeg", "2 MP JPEG → fit 512, JPEG q80", "photo.jpg",
         "rs:fit:512:512/q:80/f:jpg", "fit-in/512x512/filters:quality(80):format(jpeg)", "image/jpeg",
         ("512x512", ".jpg[Q=80,strip]", "")),
    Task("webp", "2 MP JPEG → fit 512, WebP q75", "photo.jpg",
         "rs:fit:512:512/q:75/f:webp", "fit-in/512x512/filters:quality(75):format(webp)", "image/webp",
         ("512x512", ".webp[Q=75,strip]", "")),
    Task("avif", "2 MP JPEG → fit 512, AVIF q63", "photo.jpg",
         "rs:fit:512:512/q:63/f:avif", "fit-in/512x512/filters:quality(63):format(avif)", "image/avif",
         ("512x512", ".avif[Q=63,effort=1,compression=av1,strip]", "")),
    Task("12mp", "12 MP JPEG → 500×375, JPEG q80", "photo12.jpg",
         "rs:fit:500:375/q:80/f:jpg", "fit-in/500x375/filters:quality(80):format(jpeg)", "image/jpeg",
         ("500x375", ".jpg[Q=80,strip]", "")),
    Task("png", "PNG 1200×800 → fit 512, PNG", "graphic.png",
         "rs:fit:512:512/f:png", "fit-in/512x512/filters:format(png)", "image/png",
         ("512x512", ".png[strip]", "")),
    Task("gif", "GIF 640×360 ×24 → fit 320, animated WebP", "anim.gif",
         "rs:fit:320:320/f:webp", "fit-in/320x320/filters:format(webp)", "image/webp",
         ("320x320", ".webp[strip]", "[n=-1]"), weight=0.25),
    Task("gif-avif", "GIF 640×360 ×24 → fit 320, animated AVIF", "anim.gif",
         "rs:fit:320:320/f:avif", "fit-in/320x320/filters:format(avif)", "image/avif",
         ("320x320", ".avif[Q=63,effort=1,compression=av1,strip]", "[n=-1]"), weight=0.25),
]

# Ratios of ours between two tasks of the same run (interleaved rounds, medians): (numerator,
# denominator, what it says, target).
RATIOS = [
    ("avif", "jpeg", "2 MP JPEG → 512 px: AVIF ÷ JPEG", 3.0),
    ("gif-avif", "gif", "animated GIF → 320 px: animated AVIF ÷ animated WebP", 3.0),
]


# ---------------------------------------------------------------- processes and /proc

def descendants(pid):
    """pid and every live descendant (through /proc/PID/task/TID/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def cpu_seconds(pid):
    """utime+stime of pid and its live descendants, plus what their reaped children used."""
    total = 0
    for p in descendants(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            # fields[0] is field 3 (state): utime=14, stime=15, cutime=16, cstime=17.
            total += sum(int(fields[i]) for i in (11, 12, 13, 14))
        except OSError:
            pass
    return total / TICKS


def status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def peak_rss_mb(pid):
    return max(status_kb(p, "VmHWM") for p in descendants(pid)) / 1024


def peak_rss_sum_mb(pid):
    """Sum of every process's own peak (an upper bound of the tree's peak; for several processes)."""
    return sum(status_kb(p, "VmHWM") for p in descendants(pid)) / 1024


def rss_mb(pid):
    return sum(status_kb(p, "VmRSS") for p in descendants(pid)) / 1024


def reset_peak(pid):
    """Sets VmHWM back to the current RSS (Linux: write 5 to clear_refs; needs ownership)."""
    ok = True
    for p in descendants(pid):
        try:
            with open(f"/proc/{p}/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            ok = False
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(port, path, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            status, _, _, _ = get(port, path, timeout=5)
            if status == 200:
                return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def get(port, path, timeout=REQUEST_TIMEOUT):
    """One GET on a new connection: (status, content type, body bytes, seconds)."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Accept": "*/*"})
        response = conn.getresponse()
        body = response.read()
        return response.status, response.getheader("Content-Type", ""), body, time.perf_counter() - start
    finally:
        conn.close()


class Server:
    """A contender: a server process on loopback and how to spell a task's URL for it."""

    def __init__(self, name, argv, port, workdir, url, ready_path, env=None):
        self.name, self.port, self.url = name, port, url
        self.log = open(os.path.join(workdir, f"{name}.log"), "wb")
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE if port is None else self.log,
                                     stderr=self.log, env=env, start_new_session=True)
        if port is None:  # ours prints `listening on http://HOST:PORT` first
            line = self.proc.stdout.readline().decode()
            m = re.search(r":(\d+)\s*$", line)
            if not m:
                raise RuntimeError(f"{name} did not say where it listens: {line!r}")
            self.port = int(m.group(1))
            threading.Thread(target=shutil.copyfileobj, args=(self.proc.stdout, self.log), daemon=True).start()
        if not wait_http(self.port, ready_path):
            raise RuntimeError(f"{name} did not answer on port {self.port}")
        self.pid = self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


# ---------------------------------------------------------------- measuring

class Counter:
    def __init__(self):
        self.n = 0
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            self.n += 1
            return self.n


CACHE_BUSTER = Counter()


def run_segment(server, task, origin, count, concurrency=1):
    """count renders of task on server; returns per-request CPU-ms, req/s, latencies, peak RSS."""
    paths = [server.url(task, origin, CACHE_BUSTER.next()) for _ in range(count)]
    reset_peak(server.pid)
    cpu0, t0 = cpu_seconds(server.pid), time.perf_counter()
    latencies, failures = [], []

    def one(path):
        try:
            status, mime, body, seconds = get(server.port, path)
        except (OSError, http.client.HTTPException) as error:
            failures.append(f"{type(error).__name__}: {error}")
            return
        if status != 200:
            failures.append(f"{status} {body[:200]!r}")
        latencies.append(seconds)

    if concurrency == 1:
        for p in paths:
            one(p)
    else:
        with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(one, paths))
    wall = time.perf_counter() - t0
    cpu = cpu_seconds(server.pid) - cpu0
    return {"cpu_ms": cpu * 1000 / count, "rps": count / wall, "lat": latencies,
            "peak_mb": peak_rss_mb(server.pid), "peak_sum_mb": peak_rss_sum_mb(server.pid),
            "processes": len(descendants(server.pid)), "failures": failures}


def describe(body):
    """A short description of an output: format, size, animation."""
    if body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        return "WebP" + (" animated" if b"ANIM" in body[:4096] else "")
    if body[:3] == b"\xff\xd8\xff":
        return "JPEG" + (" progressive" if b"\xff\xc2" in body[:65536] else "")
    if body[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if body[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if body[4:12] in (b"ftypavif", b"ftypavis"):
        return "AVIF"
    return "unknown"


def check(server, task, origin):
    """Warms the task up on server (2 requests) and says what it answers, or why it cannot."""
    try:
        status, mime, body, _ = get(server.port, server.url(task, origin, CACHE_BUSTER.next()))
    except (OSError, http.client.HTTPException) as error:
        return None, f"{type(error).__name__}: {error}"
    if status != 200:
        return None, f"HTTP {status}: {body[:200].decode(errors='replace')}"
    get(server.port, server.url(task, origin, CACHE_BUSTER.next()))
    note = f"{describe(body)}, {len(body) // 1024} KB"
    if not mime.startswith(task.mime):
        note += f" (answers {mime}, not {task.mime})"
    elif task.id == "gif" and "animated" not in note:
        note += " (not animated)"
    return note, None


def vips_floor(task, sources, workdir, count):
    """vipsthumbnail's CPU-ms per image, single-threaded (VIPS_CONCURRENCY=1): one process
    thumbnails the source `count` times, another `3 * count` times; the difference divided by
    `2 * count` leaves out the process start (libvips loads its modules). Median of 3."""
    vt = shutil.which("vipsthumbnail")
    if not vt:
        return None
    size, suffix, input_options = task.vips
    src = os.path.join(sources, task.source)
    env = dict(os.environ, VIPS_CONCURRENCY="1")
    out = os.path.join(workdir, "vips-%s" + suffix)

    def cpu(n):
        proc = subprocess.Popen([vt, "-s", size, "-o", out] + [src + input_options] * n, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = proc.stderr.read().decode(errors="replace").strip()
        proc.stderr.close()
        _, rc, usage = os.wait4(proc.pid, 0)
        if rc != 0:
            raise RuntimeError(f"failed: {err[:200]}")
        return usage.ru_utime + usage.ru_stime

    try:
        return statistics.median((cpu(3 * count) - cpu(count)) * 1000 / (2 * count) for _ in range(3))
    except RuntimeError as error:
        return str(error)


def percentile(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def metric_sum(port, name, labels):
    """Sum of a Prometheus counter's samples whose labels include all of `labels` (0 when none
    is there yet: a counter appears with its first increment); None without /metrics."""
    try:
        status, _, body, _ = get(port, "/metrics", timeout=10)
    except OSError:
        return None
    if status != 200:
        return None
    total = 0.0
    for line in body.decode(errors="replace").splitlines():
        if line.startswith(name) and all(f'{k}="{v}"' in line for k, v in labels.items()):
            try:
                total += float(line.rsplit(" ", 1)[1])
            except ValueError:
                pass
    return total


def cache_hits(server, origin, workdir):
    """wrk -t2 -c8 on one URL of ours, after one render: result-cache hits per second."""
    wrk = shutil.which("wrk")
    if not wrk:
        return {"error": "wrk not installed"}
    task = next(t for t in TASKS if t.id == "jpeg")
    path = server.url(task, origin, "hit")
    status, _, body, _ = get(server.port, path)
    if status != 200:
        return {"error": f"HTTP {status}"}
    labels = {"layer": "memory", "result": "hit"}
    hits0 = metric_sum(server.port, "webimage_cache_lookups_total", labels)
    cpu0 = cpu_seconds(server.pid)
    proc = subprocess.run([wrk, "-t2", "-c8", f"-d{WRK_SECONDS}s", "--latency",
                           f"http://127.0.0.1:{server.port}{path}"],
                          capture_output=True, text=True, timeout=WRK_SECONDS + 60)
    cpu = cpu_seconds(server.pid) - cpu0
    hits1 = metric_sum(server.port, "webimage_cache_lookups_total", labels)
    out = proc.stdout
    with open(os.path.join(workdir, f"wrk-hits-{server.name}.txt"), "w") as f:
        f.write(out + proc.stderr)
    m = re.search(r"Requests/sec:\s*([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    non2xx = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", out)
    errors = re.search(r"Socket errors:(.*)", out)
    p50 = re.search(r"50%\s+([\d.]+\w+)", out)
    p99 = re.search(r"99%\s+([\d.]+\w+)", out)
    result = {"rps": float(m.group(1)) if m else None, "bytes": len(body),
              "requests": int(total.group(1)) if total else None,
              "non2xx": int(non2xx.group(1)) if non2xx else 0,
              "socket_errors": errors.group(1).strip() if errors else "none",
              "p50": p50.group(1) if p50 else "?", "p99": p99.group(1) if p99 else "?"}
    if result["requests"]:
        result["cpu_ms"] = cpu * 1000 / result["requests"]
        if hits0 is not None and hits1 is not None:
            result["hit_ratio"] = (hits1 - hits0) / result["requests"]
    if m is None:
        result["error"] = (out + proc.stderr).strip()[-300:]
    return result


def scale_sweep(makers, configs, task, origin, servers):
    """The sweep over cores (issue #15: "CPU-ms per request stays constant from 1 to N workers";
    "thumbor with several processes"): each configuration (name, n) a fresh instance started by
    makers[name](n) — n workers (ours), n processes (thumbor), n one-worker instances behind
    nginx (ours-nginx) — driven closed-loop at concurrency 2 per worker (one request rendering,
    one waiting: saturated), SCALE_ROUNDS rounds of SCALE_REQUESTS requests, the configurations
    interleaved (the order reversed every other round). Returns {(name, n): row}."""
    configs = [c for c in configs if c[0] in makers]
    started, samples, rows = {}, {c: [] for c in configs}, {}
    try:
        for name, n in configs:
            try:
                server = makers[name](n)
            except RuntimeError as error:
                rows[(name, n)] = {"error": str(error)}
                continue
            servers.append(server)
            note, error = check(server, task, origin)
            if error:
                rows[(name, n)] = {"error": error}
                continue
            # Warm every process and worker up before timing.
            run_segment(server, task, origin, 4 * n, concurrency=2 * n)
            started[(name, n)] = server
        for r in range(SCALE_ROUNDS):
            order = [c for c in configs if c in started]
            for c in (order if r % 2 == 0 else order[::-1]):
                samples[c].append(run_segment(started[c], task, origin, SCALE_REQUESTS, concurrency=2 * c[1]))
            print(f"bench-service: scale sweep round {r + 1}/{SCALE_ROUNDS} done", file=sys.stderr)
    finally:
        for server in started.values():
            server.stop()
            servers.remove(server)
    for c, segs in samples.items():
        if not segs:
            continue
        failures = [f for s in segs for f in s["failures"]]
        lat = [l for s in segs for l in s["lat"]]
        rows[c] = {"cpu_ms": statistics.median(s["cpu_ms"] for s in segs),
                   "rps": statistics.median(s["rps"] for s in segs),
                   "p50": percentile(lat, 50) * 1000, "p99": percentile(lat, 99) * 1000,
                   "peak_sum_mb": max(s["peak_sum_mb"] for s in segs),
                   "processes": max(s["processes"] for s in segs),
                   "concurrency": 2 * c[1], "requests": sum(len(s["lat"]) for s in segs),
                   "failures": f"{len(failures)} failed: {failures[0]}" if failures else ""}
    return {c: rows[c] for c in configs if c in rows}


CLUSTER_SCRIPT = """set -eu
# n `webimage serve --workers 1` instances, then nginx in front of them (exec: the instances
# become the nginx master's children, so the whole cluster is one process tree to measure).
{starts}
for port in {ports}; do
  i=0
  until curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$port/health"; do
    i=$((i + 1)); [ "$i" -lt 600 ] || {{ echo "instance on $port did not start" >&2; exit 1; }}
    sleep 0.1
  done
done
exec {nginx} -p {prefix}/ -c {prefix}/nginx.conf -e {prefix}/logs/error.log -g 'daemon off;'
"""


def make_cluster(webimage, n, workdir, url):
    """n one-worker instances of ours behind nginx with deploy/nginx/nginx.conf (hash on the URI,
    proxy_cache on disk, keep-alive to the upstreams), as `make cluster-demo` runs them; every
    request is a distinct URL, so each one is an nginx cache miss that renders."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if not nginx or not shutil.which("curl"):
        raise RuntimeError("nginx or curl not installed (`make setup` installs both)")
    prefix = os.path.join(workdir, f"nginx-{n}")
    for d in ("logs", "tmp", "cache"):
        os.makedirs(os.path.join(prefix, d), exist_ok=True)
    ports = [free_port() for _ in range(n)]
    listen = free_port()
    upstreams = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=3s;" for p in ports)
    user = "user root;" if os.getuid() == 0 else ""
    with open(os.path.join(ROOT, "deploy", "nginx", "nginx.conf")) as f:
        template = f.read().splitlines()
    with open(os.path.join(prefix, "nginx.conf"), "w") as f:
        for line in template:
            if not line.lstrip().startswith("#"):  # the header comment names the placeholders too
                line = line.replace("@LISTEN@", f"127.0.0.1:{listen}").replace("@UPSTREAMS@", upstreams)
                line = line.replace("@USER@", user)
            f.write(line + "\n")
    starts = "\n".join(f"{shlex.quote(webimage)} serve --bind 127.0.0.1:{p} --workers 1 --allow-network loopback "
                       f">{shlex.quote(os.path.join(prefix, f'instance-{p}.log'))} 2>&1 &" for p in ports)
    script = CLUSTER_SCRIPT.format(starts=starts, ports=" ".join(map(str, ports)), nginx=shlex.quote(nginx),
                                   prefix=shlex.quote(prefix))
    return Server(f"ours-nginx-{n}", ["bash", "-c", script], listen, workdir, url, "/health")


def profile(server, task, origin, workdir):
    """perf samples of the server over one segment of task: the top functions by self time."""
    perf = shutil.which("perf")
    if not perf:
        return "perf not installed\n"
    data = os.path.join(workdir, f"perf-{task.id}.data")
    rec = subprocess.Popen([perf, "record", "-F", "999", "-o", data, "-p", str(server.pid)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1)
    seg = run_segment(server, task, origin, max(8, REQUESTS))
    rec.send_signal(signal.SIGINT)
    err = rec.communicate(timeout=120)[1].decode(errors="replace")
    demangle = shutil.which("swift-demangle")

    def top(sort, limit):
        report = subprocess.run([perf, "report", "-i", data, "--no-children", "--sort", sort, "--stdio",
                                 "--percent-limit", "0.5"], capture_output=True, text=True, timeout=300)
        text = report.stdout
        if demangle:
            text = subprocess.run([demangle, "--simplified"], input=text, capture_output=True, text=True).stdout
        lines = [line.rstrip()[:160] for line in text.splitlines() if re.match(r"\s+\d+\.\d+%", line)]
        return "\n".join(lines[:limit]) if lines else (err + report.stderr)[-1000:]

    return (f"== {task.title}: perf record -F 999 -p PID over {max(8, REQUESTS)} requests "
            f"({seg['cpu_ms']:.1f} CPU-ms/req) ==\n-- self time by library --\n{top('dso', 12)}\n"
            f"-- self time by function (stripped libraries show addresses) --\n{top('dso,symbol', 30)}\n\n")


# ---------------------------------------------------------------- output

def fmt(value, digits=1):
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    return f"{value:.{digits}f}"


def machine_note(load_start, load_end):
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{os.cpu_count()} cores ({model}), Linux {platform.release()}; load average "
            f"{load_start:.1f} at the start, {load_end:.1f} at the end (other work was running: "
            f"compare CPU-ms, which counts only the server's own CPU time, more than req/s or latency)")


def version_of(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "?"


def render(results, settings):
    lines = []
    add = lines.append
    sections = settings["sections"]
    parts = []
    if "tasks" in sections:
        parts.append(f"{settings['rounds']} rounds; {REQUESTS} requests per task, contender and round at "
                     f"concurrency 1, GIF a quarter of that")
    if "c4" in sections:
        parts.append(f"{C4_REQUESTS} at concurrency 4")
    if "floor" in sections:
        parts.append(f"floor: {FLOOR_ITERATIONS} calls × 3")
    if "hits" in sections:
        parts.append(f"wrk {WRK_SECONDS} s")
    if "scale" in sections:
        parts.append(f"sweep: {SCALE_ROUNDS} rounds × {SCALE_REQUESTS} requests")
    # The block is the current figures: when and at which commit they were taken belongs to
    # git's history of the document (and is printed to stderr), not to its text.
    add(f"Command: `{settings['command']}` ({'; '.join(parts)}). {settings['thumbor']}, {settings['vips']}.")
    add("")
    add(f"Machine: {settings['machine']}.")
    add("")
    add("Sources (generated, photo-like): " + "; ".join(settings["sources"]) + ".")
    add("")
    add("Origin (`Benchmarks/python/service_origin.py`): Python's `http.server`, "
        + ("a strong `ETag` per file as nginx, S3 and CDNs send (ours takes it as the source's identity)"
           if ORIGIN_ETAG else "no `ETag` (`ORIGIN_ETAG=0`: ours hashes every source, SHA-256)") + ", "
        + ("HTTP/1.1 with persistent connections" if ORIGIN_KEEPALIVE
           else "HTTP/1.0, a connection per request (`ORIGIN_KEEPALIVE=0`)") + ".")
    add("")
    if settings["sections"] != list(ALL_SECTIONS):
        add(f"Sections run: {', '.join(settings['sections'])} (`SECTIONS`; the others were left out).")
        add("")
    if "tasks" in settings["sections"]:
        add("| Task | Contender | CPU-ms/req | req/s (c1) | p50 ms | p99 ms | peak RSS MB | ours ÷ thumbor (CPU) | output |")
        add("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for task in (results["tasks"] if "tasks" in settings["sections"] else []):
        rows = results["by_task"][task.id]
        ours_cpu = rows.get("ours", {}).get("cpu_ms")
        th_cpu = rows.get("thumbor", {}).get("cpu_ms")
        base_cpu = rows.get("base", {}).get("cpu_ms")
        for name in ("ours", "base", "thumbor"):
            row = rows.get(name)
            if row is None:
                continue
            if "error" in row:
                add(f"| {task.title} | {name} | – | – | – | – | – | – | {row['error']} |")
                continue
            # No ratio when a contender answered another format than the task asks for.
            comparable = all("(answers" not in rows.get(n, {}).get("note", "") for n in ("ours", "thumbor"))
            ratio = ""
            if name == "ours" and ours_cpu and th_cpu:
                ratio = fmt(ours_cpu / th_cpu, 2) + "×" if comparable else "not comparable"
            if name == "base" and ours_cpu and base_cpu:
                ratio = "ours ÷ base " + fmt(ours_cpu / base_cpu, 2) + "×"
            add(f"| {task.title} | {name} | {fmt(row['cpu_ms'])} | {fmt(row['rps'])} | {fmt(row['p50'], 0)} | "
                f"{fmt(row['p99'], 0)} | {fmt(row['peak_mb'], 0)} | {ratio} | {row['note']} |")
        floor = results["floor"].get(task.id)
        if isinstance(floor, float):
            add(f"| {task.title} | vipsthumbnail (floor) | {fmt(floor)} | | | | | | file to file, no HTTP |")
        elif floor:
            add(f"| {task.title} | vipsthumbnail (floor) | – | | | | | | {floor} |")
    if "tasks" in settings["sections"]:
        add("")
        shown = False
        for top, bottom, label, target in RATIOS:
            a = results["by_task"].get(top, {}).get("ours", {}).get("cpu_ms")
            b = results["by_task"].get(bottom, {}).get("ours", {}).get("cpu_ms")
            if a and b:
                add(f"- Ours, {label} (CPU-ms/req): {fmt(a)} ÷ {fmt(b)} = **{fmt(a / b, 2)}×** (target ≤ {fmt(target)}×)")
                shown = True
        if shown:
            add("")
    if results.get("floor2"):
        def cpu_of(name):
            return {t.id: results["by_task"].get(t.id, {}).get(name, {}).get("cpu_ms") for t in TASKS}
        lines.extend(service_floor.render(results["floor2"], {t.id: t.title for t in TASKS},
                                          cpu_of("thumbor"), cpu_of("ours")))
    if results.get("c4"):
        add("12 MP JPEG → 500×375 at **concurrency 4**, each contender a fresh instance (peak RSS; goal ≤ 100 MB for ours):")
        add("")
        add("| Contender | CPU-ms/req | req/s | p50 ms | p99 ms | peak RSS MB | idle RSS MB |")
        add("|---|---:|---:|---:|---:|---:|---:|")
        for name, row in results["c4"].items():
            if "error" in row:
                add(f"| {name} | – | – | – | – | – | {row['error']} |")
            else:
                add(f"| {name} | {fmt(row['cpu_ms'])} | {fmt(row['rps'])} | {fmt(row['p50'], 0)} | "
                    f"{fmt(row['p99'], 0)} | {fmt(row['peak_mb'], 0)} | {fmt(row['idle_mb'], 0)} |")
        add("")
    for label, hits in results.get("hits") or []:
        if hits.get("rps") is not None:
            ratio = f", result-cache hit ratio {min(1.0, hits['hit_ratio']):.2f} (from /metrics)" if "hit_ratio" in hits else ""
            add(f"Result-cache hits, ours with {label} (one URL, `wrk -t2 -c8 -d{WRK_SECONDS}s`, "
                f"{hits['bytes'] // 1024} KB body): **{hits['rps']:.0f} req/s**, p50 {hits['p50']}, p99 {hits['p99']}, "
                f"{fmt(hits.get('cpu_ms'), 2)} CPU-ms per hit; {hits['requests']} requests, "
                f"{hits['non2xx']} non-2xx, socket errors: {hits['socket_errors']}{ratio}.")
        else:
            add(f"Result-cache hits, ours with {label}: not measured ({hits.get('error')}).")
        add("")
    if results.get("scale"):
        add(f"**Scaling with cores** (2 MP JPEG → fit 512, JPEG q80): each configuration a fresh instance, "
            f"driven closed-loop at concurrency 2 per worker or process (one request rendering, one waiting: "
            f"saturated), {SCALE_ROUNDS} rounds × {SCALE_REQUESTS} requests, the configurations interleaved; "
            f"medians of the rounds. CPU-ms counts every process of the configuration (thumbor's parent and "
            f"its forked children; nginx's master and worker and the instances behind it, each request a "
            f"distinct URL: an nginx cache miss that renders and is stored). This machine has {os.cpu_count()} cores, so N ≤ 2, and the load generator "
            f"(Python, one connection per request) and other work share those cores: req/s at N = 2 cannot "
            f"reach 2× while anything else runs, CPU-ms/req is the figure that should stay constant.")
        add("")
        add("| Contender | N | concurrency | CPU-ms/req | CPU-ms ÷ N=1 | req/s | req/s ÷ N=1 | p50 ms | p99 ms | "
            "peak RSS MB (Σ processes) | processes |")
        add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for (name, n), row in results["scale"].items():
            label = {"ours": f"ours `--workers {n}`",
                     "ours-nginx": f"ours, {n} instances × `--workers 1` behind nginx (deploy/nginx)"}.get(
                         name, f"{name} `--processes {n}`")
            if "error" in row:
                add(f"| {label} | {n} | – | – | – | – | – | – | – | – | {row['error']} |")
                continue
            base = results["scale"].get((name.split("-")[0], 1), {})
            cpu_ratio = fmt(row["cpu_ms"] / base["cpu_ms"], 2) + "×" if base.get("cpu_ms") else "–"
            rps_ratio = fmt(row["rps"] / base["rps"], 2) + "×" if base.get("rps") else "–"
            add(f"| {label} | {n} | {row['concurrency']} | {fmt(row['cpu_ms'])} | {cpu_ratio} | {fmt(row['rps'])} | "
                f"{rps_ratio} | {fmt(row['p50'], 0)} | {fmt(row['p99'], 0)} | {fmt(row['peak_sum_mb'], 0)} | "
                f"{row['processes']}{'; ' + row['failures'] if row['failures'] else ''} |")
        add("")
    if results.get("thumbor_error"):
        add(f"thumbor was not measured: {results['thumbor_error']}")
        add("")
    return "\n".join(lines)


def update_doc(path, block):
    with open(path) as f:
        text = f.read()
    begin, end = text.find(MARK_BEGIN), text.find(MARK_END)
    if begin < 0 or end < begin:
        print(f"bench-service: {path} has no {MARK_BEGIN} … {MARK_END} block; not updated", file=sys.stderr)
        return
    text = text[:begin + len(MARK_BEGIN)] + "\n" + block.rstrip() + "\n" + text[end:]
    with open(path, "w") as f:
        f.write(text)
    print(f"bench-service: updated {path}", file=sys.stderr)


# ---------------------------------------------------------------- main

THUMBOR_CONF = """# bench-service: every request renders (no storage, no result storage), unsigned URLs,
# sources from the loopback origin (thumbor's HTTP loader has no address filter by default).
ALLOW_UNSAFE_URL = True
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
AUTO_WEBP = False
AUTO_AVIF = False
# ours encodes AVIF at libaom speed 8; the same here (Pillow's default is 6)
AVIF_SPEED = 8
HTTP_LOADER_REQUEST_TIMEOUT = 60
"""


def main():
    # `timeout` and kill send SIGTERM: unwind through `finally` so the servers are stopped too
    # (they run in sessions of their own).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    unknown = [x for x in SECTIONS if x not in ALL_SECTIONS]
    if unknown:
        sys.exit(f"bench-service: unknown SECTIONS {','.join(unknown)} (known: {','.join(ALL_SECTIONS)})")
    webimage = os.environ["WEBIMAGE"]
    thumbor_bin = os.environ.get("THUMBOR", "")
    thumbor_error = os.environ.get("THUMBOR_ERROR", "")
    wanted = [t for t in os.environ.get("TASKS", "").split(",") if t]
    tasks = [t for t in TASKS if not wanted or t.id in wanted]
    out_path = os.environ.get("OUT") or os.path.join(ROOT, ".build-bench", "service-results.md")
    workdir = tempfile.mkdtemp(prefix="webimage-bench-service.")
    sources = os.path.join(workdir, "origin")
    servers = []
    load_start = os.getloadavg()[0]
    try:
        print("bench-service: generating sources", file=sys.stderr)
        gen = subprocess.run([sys.executable, os.path.join(HERE, "service_sources.py"), sources],
                             capture_output=True, text=True, check=True)
        source_notes = gen.stdout.strip().splitlines()
        origin_port = free_port()
        servers.append(Server("origin", [sys.executable, os.path.join(HERE, "service_origin.py"), str(origin_port), sources]
                              + ([] if ORIGIN_ETAG else ["--no-etag"]) + ([] if ORIGIN_KEEPALIVE else ["--close"]), origin_port, workdir, None, "/photo.jpg"))
        origin = f"127.0.0.1:{origin_port}"

        contenders = []
        # How to start each contender: the concurrency-4 segment starts a fresh instance of each.
        makers = {}

        def make_ours(workers=None, name="ours", binary=webimage):
            argv = [binary, "serve", "--bind", "127.0.0.1:0", "--allow-network", "loopback"]
            return Server(name, argv + (["--workers", str(workers)] if workers else []), None, workdir, lambda t, o, cb: f"/insecure/{t.ours}/cb:{cb}/plain/http://{o}/{t.source}",
                          "/health")
        makers["ours"] = make_ours
        ours = make_ours()
        servers.append(ours)
        contenders.append(ours)
        if os.environ.get("WEBIMAGE_BASE"):
            base = make_ours(name="base", binary=os.environ["WEBIMAGE_BASE"])
            servers.append(base)
            contenders.append(base)
        if thumbor_bin:
            conf = os.path.join(workdir, "thumbor.conf")
            with open(conf, "w") as f:
                f.write(THUMBOR_CONF)
            def make_thumbor(processes=1, name="thumbor"):
                port = free_port()
                return Server(name, [thumbor_bin, "--ip", "127.0.0.1", "--port", str(port), "--conf", conf,
                                     "--processes", str(processes), "-l", "warning"],
                              port, workdir, lambda t, o, cb: f"/unsafe/{t.thumbor}/{o}/{t.source}", "/healthcheck")
            makers["thumbor"] = make_thumbor
            try:
                th = make_thumbor()
                servers.append(th)
                contenders.append(th)
            except RuntimeError as error:
                with open(os.path.join(workdir, "thumbor.log"), errors="replace") as f:
                    thumbor_error = f"{error}: {f.read()[-500:]}"

        results = {"tasks": tasks, "by_task": {t.id: {} for t in tasks}, "floor": {}, "thumbor_error": thumbor_error}
        usable = {}
        for task in (tasks if "tasks" in SECTIONS or "c4" in SECTIONS else []):
            for c in contenders:
                note, error = check(c, task, origin)
                if error:
                    results["by_task"][task.id][c.name] = {"error": error}
                else:
                    usable[(task.id, c.name)] = note
        rounds = ROUNDS if "tasks" in SECTIONS else 0
        if rounds:
            print(f"bench-service: {len(tasks)} tasks × {len(contenders)} contenders × {ROUNDS} rounds", file=sys.stderr)
        samples = {key: [] for key in usable}
        floor_programs = [os.environ.get("DECODE_BENCH", ""), os.environ.get("ENCODE_FLOOR", "")]
        floor_between = "floor" in SECTIONS and all(p and os.access(p, os.X_OK) for p in floor_programs)
        floor_samples = []
        for r in range(rounds):
            for task in tasks:
                order = contenders if (r + tasks.index(task)) % 2 == 0 else contenders[::-1]
                for c in order:
                    if (task.id, c.name) in usable:
                        samples[(task.id, c.name)].append(run_segment(c, task, origin, task.requests()))
            if floor_between:
                # The floor between the rounds too: ours ÷ floor then compares the same load.
                floor_samples.append(service_floor.measure(
                    os.path.join(sources, "photo.jpg"), *floor_programs, iterations=FLOOR_ITERATIONS, repeats=1,
                    resize_bench=os.environ.get("RESIZE_BENCH") or None, pillow=False))
            print(f"bench-service: round {r + 1}/{ROUNDS} done", file=sys.stderr)
        for (task_id, name), segs in samples.items():
            if not segs:
                continue
            failures = [f for s in segs for f in s["failures"]]
            row = {"cpu_ms": statistics.median(s["cpu_ms"] for s in segs),
                   "rps": statistics.median(s["rps"] for s in segs),
                   "p50": percentile([l for s in segs for l in s["lat"]], 50) * 1000,
                   "p99": percentile([l for s in segs for l in s["lat"]], 99) * 1000,
                   "peak_mb": max(s["peak_mb"] for s in segs),
                   "note": usable[(task_id, name)] + (f"; {len(failures)} failed: {failures[0]}" if failures else "")}
            results["by_task"][task_id][name] = row

        if "c4" in SECTIONS and any(t.id == "12mp" for t in tasks) and C4_REQUESTS > 0:
            task = next(t for t in tasks if t.id == "12mp")
            results["c4"] = {}
            for c in contenders:
                if (task.id, c.name) not in usable:
                    continue
                # A fresh instance, so its peak is the 4 concurrent renders' and not what the
                # earlier tasks left in the allocator.
                fresh = makers[c.name](name=f"{c.name}-c4")
                servers.append(fresh)
                try:
                    idle = rss_mb(fresh.pid)
                    seg = run_segment(fresh, task, origin, C4_REQUESTS, concurrency=4)
                finally:
                    fresh.stop()
                    servers.remove(fresh)
                results["c4"][c.name] = {"cpu_ms": seg["cpu_ms"], "rps": seg["rps"],
                                         "p50": percentile(seg["lat"], 50) * 1000,
                                         "p99": percentile(seg["lat"], 99) * 1000,
                                         "peak_mb": seg["peak_mb"], "idle_mb": idle}
                if seg["failures"]:
                    results["c4"][c.name]["error"] = f"{len(seg['failures'])} failed: {seg['failures'][0]}"

        if "tasks" in SECTIONS:
            print("bench-service: vipsthumbnail floor", file=sys.stderr)
            for task in tasks:
                results["floor"][task.id] = vips_floor(task, sources, workdir, max(4, task.requests()))

        if "floor" in SECTIONS:
            print("bench-service: the codec libraries called directly (floor)", file=sys.stderr)
            programs = [os.environ.get("DECODE_BENCH", ""), os.environ.get("ENCODE_FLOOR", "")]
            if all(p and os.access(p, os.X_OK) for p in programs):
                results["floor2"] = service_floor.combine(
                    service_floor.measure(os.path.join(sources, "photo.jpg"), *programs, iterations=FLOOR_ITERATIONS,
                                          resize_bench=os.environ.get("RESIZE_BENCH") or None),
                    floor_samples if rounds else [])
            else:
                results["floor2"] = {"error": os.environ.get("FLOOR_ERROR") or
                                     "DECODE_BENCH and ENCODE_FLOOR (Benchmarks/c, built by run-service.sh) not given"}

        if "scale" in SECTIONS and SCALE_ROUNDS > 0 and SCALE_REQUESTS > 0:
            print("bench-service: scale sweep (1 and 2 workers/processes)", file=sys.stderr)
            sweep_makers = {"ours": lambda n: make_ours(workers=n, name=f"ours-w{n}"),
                            "ours-nginx": lambda n: make_cluster(webimage, n, workdir, ours.url)}
            if "thumbor" in makers and any(c.name == "thumbor" for c in contenders):
                sweep_makers["thumbor"] = lambda n: make_thumbor(processes=n, name=f"thumbor-p{n}")
            configs = [("ours", 1), ("ours", 2), ("ours-nginx", 2), ("thumbor", 1), ("thumbor", 2)]
            results["scale"] = scale_sweep(sweep_makers, configs, next(t for t in TASKS if t.id == "jpeg"),
                                           origin, servers)

        if "hits" in SECTIONS and WRK_SECONDS > 0:
            print("bench-service: result-cache hits (wrk)", file=sys.stderr)
            results["hits"] = [("no source cache (the default)", cache_hits(ours, origin, workdir))]
            cached = Server("ours-cache-dir", [webimage, "serve", "--bind", "127.0.0.1:0", "--allow-network", "loopback",
                                               "--cache-dir", os.path.join(workdir, "source-cache")],
                            None, workdir, ours.url, "/health")
            servers.append(cached)
            results["hits"].append(("`--cache-dir` (source from the disk cache)", cache_hits(cached, origin, workdir)))
            cached.stop()
            servers.remove(cached)

        if os.environ.get("PROFILE") == "1":
            profile_path = os.path.join(os.path.dirname(out_path), "service-profile.txt")
            os.makedirs(os.path.dirname(profile_path), exist_ok=True)
            with open(profile_path, "w") as f:
                for task in tasks:
                    if task.id in ("jpeg", "12mp"):
                        f.write(profile(ours, task, origin, workdir))
            print(f"bench-service: profile in {profile_path}", file=sys.stderr)

        settings = {
            "command": os.environ.get("BENCH_COMMAND", "make bench-service"),
            "rounds": ROUNDS,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "rev": version_of(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]),
            "thumbor": ("thumbor " + version_of([os.path.join(os.path.dirname(thumbor_bin), "python"), "-c",
                                                 "import thumbor, PIL; print(thumbor.__version__, '(Pillow', PIL.__version__ + ')')"]))
                       if thumbor_bin else "no thumbor",
            "vips": version_of(["vips", "--version"]),
            "machine": machine_note(load_start, os.getloadavg()[0]),
            "sources": source_notes,
            "sections": SECTIONS,
        }
        block = render(results, settings)
        os.makedirs(os.path.dirname(out_path), exist_ok=True)
        with open(out_path, "w") as f:
            f.write(block + "\n")
        with open(out_path.rsplit(".", 1)[0] + ".json", "w") as f:
            json.dump({"settings": settings,
                       "by_task": results["by_task"], "floor": results["floor"],
                       "c4": results.get("c4"), "hits": results.get("hits"), "libraries": results.get("floor2"),
                       "scale": {f"{name} N={n}": row for (name, n), row in (results.get("scale") or {}).items()}},
                      f, indent=1, default=str)
        print(block)
        print(f"bench-service: results in {out_path} ({settings['date']}, webimage {settings['rev']})", file=sys.stderr)
        if os.environ.get("UPDATE_DOC"):
            if SECTIONS != list(ALL_SECTIONS):
                # The block documents a whole run; a partial one would drop the other sections.
                print(f"bench-service: SECTIONS={','.join(SECTIONS)} is a partial run; "
                      f"{os.environ['UPDATE_DOC']} not updated", file=sys.stderr)
            else:
                update_doc(os.environ["UPDATE_DOC"], block)
    finally:
        for s in reversed(servers):
            try:
                s.stop()
            except Exception as error:  # keep stopping the others
                print(f"bench-service: stopping: {error}", file=sys.stderr)
        if os.environ.get("KEEP") == "1":
            print(f"bench-service: kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
