#!/usr/bin/env bash
# The service's 12 MP → 500 px task on a Display P3 (and an Adobe RGB) source against the same
# task on the untagged source, through a release `webimage serve` (G-4; docs/PERFORMANCE.md,
# "Colour conversion"). `make bench-service-colour`.
#
#   scripts/measure-service-colour.sh [REQUESTS] [ROUNDS]
#
# `webimage-bench colour-sources` writes one generated 4000×3000 picture as q90 JPEGs: untagged,
# and with a Display P3 or Adobe RGB (1998) profile embedded (the same pixel values, so the
# decode does the same work and only the colour step differs). A loopback origin
# (python3 -m http.server) serves them; `webimage serve --bind 127.0.0.1:0 --allow-network
# loopback` renders `rs:fit:500:375/q:80` of each, REQUESTS (default 30) sequential requests
# per task and round, every request with its own cache buster (`cb:N`) so that every one
# renders. The tasks are interleaved: each round runs untagged, Display P3, Adobe RGB, in a
# rotating order, so that the machine's load falls on all of them alike. CPU time is the
# server's utime+stime from /proc/PID/stat around each batch. Prints the median CPU-ms per
# request of each task over ROUNDS (default 9) rounds, and the median of the per-round ratios
# against untagged, with the load average before and after. Needs only python3.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${BIN:-$ROOT/.build/release/webimage}"
BENCH="${BENCH:-$ROOT/.build/release/webimage-bench}"
REQUESTS="${1:-30}"
ROUNDS="${2:-9}"
for b in "$BIN" "$BENCH"; do
  [ -x "$b" ] || { echo "no $b: build with swift build -c release --product webimage / webimage-bench" >&2; exit 1; }
done

WORK="$(mktemp -d /tmp/measure-service-colour.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/origin"
"$BENCH" colour-sources "$WORK/origin"

BIN="$BIN" WORK="$WORK" REQUESTS="$REQUESTS" ROUNDS="$ROUNDS" timeout 3600 python3 - <<'PY'
import http.client, os, socket, statistics, subprocess, sys, time

work, binary = os.environ["WORK"], os.environ["BIN"]
requests, rounds = int(os.environ["REQUESTS"]), int(os.environ["ROUNDS"])
src = os.path.join(work, "origin")
for name in sorted(os.listdir(src)):
    print(f"source {name}: {os.path.getsize(os.path.join(src, name))} bytes")

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])

origin_port = free_port()
origin = subprocess.Popen([sys.executable, "-m", "http.server", str(origin_port), "--bind", "127.0.0.1", "-d", src],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
server = subprocess.Popen([binary, "serve", "--bind", "127.0.0.1:0", "--allow-network", "loopback"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", origin_port), 1).close(); break
        except OSError:
            time.sleep(0.1)
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu_seconds():
        fields = open(f"/proc/{server.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    counter = 0

    def get(source):
        global counter
        counter += 1
        url = f"http://127.0.0.1:{origin_port}/{source}"
        connection.request("GET", f"/insecure/rs:fit:500:375/q:80/cb:{counter}/plain/{url}@jpg")
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status} for {source}: {body[:200]!r}")
        return body

    tasks = [("untagged", "untagged.jpg"), ("Display P3", "display-p3.jpg"), ("Adobe RGB", "adobe-rgb.jpg")]
    for _, source in tasks:
        for _ in range(3):
            get(source)  # warm-up: the first request builds the colour transform and pools
    print(f"load average before: {load()}")
    cpu = {name: [] for name, _ in tasks}
    for r in range(rounds):
        order = tasks[r % len(tasks):] + tasks[:r % len(tasks)]
        for name, source in order:
            before = cpu_seconds()
            for _ in range(requests):
                get(source)
            cpu[name].append((cpu_seconds() - before) * 1000 / requests)
    print(f"load average after: {load()}")
    print(f"{'source':<12} {'CPU-ms/req (median)':>20} {'min':>8} {'max':>8} {'ratio (median of rounds)':>26}")
    base = cpu["untagged"]
    for name, _ in tasks:
        ratios = [c / b for c, b in zip(cpu[name], base)]
        print(f"{name:<12} {statistics.median(cpu[name]):>20.2f} {min(cpu[name]):>8.2f} {max(cpu[name]):>8.2f} "
              f"{statistics.median(ratios):>25.3f}x")
    print(f"{rounds} rounds x {requests} requests per source, interleaved")
finally:
    server.terminate(); origin.terminate()
    server.wait(30); origin.wait(30)
PY
