#!/usr/bin/env bash
# `make cluster-demo` (SPEC V-10, issue #15): three `webimage serve` instances sharing one
# source-cache directory behind nginx (deploy/nginx/nginx.conf), all on 127.0.0.1. Drives a
# bounded load (scripts/cluster-load.py: fixed count, concurrency 8), SIGKILLs one instance
# once a fixed number of requests have completed, restarts it, drives a second phase, then
# probes with fresh URLs until the restarted instance has served one (it rejoins), and ends with
# exactly one line on standard output
#   cluster: requests=N errors=N renders=N hits=N p50=Xms p99=Yms
# errors = responses other than 2xx and transport errors the clients saw; renders = the
# instances' render counters (/metrics, encode stage), the killed one counted up to its kill;
# hits = nginx cache hits ($upstream_cache_status HIT in its access log). Progress goes to
# standard error; the exit status is 0 only when the restarted instance rejoined.
# Everything runs under a temporary directory, removed on exit (KEEP=1 keeps it).
#
# Environment:
#   CLUSTER_SHORT=1   the short run of the test suite (ClusterTests): 240 + 60 requests over
#                     smaller sources, no wrk, every child bounded by 240 s
#   WEBIMAGE_BIN=PATH use this `webimage` binary: no `make setup`, no build (the tests pass theirs)
#   CLUSTER_REQUESTS, CLUSTER_REJOIN_REQUESTS  the two phases' request counts
# Every child stays in the script's process group (`timeout --foreground`), so whoever started
# the script can end all of it with one signal to the group.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SWIFT="${SWIFT:-swift}"
SHORT="${CLUSTER_SHORT:-0}"
if [ "$SHORT" = 1 ]; then
  REQUESTS="${CLUSTER_REQUESTS:-240}"; REJOIN_REQUESTS="${CLUSTER_REJOIN_REQUESTS:-60}"
  # Small sources and many sizes: renders are cheap, and the first pass (every request a
  # different URL/Accept pair) has ~50 URLs still unrequested at the kill, so some of them are
  # hashed to the killed instance and must fail over (each URL lands on it with chance 1/3).
  SOURCE_SIZE=240x180; SIZES1="16 24 32 40 48 56 64 72 80 88 96 104 112 120 128"; SIZES2="36 60 84"; BOUND=240
else
  REQUESTS="${CLUSTER_REQUESTS:-600}"; REJOIN_REQUESTS="${CLUSTER_REJOIN_REQUESTS:-200}"
  SOURCE_SIZE=1200x900; SIZES1="64 96 128 160 200 256"; SIZES2="72 144 288"; BOUND=900
fi
CONCURRENCY=8
CORPUS="${CORPUS:-$ROOT/../shared/corpus}"
[ -d "$CORPUS" ] || CORPUS=/work/shared/corpus
# A command, not a function: `BOUNDED cmd &` must make $! the pid of `timeout` itself, whose
# only child is the command (a function would put a subshell in between).
BOUNDED=(timeout --foreground "$BOUND")

cd "$ROOT"
if [ -n "${WEBIMAGE_BIN:-}" ]; then
  BIN="$WEBIMAGE_BIN"
else
  EXTRA_PACKAGES="wrk" bash scripts/setup.sh  # nginx comes with the test packages
  echo "cluster-demo: building webimage (debug build: renders are slower than a release build's)" >&2
  # shellcheck disable=SC2086
  timeout 1800 "$SWIFT" build --product webimage ${SWIFT_BUILD_FLAGS:-} >&2
  BIN="$("$SWIFT" build --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage"
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
for tool in "$NGINX" "$BIN" python3 curl pgrep; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "cluster-demo: $tool not found (nginx, curl, procps and python3 are installed by \`make setup\`)" >&2; exit 2; }
done

WORK="$(mktemp -d /tmp/webimage-cluster.XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "cluster-demo: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

wait_http() { # URL: polls for a 200, up to 60 s
  local deadline=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$deadline" ]; do
    curl -fs -o /dev/null --max-time 5 "$1" && return 0
    sleep 0.1
  done
  echo "cluster-demo: $1 did not answer" >&2; return 1
}

# Sources: generated with the tool itself from corpus files, served by a loopback origin.
mkdir -p "$WORK/origin" "$WORK/sources-cache" "$WORK/nginx/logs" "$WORK/nginx/tmp" "$WORK/nginx/cache"
SMALL=800x800; MONO=640x640
[ "$SHORT" = 1 ] && { SMALL=$SOURCE_SIZE; MONO=$SOURCE_SIZE; }
"${BOUNDED[@]}" "$BIN" convert --resize "$SOURCE_SIZE" "$CORPUS/jpeg-libjpeg-turbo/testorig.jpg" "$WORK/origin/photo.jpg" >/dev/null
"${BOUNDED[@]}" "$BIN" convert --resize "$SOURCE_SIZE" "$CORPUS/jpeg-libjpeg-turbo/testorig.jpg" "$WORK/origin/photo.png" >/dev/null
"${BOUNDED[@]}" "$BIN" convert --resize "$SMALL" "$CORPUS/sdwebimage/IndexedPNG.png" "$WORK/origin/indexed.png" >/dev/null
"${BOUNDED[@]}" "$BIN" convert --resize "$MONO" "$CORPUS/sdwebimage/MonochromeTestImage.jpg" "$WORK/origin/mono.jpg" >/dev/null
ORIGIN_PORT="$(free_port)"
"${BOUNDED[@]}" python3 -m http.server "$ORIGIN_PORT" --bind 127.0.0.1 -d "$WORK/origin" \
  >"$WORK/origin.log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$ORIGIN_PORT/photo.jpg"

# Instances: one shared source cache; each on a free loopback port, pid in instN.pid. The
# deadlines are generous: the short run renders with a debug build on a loaded machine, and a
# 504 there would be a slow machine, not a cluster failure.
start_instance() { # N PORT
  "${BOUNDED[@]}" "$BIN" serve --bind "127.0.0.1:$2" --cache-dir "$WORK/sources-cache" \
    --allow-network loopback --auto-webp true --auto-avif true \
    --download-timeout 60 --max-processing-time 120 \
    >"$WORK/inst$1.out" 2>>"$WORK/inst$1.err" &
  local pid=$!
  PIDS+=("$pid")
  # `timeout` runs the service as its child: the pid to SIGKILL is the service's own.
  local deadline=$((SECONDS + 60))
  rm -f "$WORK/inst$1.pid"
  while [ "$SECONDS" -lt "$deadline" ]; do
    local child; child="$(pgrep -P "$pid" || true)"
    [ -n "$child" ] && { echo "$child" >"$WORK/inst$1.pid"; break; }
    sleep 0.05
  done
  [ -s "$WORK/inst$1.pid" ] || { echo "cluster-demo: instance $1 did not start" >&2; return 1; }
  wait_http "http://127.0.0.1:$2/health"
  # The answer must come from this process (a survivor of the kill would hold the port, and
  # this one would have exited on "address already in use").
  kill -0 "$(cat "$WORK/inst$1.pid")" 2>/dev/null || {
    echo "cluster-demo: instance $1 exited: $(tail -1 "$WORK/inst$1.err")" >&2; return 1; }
}
PORTS=()
for n in 1 2 3; do
  PORTS+=("$(free_port)")
  start_instance "$n" "${PORTS[$((n - 1))]}"
done

# nginx from the template, on a free loopback port, in the foreground (backgrounded here).
NGINX_PORT="$(free_port)"
UPSTREAMS=""
for p in "${PORTS[@]}"; do UPSTREAMS+="        server 127.0.0.1:$p max_fails=1 fail_timeout=3s;"$'\n'; done
USER_LINE=""; [ "$(id -u)" -eq 0 ] && USER_LINE="user root;"
python3 - "$ROOT/deploy/nginx/nginx.conf" "$WORK/nginx/nginx.conf" "127.0.0.1:$NGINX_PORT" "$UPSTREAMS" "$USER_LINE" <<'PY'
import sys
src, dst, listen, upstreams, user = sys.argv[1:6]
out = []
for line in open(src).read().splitlines():
    if not line.lstrip().startswith("#"):  # the header comment names the placeholders too
        line = line.replace("@LISTEN@", listen).replace("@UPSTREAMS@", upstreams.rstrip("\n")).replace("@USER@", user)
    out.append(line)
open(dst, "w").write("\n".join(out) + "\n")
PY
"$NGINX" -t -q -p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/logs/error.log" -g 'daemon off;'
"${BOUNDED[@]}" "$NGINX" -p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/logs/error.log" -g 'daemon off;' &
PIDS+=($!)
wait_http "http://127.0.0.1:$NGINX_PORT/health"

# URL mixes: 4 sources x sizes x 4 Accept spellings (3 format buckets), in a fixed shuffled order.
make_urls() { # FILE SIZES...
  local file=$1; shift
  python3 - "$file" "$ORIGIN_PORT" "$@" <<'PY'
import random, sys
file, origin, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
accepts = ["image/avif,image/webp,*/*", "image/webp,*/*",
           "text/html,application/xhtml+xml,image/webp,image/apng,*/*;q=0.8", "*/*"]
sources = ["photo.jpg", "photo.png", "indexed.png", "mono.jpg"]
lines = [f"{a}\t/insecure/rs:fit:{w}:{w}/plain/http://127.0.0.1:{origin}/{s}"
         for s in sources for w in sizes for a in accepts]
random.Random(15).shuffle(lines)
open(file, "w").write("\n".join(lines) + "\n")
PY
}
# shellcheck disable=SC2086
make_urls "$WORK/urls1.txt" $SIZES1
# shellcheck disable=SC2086
make_urls "$WORK/urls2.txt" $SIZES2

# Phase 1: the load, with instance 2 SIGKILLed while the first pass over the URLs (all misses)
# is still rendering, so requests are in flight to it and more are routed to it after the kill.
"${BOUNDED[@]}" python3 "$ROOT/scripts/cluster-load.py" "http://127.0.0.1:$NGINX_PORT" "$WORK/urls1.txt" \
  "$REQUESTS" "$CONCURRENCY" "$WORK/results.txt" "$WORK/inst2.pid" "$((REQUESTS / 12))" \
  "http://127.0.0.1:${PORTS[1]}/metrics" "$WORK/killed-renders.txt"

# Restart instance 2 on its port. nginx skips it until `fail_timeout` (3 s) has passed since
# its last failure, then tries it again; phase 2 starts at once (requests hashed to it meanwhile
# go to the next instance).
KILLED="$(cat "$WORK/inst2.pid")"
for _ in $(seq 1 100); do kill -0 "$KILLED" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$KILLED" 2>/dev/null; then echo "cluster-demo: instance 2 (pid $KILLED) survived SIGKILL" >&2; exit 1; fi
start_instance 2 "${PORTS[1]}"
"${BOUNDED[@]}" python3 "$ROOT/scripts/cluster-load.py" "http://127.0.0.1:$NGINX_PORT" "$WORK/urls2.txt" \
  "$REJOIN_REQUESTS" "$CONCURRENCY" "$WORK/results.txt"

metric_sum() { # PORT PREFIX: sum of the samples whose line starts with PREFIX
  { curl -fs --max-time 10 "http://127.0.0.1:$1/metrics" || true; } | awk -v p="$2" 'index($0, p) == 1 { s += $NF } END { printf "%d\n", s }'
}
# Renders of the two phases (before the probes, which render too).
RENDERS="$(cat "$WORK/killed-renders.txt" 2>/dev/null || echo 0)"
for p in "${PORTS[@]}"; do
  RENDERS=$((RENDERS + $(metric_sum "$p" 'webimage_stage_duration_seconds_count{stage="encode"}')))
done
HITS="$(grep -c ' cache=HIT ' "$WORK/nginx/logs/access.log" || true)"
# Rejoin: wait for the event "the restarted instance answered an image request" rather than for a
# time. Phase 2 may end before fail_timeout has passed, or hash none of its URLs to instance 2, so
# probe through nginx with fresh URLs (each a miss, hashed anywhere on the ring) until it has
# served one; at most 120 s. Probes are not counted in the summary, but any probe error fails.
REJOINED="$(metric_sum "${PORTS[1]}" 'webimage_requests_total{status="2')"
PROBES=0
PROBE_DEADLINE=$((SECONDS + 120))
while [ "$REJOINED" -eq 0 ] && [ "$SECONDS" -lt "$PROBE_DEADLINE" ]; do
  PROBES=$((PROBES + 1))
  STATUS="$(curl -s -o /dev/null -w '%{http_code}' --max-time 60 -H 'Accept: */*' \
    "http://127.0.0.1:$NGINX_PORT/insecure/rs:fit:$((40 + PROBES)):$((40 + PROBES))/plain/http://127.0.0.1:$ORIGIN_PORT/mono.jpg" || true)"
  if [ "$STATUS" != 200 ]; then echo "cluster-demo: rejoin probe $PROBES answered $STATUS" >&2; exit 1; fi
  REJOINED="$(metric_sum "${PORTS[1]}" 'webimage_requests_total{status="2')"
done
echo "cluster-demo: rejoin: the restarted instance 127.0.0.1:${PORTS[1]} served $REJOINED requests ($PROBES probes after phase 2)" >&2
RETRIED="$(grep -c 'upstream=[^ ]*, ' "$WORK/nginx/logs/access.log" || true)"
echo "cluster-demo: $RETRIED requests were retried on another instance by nginx" >&2

# nginx serving a cached result (wrk from Debian, 3 s at c8): the hit path of the capacity model.
if [ "$SHORT" != 1 ] && command -v wrk >/dev/null 2>&1; then
  HIT_PATH="$(head -1 "$WORK/urls1.txt" | cut -f2)"
  RATE="$(timeout 30 wrk -t2 -c8 -d3s -H 'Accept: */*' "http://127.0.0.1:$NGINX_PORT$HIT_PATH" 2>/dev/null \
    | awk '/Requests\/sec/ { print $2 }' || true)"
  echo "cluster-demo: nginx cache hits, wrk -t2 -c8 -d3s on one cached URL: ${RATE:-?} req/s" >&2
fi

python3 - "$WORK/results.txt" "$RENDERS" "$HITS" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
statuses = [int(s) for s, _ in rows]
latencies = sorted(float(l) for _, l in rows)
errors = sum(1 for s in statuses if not 200 <= s < 300)
def pct(q):
    return latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else 0.0
print(f"cluster: requests={len(rows)} errors={errors} renders={sys.argv[2]} hits={sys.argv[3]} "
      f"p50={pct(0.50):.1f}ms p99={pct(0.99):.1f}ms")
PY
if [ "$REJOINED" -eq 0 ]; then echo "cluster-demo: the restarted instance did not rejoin" >&2; exit 1; fi
