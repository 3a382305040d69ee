#!/usr/bin/env bash
# CPU milliseconds per request of `webimage serve` on issue #15's tasks (a quick before/after
# check while tuning; `make bench-service` is the benchmark against thumbor).
#
#   scripts/measure-service-cpu.sh [REQUESTS] [RUNS]
#
# Generates photo-like sources with Python/Pillow in a temporary directory (2040×1356 q90 JPEG
# and PNG, 4000×3000 q90 JPEG), serves them from a loopback origin (python3 -m http.server),
# starts `webimage serve --bind 127.0.0.1:0 --allow-network loopback` (BIN, default the
# release build) and sends REQUESTS (default 30) sequential requests per task, each with its
# own cache buster (`cb:N`) so that every one renders. CPU time is the server's utime+stime
# from /proc/PID/stat before and after; each task runs RUNS times (default 3) and the median
# is printed. TASKS (space-separated names) selects tasks. Needs python3 with Pillow.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${BIN:-$ROOT/.build/release/webimage}"
REQUESTS="${1:-30}"
RUNS="${2:-3}"
[ -x "$BIN" ] || { echo "no $BIN: build with swift build -c release --product webimage" >&2; exit 1; }

WORK="$(mktemp -d /tmp/measure-service-cpu.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

BIN="$BIN" WORK="$WORK" REQUESTS="$REQUESTS" RUNS="$RUNS" TASKS="${TASKS:-}" timeout 1800 python3 - <<'PY'
import http.client, os, random, socket, statistics, subprocess, sys, time
from PIL import Image, ImageFilter

work, binary = os.environ["WORK"], os.environ["BIN"]
requests, runs = int(os.environ["REQUESTS"]), int(os.environ["RUNS"])

def photo(width, height, seed):
    """Photo-like content: smooth colour fields, octaves of blurred noise, fine grain."""
    rng = random.Random(seed)
    base = Image.new("RGB", (8, 6))
    base.putdata([tuple(rng.randrange(40, 220) for _ in range(3)) for _ in range(48)])
    image = base.resize((width, height), Image.BICUBIC)
    for size, blur, weight in ((width // 16, 2, 0.35), (width // 4, 1.5, 0.25), (width, 0.6, 0.18)):
        bands = [Image.effect_noise((size, size * height // width), 60).resize((width, height), Image.BICUBIC) for _ in range(3)]
        noise = Image.merge("RGB", bands).filter(ImageFilter.GaussianBlur(blur))
        image = Image.blend(image, noise, weight)
    return image.filter(ImageFilter.UnsharpMask(2, 80, 2))

src = os.path.join(work, "origin")
os.makedirs(src)
mid = photo(2040, 1356, 1)
mid.save(os.path.join(src, "photo.jpg"), quality=90)
mid.save(os.path.join(src, "photo.png"))
photo(4000, 3000, 2).save(os.path.join(src, "big.jpg"), quality=90)
for name in sorted(os.listdir(src)):
    print(f"source {name}: {os.path.getsize(os.path.join(src, name))} bytes", file=sys.stderr)

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

origin_port = free_port()
origin = subprocess.Popen([sys.executable, "-m", "http.server", str(origin_port), "--bind", "127.0.0.1", "-d", src],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
server = subprocess.Popen([binary, "serve", "--bind", "127.0.0.1:0", "--allow-network", "loopback"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    line = server.stdout.readline()
    port = int(line.strip().rsplit(":", 1)[1])
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", origin_port), 1).close(); break
        except OSError:
            time.sleep(0.1)
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu_seconds():
        fields = open(f"/proc/{server.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    origin_url = f"http://127.0.0.1:{origin_port}"
    tasks = {
        "jpeg-fit512-q80": ("rs:fit:512:512/q:80", "photo.jpg@jpg"),
        "webp-fit512-q75": ("rs:fit:512:512/q:75", "photo.jpg@webp"),
        "avif-fit512-q65": ("rs:fit:512:512/q:65", "photo.jpg@avif"),
        "12mp-500x375-q80": ("rs:fit:500:375/q:80", "big.jpg@jpg"),
        "png-fit512-png": ("rs:fit:512:512", "photo.png@png"),
        "png-fit512-jpg": ("rs:fit:512:512/q:80", "photo.png@jpg"),
    }
    chosen = os.environ.get("TASKS", "").split() or list(tasks)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    counter = 0

    def get(options, source):
        global counter
        counter += 1
        connection.request("GET", f"/insecure/{options}/cb:{counter}/plain/{origin_url}/{source}")
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status} for {options} {source}: {body[:200]!r}")
        return len(body)

    print(f"{'task':<18} {'CPU-ms/req (median)':>20} {'runs':>24} {'wall-ms/req':>12} {'bytes':>8}")
    for name in chosen:
        options, source = tasks[name]
        for _ in range(3):
            get(options, source)  # warm-up: first-use costs are not per request
        results, walls = [], []
        for _ in range(runs):
            before, start = cpu_seconds(), time.monotonic()
            for _ in range(requests):
                size = get(options, source)
            walls.append((time.monotonic() - start) * 1000 / requests)
            results.append((cpu_seconds() - before) * 1000 / requests)
        runs_text = " ".join(f"{value:.1f}" for value in results)
        print(f"{name:<18} {statistics.median(results):>20.1f} {runs_text:>24} {statistics.median(walls):>12.1f} {size:>8}")
    rss = [l for l in open(f"/proc/{server.pid}/status") if l.startswith("VmHWM")]
    print("server peak RSS:", rss[0].split(":", 1)[1].strip() if rss else "?")
finally:
    server.terminate(); origin.terminate()
    server.wait(30); origin.wait(30)
PY
