#!/usr/bin/env bash
# `make cluster-hosts` (SPEC V-13): a cluster of hosts made of Linux network namespaces joined by
# veth links to a bridge in a namespace of its own (addresses CLUSTER_HOSTS_NET.0/24, by default
# 10.231.0.0/24, on links this script creates; no namespace has a default route and no link
# reaches the machine's own namespace, so no packet leaves them):
#   front   .1        nginx (deploy/nginx/nginx.conf; its own result cache off, retries without a
#                     time limit: scripts/cluster-nginx-conf.py) and the load
#   svc1-3  .11-.13   `webimage serve` (release build): s3:// sources and
#                     --result-store s3://results/cluster on the storage host
#   store   .20       the S3 server on :9000 — moto's (scripts/cluster-storage.py, .build-s3-venv),
#                     or with S3_BACKEND=ceph Ceph's RADOS Gateway on a one-node cluster
#                     (scripts/ceph-rgw.sh) — and an HTTP origin (python http.server over
#                     ../shared/corpus, read in place) on :8000
# It drives a bounded load through the front over a fixed set of signed URLs (http and s3://
# sources x sizes x 3 format buckets, passed over several times), takes svc2 away once a fixed
# number of requests have completed (every process of its namespace SIGKILLed, then its link set
# down; the load starts no new request from that event until svc2 is gone, so the requests under
# way across its loss are at most CONCURRENCY, and then goes on), then restarts every service host (svc1 and svc3 stopped with
# SIGTERM, which writes their queued renders to the store; svc2's link up again; three fresh
# processes with empty memory caches) and replays every URL answered 200 before. It ends with
# exactly one line on standard output:
#   cluster-hosts: backend=B requests=N errors=N renders=N rerenders_after_restart=N store_hits=N
# requests/errors: what the client saw (errors = not 2xx, or a transport error), load and replay;
# renders/store_hits: webimage_renders_total / webimage_result_store_hits_total summed over every
# service process (svc2's first one read just before its kill, so renders it finished after the
# read, at most CONCURRENCY, are not counted); rerenders_after_restart: renders of
# the restarted processes, which only ever saw the replay of already rendered URLs. Progress goes
# to standard error. Exit status 0 when errors=0 and rerenders_after_restart=0.
#
# Needs root and permission to make network namespaces; otherwise it refuses with the reason
# (exit 2, or exit 0 with `cluster-hosts: skipped: REASON` on standard output in the short run).
# Namespaces, links and processes are removed on every exit path (trap); the namespaces are
# named wich-<pid of this script>-*, and ones left by a run that was SIGKILLed are removed
# by the next run.
#
# Environment:
#   S3_BACKEND=moto|ceph    the storage host's S3 server (moto by default)
#   CLUSTER_HOSTS_SHORT=1   the short run of the test suite (ClusterHostsTests): fewer, smaller
#                           URLs, every child bounded by 240 s
#   WEBIMAGE_BIN=PATH       use this `webimage`: no setup, no build (the tests pass theirs)
#   CLUSTER_HOSTS_NET       the /24 the hosts get, as its first three octets (10.231.0)
#   CLUSTER_HOSTS_REQUESTS  the load's request count; KEEP=1 keeps the work directory
#   CLUSTER_HOSTS_RESULT_STORE  another --result-store than s3://results/cluster on the storage
#                           host (a directory only tries the script out: the namespaces share
#                           the file system, so the hosts would share a disk)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SWIFT="${SWIFT:-swift}"
SHORT="${CLUSTER_HOSTS_SHORT:-0}"
BACKEND="${S3_BACKEND:-moto}"
NET="${CLUSTER_HOSTS_NET:-10.231.0}"
say() { echo "cluster-hosts: $*" >&2; }
refuse() { # REASON: the run cannot happen on this machine
  if [ "$SHORT" = 1 ]; then echo "cluster-hosts: skipped: $1"; exit 0; fi
  say "refused: $1"; exit 2
}

[ "$(id -u)" -eq 0 ] || refuse "needs root to make network namespaces and veth links (ip netns)"
case "$BACKEND" in moto | ceph) ;; *) say "S3_BACKEND is moto or ceph, not $BACKEND"; exit 2 ;; esac
cd "$ROOT"
if [ -n "${WEBIMAGE_BIN:-}" ]; then
  BIN="$WEBIMAGE_BIN"
  PYTHON_S3="$ROOT/.build-s3-venv/bin/python"
  [ -x "$PYTHON_S3" ] || [ "$BACKEND" = ceph ] || refuse "no .build-s3-venv (moto's S3 server): run \`make setup\`"
else
  # iproute2 and nginx come with the test packages; CEPH=1 adds the gateway's.
  if [ "$BACKEND" = ceph ]; then CEPH=1 bash scripts/setup.sh >&2; else bash scripts/setup.sh >&2; fi
  PYTHON_S3="$(bash scripts/s3-venv.sh)"
  say "building webimage (release)"
  # shellcheck disable=SC2086
  timeout 3600 "$SWIFT" build -c release --product webimage ${SWIFT_BUILD_FLAGS:-} >&2
  BIN="$("$SWIFT" build -c release --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage"
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
if [ "$BACKEND" = ceph ]; then
  for tool in ceph-mon ceph-osd radosgw radosgw-admin; do
    command -v "$tool" >/dev/null 2>&1 || refuse "$tool not found (\`make setup-ceph\` installs Ceph's RADOS Gateway)"
  done
fi
for tool in ip "$NGINX" "$BIN" python3 curl pgrep timeout; do
  command -v "$tool" >/dev/null 2>&1 || refuse "$tool not found (\`make setup\` installs iproute2, nginx, curl, procps, python3)"
done
[[ "$NET" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || refuse "CLUSTER_HOSTS_NET must be three octets, like 10.231.0"
CORPUS="${CORPUS:-$ROOT/../shared/corpus}"
[ -d "$CORPUS" ] || refuse "no image corpus at $CORPUS"

if [ "$SHORT" = 1 ]; then
  BOUND=240; REQUESTS="${CLUSTER_HOSTS_REQUESTS:-216}"; RATE=40; KILL_AT=12; SIZES=(48 96 160); S3_SIZE=240x180
  HTTP_SOURCES=(sdwebimage/IndexedPNG.png jpeg-libjpeg-turbo/testorig.jpg)
  S3_SOURCES=(photo.jpg mono.png)
else
  BOUND=900; REQUESTS="${CLUSTER_HOSTS_REQUESTS:-1440}"; RATE=60; KILL_AT=24; SIZES=(64 128 200 320); S3_SIZE=1200x900
  HTTP_SOURCES=(sdwebimage/TestImageLarge.jpg sdwebimage/IndexedPNG.png sdwebimage/TestImageStatic.webp)
  S3_SOURCES=(photo.jpg photo.png mono.png)
fi
CONCURRENCY=8
# A command, not a function: `BOUNDED cmd &` makes $! the pid of `timeout`, whose child is cmd.
BOUNDED=(timeout --foreground "$BOUND")

# Leftovers of a run that could not clean up (SIGKILLed): namespaces of a script no longer running.
for ns in $(ip netns list 2>/dev/null | awk '/^wich-[0-9]+-/ { print $1 }'); do
  owner="${ns#wich-}"; owner="${owner%%-*}"
  if ! kill -0 "$owner" 2>/dev/null; then
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null && say "removed $ns, left by an earlier run"
  fi
done

P="wich-$$"
NSES=()
PIDS=()
WORK=""
CEPH_DIR=""
cleanup() {
  local status=$?
  set +e
  # The gateway's daemons are in the storage namespace (killed below); its directory is removed here.
  [ -n "$CEPH_DIR" ] && bash "$ROOT/scripts/ceph-rgw.sh" stop "$CEPH_DIR"
  for ns in "${NSES[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
  done
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  for ns in "${NSES[@]}"; do ip netns del "$ns" 2>/dev/null; done
  if [ -n "$WORK" ]; then
    if [ "${KEEP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Permission: make (and remove) a namespace holding a veth pair before anything else.
PROBE_ERR="$(ip netns add "$P-probe" 2>&1)" || refuse "ip netns is not permitted here: $PROBE_ERR"
NSES+=("$P-probe")
PROBE_ERR="$(ip -n "$P-probe" link add name probe0 type veth peer name probe1 2>&1)" || refuse "veth links are not permitted here: $PROBE_ERR"
ip netns del "$P-probe"; NSES=()

WORK="$(mktemp -d /tmp/webimage-cluster-hosts.XXXXXX)"
mkdir -p "$WORK/s3src" "$WORK/home" "$WORK/nginx/logs" "$WORK/nginx/tmp" "$WORK/nginx/cache"

# The network: a bridge in namespace `sw`; each host a namespace whose eth0 is a veth to it.
ns() { echo "$P-$1"; }
in_ns() { local host=$1; shift; ip netns exec "$(ns "$host")" "$@"; }
ip netns add "$(ns sw)"; NSES+=("$(ns sw)")
ip -n "$(ns sw)" link set lo up
ip -n "$(ns sw)" link add name br0 type bridge
ip -n "$(ns sw)" link set br0 up
add_host() { # NAME ADDRESS
  ip netns add "$(ns "$1")"; NSES+=("$(ns "$1")")
  ip -n "$(ns sw)" link add name "$1" type veth peer name eth0 netns "$(ns "$1")"
  ip -n "$(ns sw)" link set "$1" master br0 up
  ip -n "$(ns "$1")" link set lo up
  ip -n "$(ns "$1")" addr add "$2/24" dev eth0
  ip -n "$(ns "$1")" link set eth0 up
}
FRONT="$NET.1"; STORE="$NET.20"; SVC=("$NET.11" "$NET.12" "$NET.13")
add_host front "$FRONT"
add_host store "$STORE"
for n in 1 2 3; do add_host "svc$n" "${SVC[$((n - 1))]}"; done
for host in sw front store svc1 svc2 svc3; do
  if ip -n "$(ns "$host")" route show default | grep -q .; then say "$host has a default route"; exit 1; fi
done
say "hosts: front $FRONT, svc1-3 ${SVC[*]}, store $STORE (namespaces $P-*, bridge br0 in $P-sw)"

wait_http() { # URL: polls from the front host for a 200, up to 60 s
  local deadline=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$deadline" ]; do
    in_ns front curl -fs -o /dev/null --max-time 5 "$1" && return 0
    sleep 0.1
  done
  say "$1 did not answer"; return 1
}

# The storage host: the HTTP origin over the corpus (read in place), and the S3 server with the
# S3 sources (made here from corpus files) and an empty bucket for the result store.
in_ns store "${BOUNDED[@]}" python3 -m http.server 8000 --bind "$STORE" -d "$CORPUS" >"$WORK/origin.log" 2>&1 &
PIDS+=($!)
"${BOUNDED[@]}" "$BIN" convert --resize "$S3_SIZE" "$CORPUS/jpeg-libjpeg-turbo/testorig.jpg" "$WORK/s3src/photo.jpg" >/dev/null
"${BOUNDED[@]}" "$BIN" convert --resize "$S3_SIZE" "$CORPUS/jpeg-libjpeg-turbo/testorig.jpg" "$WORK/s3src/photo.png" >/dev/null
"${BOUNDED[@]}" "$BIN" convert --resize "$S3_SIZE" "$CORPUS/sdwebimage/MonochromeTestImage.jpg" "$WORK/s3src/mono.png" >/dev/null
OBJECTS=(results)
for name in "${S3_SOURCES[@]}"; do OBJECTS+=("images/$name=$WORK/s3src/$name"); done
if [ "$BACKEND" = ceph ]; then
  # The gateway's daemons stay in the storage namespace; cleanup stops them and removes their directory.
  if ! in_ns store "${BOUNDED[@]}" bash "$ROOT/scripts/ceph-rgw.sh" start --bind "$STORE" --port 9000 "${OBJECTS[@]}" \
    >"$WORK/s3.env" 2>"$WORK/s3.err" </dev/null; then
    CEPH_DIR="$(sed -n 's/^CEPH_RGW_DIR=//p' "$WORK/s3.env")"
    say "Ceph's gateway did not start: $(tail -3 "$WORK/s3.err")"; exit 1
  fi
  CEPH_DIR="$(sed -n 's/^CEPH_RGW_DIR=//p' "$WORK/s3.env")"
  ACCESS_KEY="$(sed -n 's/^AWS_ACCESS_KEY_ID=//p' "$WORK/s3.env")"
  SECRET_KEY="$(sed -n 's/^AWS_SECRET_ACCESS_KEY=//p' "$WORK/s3.env")"
  S3_NAME="Ceph RGW (one monitor, one memstore OSD, $CEPH_DIR)"
else
  in_ns store "${BOUNDED[@]}" "$PYTHON_S3" "$ROOT/scripts/cluster-storage.py" "$STORE:9000" "$WORK/s3.ready" "$WORK/s3.log" \
    "${OBJECTS[@]}" >"$WORK/s3.out" 2>"$WORK/s3.err" &
  S3_PID=$!
  PIDS+=("$S3_PID")
  for _ in $(seq 1 600); do
    [ -s "$WORK/s3.ready" ] && break
    kill -0 "$S3_PID" 2>/dev/null || { say "moto did not start: $(tail -3 "$WORK/s3.err")"; exit 1; }
    sleep 0.1
  done
  [ -s "$WORK/s3.ready" ] || { say "moto did not report ready"; exit 1; }
  read -r ACCESS_KEY SECRET_KEY < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["accessKeyID"], d["secretAccessKey"])' "$WORK/s3.ready")
  S3_NAME="moto S3"
fi
wait_http "http://$STORE:8000/${HTTP_SOURCES[0]}"
say "storage host: $S3_NAME on $STORE:9000, origin on $STORE:8000"

# The service hosts. One signing key, one S3 endpoint, one result store for all three.
KEY="$(python3 -c 'import os; print(os.urandom(32).hex())')"
SALT="$(python3 -c 'import os; print(os.urandom(16).hex())')"
RESULT_STORE="${CLUSTER_HOSTS_RESULT_STORE:-s3://results/cluster}"
[ "$RESULT_STORE" = "s3://results/cluster" ] || say "result store $RESULT_STORE instead of the storage host's bucket: not a cluster of hosts"
start_service() { # N: starts `webimage serve` on host svcN; the service's pid goes to svcN.pid
  local n=$1 address="${SVC[$(($1 - 1))]}"
  in_ns "svc$n" env -i PATH="$PATH" HOME="$WORK/home" \
    AWS_ACCESS_KEY_ID="$ACCESS_KEY" AWS_SECRET_ACCESS_KEY="$SECRET_KEY" AWS_REGION=us-east-1 \
    "${BOUNDED[@]}" "$BIN" serve --bind "$address:8080" --key "$KEY" --salt "$SALT" \
    --use-s3 true --s3-endpoint "http://$STORE:9000" --s3-region us-east-1 --allow-address "$STORE/32" \
    --result-store "$RESULT_STORE" --result-store-timeout 5 \
    --auto-webp true --auto-avif true --download-timeout 60 --max-processing-time 120 \
    >>"$WORK/svc$n.out" 2>>"$WORK/svc$n.err" &
  local pid=$!
  PIDS+=("$pid")
  local deadline=$((SECONDS + 60))
  rm -f "$WORK/svc$n.pid"
  while [ "$SECONDS" -lt "$deadline" ]; do
    local child; child="$(pgrep -P "$pid" || true)"
    [ -n "$child" ] && { echo "$child" >"$WORK/svc$n.pid"; echo "$pid" >"$WORK/svc$n.timeout-pid"; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  if [ ! -s "$WORK/svc$n.pid" ] || ! wait_http "http://$address:8080/health"; then
    if grep -q "S3 result store" "$WORK/svc$n.err"; then
      refuse "this webimage has no S3 result store: $(grep "S3 result store" "$WORK/svc$n.err" | tail -1)"
    fi
    say "svc$n did not start: $(tail -3 "$WORK/svc$n.err")"; exit 1
  fi
}
for n in 1 2 3; do start_service "$n"; done
say "service hosts up: webimage serve on ${SVC[*]} (port 8080), result store $RESULT_STORE"

# The front: nginx from the template, upstreams on the service hosts, no cache of its own, and
# no time limit on retries (a request svc2 had already received when its link went down is
# retried after proxy_read_timeout instead of failing; scripts/cluster-nginx-conf.py).
UPSTREAMS=""
for address in "${SVC[@]}"; do UPSTREAMS+="        server $address:8080 max_fails=1 fail_timeout=3s;"$'\n'; done
python3 "$ROOT/scripts/cluster-nginx-conf.py" "$ROOT/deploy/nginx/nginx.conf" "$WORK/nginx/nginx.conf" \
  "$FRONT:8080" "$UPSTREAMS" "user root;" --no-cache --retry-silent-hosts
NGINX_ARGS=(-p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/logs/error.log" -g 'daemon off;')
in_ns front "$NGINX" -t -q "${NGINX_ARGS[@]}"
in_ns front "${BOUNDED[@]}" "$NGINX" "${NGINX_ARGS[@]}" &
PIDS+=($!)
wait_http "http://$FRONT:8080/health"
say "front: nginx on $FRONT:8080"

metric_sum() { # HOST PREFIX: the sum of the samples of svcN's /metrics whose line starts with PREFIX
  local address="${SVC[$((${1#svc} - 1))]}"
  { in_ns front curl -fs --max-time 10 "http://$address:8080/metrics" || true; } |
    awk -v p="$2" 'index($0, p) == 1 { s += $NF } END { printf "%d\n", s }'
}
RENDERS=0; STORE_HITS=0; WRITES=0; DROPPED=0; STORE_ERRORS=0
count_host() { # HOST: adds its counters to the totals
  RENDERS=$((RENDERS + $(metric_sum "$1" webimage_renders_total)))
  STORE_HITS=$((STORE_HITS + $(metric_sum "$1" webimage_result_store_hits_total)))
  WRITES=$((WRITES + $(metric_sum "$1" webimage_result_store_writes_total)))
  DROPPED=$((DROPPED + $(metric_sum "$1" webimage_result_store_dropped_total)))
  STORE_ERRORS=$((STORE_ERRORS + $(metric_sum "$1" webimage_result_store_errors_total)))
}

# The URL set: http sources on the origin, s3:// sources on the S3 server, every size, three buckets.
SOURCES=()
for path in "${HTTP_SOURCES[@]}"; do SOURCES+=(--source "http://$STORE:8000/$path"); done
for name in "${S3_SOURCES[@]}"; do SOURCES+=(--source "s3://images/$name"); done
python3 "$ROOT/scripts/cluster-hosts-load.py" urls "$WORK/urls.txt" "$KEY" "$SALT" 27 "${SOURCES[@]}" --size "${SIZES[@]}"
URL_COUNT="$(wc -l <"$WORK/urls.txt")"
LOAD=(python3 "$ROOT/scripts/cluster-hosts-load.py")

# The load, and svc2 taken away once KILL_AT requests have completed (an event, not a time).
say "load: $REQUESTS requests over $URL_COUNT URLs, at most $RATE/s and $CONCURRENCY at once; svc2 goes after $KILL_AT"
in_ns front "${BOUNDED[@]}" "${LOAD[@]}" load "http://$FRONT:8080" "$WORK/urls.txt" "$REQUESTS" "$CONCURRENCY" \
  "$WORK/results.txt" "$RATE" "$KILL_AT" "$WORK/kill-now" "$WORK/resume" &
LOAD_PID=$!
PIDS+=("$LOAD_PID")
while [ ! -e "$WORK/kill-now" ] && kill -0 "$LOAD_PID" 2>/dev/null; do sleep 0.05; done
[ -e "$WORK/kill-now" ] || { say "the load ended before request $KILL_AT"; exit 1; }
count_host svc2  # its counters die with it
SVC2_NS="$(ns svc2)"
for pid in $(ip netns pids "$SVC2_NS"); do kill -9 "$pid" 2>/dev/null || true; done
for _ in $(seq 1 200); do [ -z "$(ip netns pids "$SVC2_NS")" ] && break; sleep 0.05; done
[ -z "$(ip netns pids "$SVC2_NS")" ] || { say "svc2's processes survived SIGKILL"; exit 1; }
ip -n "$SVC2_NS" link set eth0 down
wait "$(cat "$WORK/svc2.timeout-pid")" 2>/dev/null || true
say "svc2 taken away after $(cat "$WORK/kill-now" | tr -d '\n') requests: every process SIGKILLed, link down"
touch "$WORK/resume"  # the load held new requests from the event to here
wait "$LOAD_PID"
RETRIED="$(grep -c 'upstream=[^ ]*, ' "$WORK/nginx/logs/access.log" || true)"
REFUSED="$(grep -c 'Connection refused) while connecting to upstream' "$WORK/nginx/logs/error.log" || true)"
TIMEDOUT="$(grep -c 'timed out) while connecting to upstream' "$WORK/nginx/logs/error.log" || true)"
say "load done; nginx retried $RETRIED requests on another host (connects to svc2 refused: $REFUSED, timed out: $TIMEDOUT)"

# Restart every service host: svc1 and svc3 stop gracefully (their queued store writes are
# written), svc2 gets its link back; then three fresh processes with empty memory caches.
count_host svc1
count_host svc3
for n in 1 3; do
  kill -TERM "$(cat "$WORK/svc$n.pid")"
  timeout_pid="$(cat "$WORK/svc$n.timeout-pid")"
  for _ in $(seq 1 1200); do kill -0 "$timeout_pid" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$timeout_pid" 2>/dev/null; then say "svc$n did not stop within 60 s of SIGTERM"; exit 1; fi
  wait "$timeout_pid" 2>/dev/null || true
done
ip -n "$SVC2_NS" link set eth0 up
for n in 1 2 3; do start_service "$n"; done
say "every service host restarted: fresh processes on ${SVC[*]}"

# Replay what was answered before, one request per URL and format bucket.
"${LOAD[@]}" rendered "$WORK/results.txt" "$WORK/replay.txt"
REPLAY="$(wc -l <"$WORK/replay.txt")"
in_ns front "${BOUNDED[@]}" "${LOAD[@]}" load "http://$FRONT:8080" "$WORK/replay.txt" "$REPLAY" 4 "$WORK/results.txt" 0 &
REPLAY_PID=$!
PIDS+=("$REPLAY_PID")
wait "$REPLAY_PID"
RENDERS_BEFORE=$RENDERS
for n in 1 2 3; do count_host "svc$n"; done
RERENDERS=$((RENDERS - RENDERS_BEFORE))
say "replayed $REPLAY URLs; result store: $WRITES writes, $DROPPED dropped, $STORE_ERRORS errors"

read -r TOTAL ERRORS < <(awk -F'\t' '{ n++ } $1 !~ /^2/ { e++ } END { printf "%d %d\n", n, e }' "$WORK/results.txt")
echo "cluster-hosts: backend=$BACKEND requests=$TOTAL errors=$ERRORS renders=$RENDERS rerenders_after_restart=$RERENDERS store_hits=$STORE_HITS"
[ "$ERRORS" -eq 0 ] && [ "$RERENDERS" -eq 0 ]
