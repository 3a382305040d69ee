#!/usr/bin/env bash
# `make cluster-demo` (SPEC V-10, issue #15): three `webimage serve` instances sharing one
# source-cache directory behind nginx (deploy/nginx/nginx.conf), all on 127.0.0.1. Drives a
# bounded load (scripts/cluster-load.py: fixed count, concurrency 8), SIGKILLs one instance
# mid-run, restarts it, checks that requests reach it again, and ends with exactly one line
#   cluster: requests=N errors=N renders=N hits=N p50=Xms p99=Yms
# errors = responses other than 2xx and transport errors the clients saw; renders = the
# instances' render counters (/metrics, encode stage), the killed one counted up to its kill;
# hits = nginx cache hits ($upstream_cache_status HIT in its access log).
# Everything runs under a temporary directory, removed on exit (KEEP=1 keeps it).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SWIFT="${SWIFT:-swift}"
REQUESTS="${CLUSTER_REQUESTS:-600}"          # phase 1, with the kill
REJOIN_REQUESTS="${CLUSTER_REJOIN_REQUESTS:-200}"  # phase 2, after the restart
CONCURRENCY=8
CORPUS="${CORPUS:-$ROOT/../shared/corpus}"
[ -d "$CORPUS" ] || CORPUS=/work/shared/corpus

cd "$ROOT"
EXTRA_PACKAGES="nginx-light wrk" bash scripts/setup.sh
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

echo "cluster-demo: building webimage (debug build: renders are slower than a release build's)" >&2
# shellcheck disable=SC2086
timeout 1800 "$SWIFT" build --product webimage ${SWIFT_BUILD_FLAGS:-} >&2
BIN="$("$SWIFT" build --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage"

WORK="$(mktemp -d /tmp/webimage-cluster.XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "cluster-demo: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

wait_http() { # URL: up to 30 s for a 200
  for _ in $(seq 1 300); do
    curl -fs -o /dev/null --max-time 2 "$1" && return 0
    sleep 0.1
  done
  echo "cluster-demo: $1 did not answer" >&2; return 1
}

# Sources: generated with the tool itself from corpus files, served by a loopback origin.
mkdir -p "$WORK/origin" "$WORK/sources-cache" "$WORK/nginx/logs" "$WORK/nginx/tmp" "$WORK/nginx/cache"
"$BIN" convert --resize 1200x900 "$CORPUS/jpeg-libjpeg-turbo/testorig.jpg" "$WORK/origin/photo.jpg" >/dev/null
"$BIN" convert --resize 1200x900 "$CORPUS/jpeg-libjpeg-turbo/testorig.jpg" "$WORK/origin/photo.png" >/dev/null
"$BIN" convert --resize 800x800 "$CORPUS/sdwebimage/IndexedPNG.png" "$WORK/origin/indexed.png" >/dev/null
"$BIN" convert --resize 640x640 "$CORPUS/sdwebimage/MonochromeTestImage.jpg" "$WORK/origin/mono.jpg" >/dev/null
ORIGIN_PORT="$(free_port)"
timeout 900 python3 -m http.server "$ORIGIN_PORT" --bind 127.0.0.1 -d "$WORK/origin" \
  >"$WORK/origin.log" 2>&1 &
PIDS+=($!)
wait_http "http://127.0.0.1:$ORIGIN_PORT/photo.jpg"

# Instances: one shared source cache; each on a free loopback port, pid in instN.pid.
start_instance() { # N PORT
  timeout 900 "$BIN" serve --bind "127.0.0.1:$2" --cache-dir "$WORK/sources-cache" \
    --allow-network loopback --auto-webp true --auto-avif true \
    >"$WORK/inst$1.out" 2>>"$WORK/inst$1.err" &
  local pid=$!
  PIDS+=("$pid")
  # `timeout` runs the service as its child: the pid to SIGKILL is the service's own.
  for _ in $(seq 1 100); do
    local child; child="$(pgrep -P "$pid" || true)"
    [ -n "$child" ] && { echo "$child" >"$WORK/inst$1.pid"; break; }
    sleep 0.05
  done
  wait_http "http://127.0.0.1:$2/health"
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
timeout 900 "$NGINX" -p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/logs/error.log" -g 'daemon off;' &
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
make_urls "$WORK/urls1.txt" 64 96 128 160 200 256
make_urls "$WORK/urls2.txt" 72 144 288

# Phase 1: the load, with instance 2 SIGKILLed while the first pass over the URLs (all misses)
# is still rendering, so requests are in flight to it and more are routed to it after the kill.
timeout 600 python3 "$ROOT/scripts/cluster-load.py" "http://127.0.0.1:$NGINX_PORT" "$WORK/urls1.txt" \
  "$REQUESTS" "$CONCURRENCY" "$WORK/results.txt" "$WORK/inst2.pid" "$((REQUESTS / 12))" \
  "http://127.0.0.1:${PORTS[1]}/metrics" "$WORK/killed-renders.txt"

# Restart instance 2 on its port; past nginx's fail_timeout it is tried again.
start_instance 2 "${PORTS[1]}"
sleep 4
timeout 600 python3 "$ROOT/scripts/cluster-load.py" "http://127.0.0.1:$NGINX_PORT" "$WORK/urls2.txt" \
  "$REJOIN_REQUESTS" "$CONCURRENCY" "$WORK/results.txt"

metric_sum() { # PORT PREFIX: sum of the samples whose line starts with PREFIX
  curl -fs --max-time 10 "http://127.0.0.1:$1/metrics" | awk -v p="$2" 'index($0, p) == 1 { s += $NF } END { printf "%d\n", s }'
}
REJOINED="$(metric_sum "${PORTS[1]}" 'webimage_requests_total{status="2')"
echo "cluster-demo: restarted instance 127.0.0.1:${PORTS[1]} served $REJOINED requests after rejoining" >&2
RENDERS="$(cat "$WORK/killed-renders.txt" 2>/dev/null || echo 0)"
for p in "${PORTS[@]}"; do
  RENDERS=$((RENDERS + $(metric_sum "$p" 'webimage_stage_duration_seconds_count{stage="encode"}')))
done
HITS="$(grep -c ' cache=HIT ' "$WORK/nginx/logs/access.log" || true)"
RETRIED="$(grep -c 'upstream=[^ ]*, ' "$WORK/nginx/logs/access.log" || true)"
echo "cluster-demo: $RETRIED requests were retried on another instance by nginx" >&2

# nginx serving a cached result (wrk from Debian, 3 s at c8): the hit path of the capacity model.
if command -v wrk >/dev/null 2>&1; then
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
