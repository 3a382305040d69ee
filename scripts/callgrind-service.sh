#!/usr/bin/env bash
# Instructions per request of `webimage serve` (valgrind's callgrind), for before/after checks of
# the service line (docs/PERFORMANCE.md). The source is the service benchmark's 2040×1356 q90
# synthetic photo, served from a loopback origin; the request is the JPEG task
# (`rs:fit:512:512/q:80`, each with its own cache buster so every one renders). After WARM
# requests the counters are zeroed (callgrind_control -z), REQUESTS more are sent, and the dump's
# total divided by REQUESTS is printed, with the top functions (callgrind_annotate).
#
#   scripts/callgrind-service.sh [REQUESTS] [WARM]      BIN (default the release webimage)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${BIN:-$ROOT/.build/release/webimage}"
REQUESTS="${1:-5}"
WARM="${2:-3}"
[ -x "$BIN" ] || { echo "no $BIN: build with swift build -c release --product webimage" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "needs valgrind (EXTRA_PACKAGES=valgrind bash scripts/setup.sh)" >&2; exit 1; }
PYTHON="$(bash "$ROOT/scripts/python-venv.sh" quality)"
WORK="$(mktemp -d /tmp/callgrind-service.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 the Swift toolchain writes: a copy without
# debug information (symbols kept) is what runs.
strip --strip-debug -o "$WORK/webimage" "$BIN"
BIN="$WORK/webimage"

BIN="$BIN" WORK="$WORK" REQUESTS="$REQUESTS" WARM="$WARM" timeout 3000 "$PYTHON" - <<'PY'
import glob, http.client, os, random, socket, subprocess, sys, time
from PIL import Image, ImageFilter

work, binary = os.environ["WORK"], os.environ["BIN"]
requests, warm = int(os.environ["REQUESTS"]), int(os.environ["WARM"])

def photo(width, height, seed):
    """The service benchmark's photo-like content (scripts/measure-service-cpu.sh)."""
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
photo(2040, 1356, 1).save(os.path.join(src, "photo.jpg"), quality=90)

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

origin_port = free_port()
origin = subprocess.Popen([sys.executable, "-m", "http.server", str(origin_port), "--bind", "127.0.0.1", "-d", src],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
out = os.path.join(work, "callgrind.out")
server = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "serve",
                           "--bind", "127.0.0.1:0", "--allow-network", "loopback"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    line = server.stdout.readline()
    port = int(line.strip().rsplit(":", 1)[1])
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", origin_port), 1).close(); break
        except OSError:
            time.sleep(0.1)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    counter = 0

    def get():
        global counter
        counter += 1
        connection.request("GET", f"/insecure/rs:fit:512:512/q:80/cb:{counter}/plain/http://127.0.0.1:{origin_port}/photo.jpg@jpg")
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status}: {body[:200]!r}")

    for _ in range(warm):
        get()
    subprocess.run(["callgrind_control", "-z", str(server.pid)], check=True, stdout=subprocess.DEVNULL)
    for _ in range(requests):
        get()
    subprocess.run(["callgrind_control", "-d", str(server.pid)], check=True, stdout=subprocess.DEVNULL)
    dumps = sorted(p for p in glob.glob(out + "*") if p != out)
    dump = dumps[-1] if dumps else out
    total = next(int(l.split()[1]) for l in open(dump) if l.startswith(("summary:", "totals:")))
    print(f"instructions per request (rs:fit:512:512/q:80, 2040x1356 q90 JPEG): {total / requests / 1e6:.1f} M")
    annotate = subprocess.run(["callgrind_annotate", "--inclusive=no", dump], capture_output=True, text=True).stdout
    print("\n".join(annotate.splitlines()[:45]))
finally:
    server.terminate(); origin.terminate()
    server.wait(60); origin.wait(30)
PY
