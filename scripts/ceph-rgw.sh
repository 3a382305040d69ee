#!/usr/bin/env bash
# A throwaway single-node Ceph with its RADOS Gateway (S3), from Debian 12's packages
# (`CEPH=1 bash scripts/setup.sh` installs them; `make setup-ceph` does both): one monitor, one
# OSD on `memstore` (RAM) and `radosgw` (beast frontend), no mgr and no systemd, every daemon
# started by hand in a temporary directory that `stop` removes. Auth between the daemons is off
# (`auth * required = none`); S3 clients sign with the user's keys (SigV4 and SigV2 both checked).
# Why each setting of ceph.conf is there: the comment above it, in start().
#
#   scripts/ceph-rgw.sh start [--bind ADDRESS] [--port PORT] [--memory MiB] [OBJECT...]
#       starts it (the gateway on ADDRESS:PORT, by default 127.0.0.1 and a free port; the monitor
#       and the OSD on ADDRESS too; MiB of RAM for the OSD's store, 1024 by default), makes the S3
#       user and each OBJECT — BUCKET (an empty bucket) or BUCKET/KEY=FILE (split at the last `=`) — and prints the
#       settings (below). Exit status 0 once the gateway answers S3.
#   scripts/ceph-rgw.sh run [start options] [--ready FILE]
#       start, write the settings to FILE (renamed into place) and to standard output, serve
#       until standard input closes or SIGTERM/SIGINT comes, then stop. A child of a test or of
#       make cluster-hosts: it never outlives the process holding its standard input.
#   scripts/ceph-rgw.sh env DIR      prints the settings again
#   scripts/ceph-rgw.sh user DIR TENANT [OBJECT...]
#       another user, in tenant TENANT (its buckets are a namespace of their own: a request from
#       it naming bucket B reaches TENANT's B), with its objects; prints its two AWS_* keys
#   scripts/ceph-rgw.sh stop DIR     SIGKILLs its daemons (by their pid files) and removes DIR
#
# The settings, as shell assignments:
#   CEPH_RGW_DIR=/tmp/webimage-ceph.XXXXXX
#   CEPH_RGW_ENDPOINT=http://127.0.0.1:PORT
#   AWS_ACCESS_KEY_ID=...
#   AWS_SECRET_ACCESS_KEY=...
#   AWS_REGION=us-east-1
# Exit status 3 with `ceph-rgw: unavailable: REASON` on standard error when the packages are
# missing (tests then skip the gateway's variants).
set -euo pipefail

say() { echo "ceph-rgw: $*" >&2; }

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2; }

free_port() { # ADDRESS: a port the kernel gives for ADDRESS:0 (released at once)
  python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' "$1"
}

# curl signing with SigV4 (curl's --aws-sigv4): ENDPOINT ACCESS SECRET CURL-ARGUMENTS...
s3_curl() {
  local endpoint=$1 access=$2 secret=$3; shift 3
  curl -fsS --max-time 30 --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

print_env() { # DIR
  cat "$1/env"
}

stop_dir() { # DIR: every daemon of DIR SIGKILLed (the data is throwaway), DIR removed
  local dir=$1 pidfile pid
  [ -d "$dir" ] || return 0
  [ -f "$dir/ceph.conf" ] || { say "refusing to remove $dir: not a ceph-rgw directory"; return 1; }
  for pidfile in "$dir"/run/*.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile" 2>/dev/null || true)"
    [[ "$pid" =~ ^[0-9]+$ ]] || continue
    # Only our daemons: a pid may have been reused since.
    case "$(cat "/proc/$pid/comm" 2>/dev/null || true)" in
      ceph-mon | ceph-osd | radosgw) ;;
      *) continue ;;
    esac
    grep -qF "$dir/ceph.conf" "/proc/$pid/cmdline" 2>/dev/null || continue
    kill -9 "$pid" 2>/dev/null || true
  done
  for pidfile in "$dir"/run/*.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile" 2>/dev/null || true)"
    [[ "$pid" =~ ^[0-9]+$ ]] || continue
    for _ in $(seq 1 100); do grep -qF "$dir/ceph.conf" "/proc/$pid/cmdline" 2>/dev/null || break; sleep 0.05; done
  done
  rm -rf "$dir"
}

start() { # [--bind A] [--port P] [--memory MiB] [OBJECT...]: sets DIR
  local bind=127.0.0.1 port="" memory=1024 objects=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --bind) bind=$2; shift 2 ;;
      --port) port=$2; shift 2 ;;
      --memory) memory=$2; shift 2 ;;
      -*) usage ;;
      *) objects+=("$1"); shift ;;
    esac
  done
  local tool
  for tool in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      say "unavailable: $tool not found (\`CEPH=1 bash scripts/setup.sh\` or \`make setup-ceph\` installs ceph-mon ceph-osd radosgw ceph-common)"
      exit 3
    fi
  done
  [ -n "$port" ] || port="$(free_port "$bind")"
  local mon_port; mon_port="$(free_port "$bind")"
  DIR="$(mktemp -d /tmp/webimage-ceph.XXXXXX)"
  mkdir -p "$DIR/run" "$DIR/log" "$DIR/mon.a" "$DIR/osd.0" "$DIR/rgw"
  local fsid; fsid="$(cat /proc/sys/kernel/random/uuid)"
  # The settings that matter (each cost time to find):
  # - ms mon client mode = crc: with auth off, the gateway otherwise loops on an auth error (-13)
  #   against the monitor until `rgw init timeout` (300 s by default, 30 here, as is `client
  #   mount timeout`, so that a failure ends quickly).
  # - paxos propose interval = 0.01: the gateway makes ~10 pool changes at start-up, each of
  #   which otherwise waits for the monitor's 1 s batching (a 13-14 s start instead of ~2 s).
  # - rgw frontends ... tcp_nodelay=1: without it GETs stall ~40 ms (Nagle against delayed ACK).
  # - public addr and cluster addr: without `cluster addr` the OSD listens on 0.0.0.0.
  # - No mgr, so no PG autoscaler: 8 PGs per pool, autoscale off, one replica (the 32-PG
  #   default times the gateway's 8 pools exceeds the per-OSD PG limit).
  # - mon cluster log file, run dir, log file, admin socket: inside DIR, never /var/log/ceph or
  #   /var/run/ceph. mon data avail crit = 0: the monitor otherwise refuses a disk under 5 % free.
  # - memstore: the objects live in the OSD's RAM, at most `memstore device bytes`; a full store
  #   pauses writes rather than failing them, so keep it well over what a run writes.
  cat >"$DIR/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v2:$bind:$mon_port
mon initial members = a
public addr = $bind
cluster addr = $bind
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = true
ms mon client mode = crc
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
mon cluster log file = $DIR/log/cluster.log
keyring = $DIR/keyring
mon data = $DIR/mon.\$id
osd data = $DIR/osd.\$id
rgw data = $DIR/rgw
mon data avail crit = 0
mon data avail warn = 0
paxos propose interval = 0.01
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd objectstore = memstore
memstore device bytes = $((memory * 1024 * 1024))
osd crush chooseleaf type = 0
client mount timeout = 30
rgw init timeout = 30
rgw frontends = beast endpoint=$bind:$port tcp_nodelay=1
rgw dns name = $bind
EOF
  : >"$DIR/keyring"
  monmaptool --create --fsid "$fsid" --addv a "[v2:$bind:$mon_port]" "$DIR/monmap" >"$DIR/log/setup.log" 2>&1
  ceph-mon -c "$DIR/ceph.conf" -i a --mkfs --monmap "$DIR/monmap" >>"$DIR/log/setup.log" 2>&1
  # Every daemon's output goes to a file: they hold the caller's standard output otherwise.
  ceph-mon -c "$DIR/ceph.conf" -i a </dev/null >>"$DIR/log/daemons.log" 2>&1
  local osd_uuid; osd_uuid="$(cat /proc/sys/kernel/random/uuid)"
  local id; id="$(timeout 60 ceph -c "$DIR/ceph.conf" --connect-timeout 30 osd new "$osd_uuid" 2>>"$DIR/log/setup.log" </dev/null)"
  [ "$id" = 0 ] || { say "the monitor did not make osd.0 (got '$id'): $(tail -3 "$DIR/log/setup.log")"; return 1; }
  ceph-osd -c "$DIR/ceph.conf" -i 0 --mkfs --osd-uuid "$osd_uuid" </dev/null >>"$DIR/log/setup.log" 2>&1
  ceph-osd -c "$DIR/ceph.conf" -i 0 </dev/null >>"$DIR/log/daemons.log" 2>&1
  radosgw -c "$DIR/ceph.conf" -n client.rgw </dev/null >>"$DIR/log/daemons.log" 2>&1
  # The user (this also waits for the gateway's pools); its keys are random. A graceful stop
  # takes 5-7 s; the data is throwaway, so `stop` SIGKILLs.
  local access secret
  access="$(new_access_key)"; secret="$(new_secret_key)"
  timeout 60 radosgw-admin -c "$DIR/ceph.conf" -n client.admin user create --uid webimage --display-name webimage \
    --access-key "$access" --secret-key "$secret" </dev/null >>"$DIR/log/setup.log" 2>&1 ||
    { say "radosgw-admin user create failed: $(tail -3 "$DIR/log/setup.log")"; return 1; }
  local endpoint="http://$bind:$port"
  # Ready when the gateway answers S3 (an anonymous ListBuckets is answered, 200).
  local deadline=$((SECONDS + 60))
  until curl -fs -o /dev/null --max-time 2 "$endpoint/"; do
    if [ "$SECONDS" -ge "$deadline" ] || ! kill -0 "$(cat "$DIR/run/client.rgw.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
      say "the gateway did not answer on $endpoint: $(tail -3 "$DIR/log/client.rgw.log" 2>/dev/null)"; return 1
    fi
    sleep 0.05
  done
  cat >"$DIR/env" <<EOF
CEPH_RGW_DIR=$DIR
CEPH_RGW_ENDPOINT=$endpoint
AWS_ACCESS_KEY_ID=$access
AWS_SECRET_ACCESS_KEY=$secret
AWS_REGION=us-east-1
EOF
  fill "$endpoint" "$access" "$secret" "${objects[@]}" >>"$DIR/log/setup.log" 2>&1 ||
    { say "could not make the buckets and objects: $(tail -3 "$DIR/log/setup.log")"; return 1; }
}

# ENDPOINT ACCESS SECRET [BUCKET | BUCKET/KEY=FILE]...: makes each bucket (once) and uploads each
# file, signed with the given keys (curl's SigV4; keys percent-encoded here, sent as they are).
fill() {
  local endpoint=$1 access=$2 secret=$3; shift 3
  local made=" " argument target file bucket key path
  for argument in "$@"; do
    # The file is after the last `=` (a key may hold `=`, a file name here does not).
    target="${argument%=*}"; file=""
    [ "$target" = "$argument" ] || file="${argument##*=}"
    bucket="${target%%/*}"; key=""
    [ "$bucket" = "$target" ] || key="${target#*/}"
    if [[ "$made" != *" $bucket "* ]]; then
      s3_curl "$endpoint" "$access" "$secret" -X PUT "$endpoint/$bucket" -o /dev/null
      made+="$bucket "
    fi
    if [ -n "$key" ]; then
      path="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe="/~"))' "$key")"
      s3_curl "$endpoint" "$access" "$secret" --path-as-is -T "$file" "$endpoint/$bucket/$path" -o /dev/null
    fi
  done
}

# DIR TENANT [BUCKET | BUCKET/KEY=FILE]...: a user of its own in tenant TENANT (its buckets are a
# namespace of their own: a request naming bucket B reaches TENANT's B), with its buckets and
# objects; prints its keys.
tenant_user() {
  local dir=$1 tenant=$2; shift 2
  [[ "$tenant" =~ ^[a-z0-9_]{1,40}$ ]] || { say "a tenant is 1-40 of a-z, 0-9 and _: $tenant"; return 2; }
  local access secret endpoint
  access="$(new_access_key)"; secret="$(new_secret_key)"
  endpoint="$(sed -n 's/^CEPH_RGW_ENDPOINT=//p' "$dir/env")"
  timeout 60 radosgw-admin -c "$dir/ceph.conf" -n client.admin user create --tenant "$tenant" --uid webimage \
    --display-name "webimage $tenant" --access-key "$access" --secret-key "$secret" </dev/null >>"$dir/log/setup.log" 2>&1 ||
    { say "radosgw-admin user create --tenant $tenant failed: $(tail -3 "$dir/log/setup.log")"; return 1; }
  fill "$endpoint" "$access" "$secret" "$@" >>"$dir/log/setup.log" 2>&1 ||
    { say "could not make the buckets and objects of $tenant: $(tail -3 "$dir/log/setup.log")"; return 1; }
  printf 'AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\n' "$access" "$secret"
}

new_access_key() {
  python3 -c 'import secrets, string; print("".join(secrets.choice(string.ascii_uppercase + string.digits) for _ in range(20)))'
}

new_secret_key() {
  python3 -c 'import secrets; print(secrets.token_urlsafe(30)[:40])'
}

command="${1:-}"
[ $# -gt 0 ] && shift
case "$command" in
  start)
    DIR=""
    trap '[ -n "$DIR" ] && stop_dir "$DIR"' EXIT
    start "$@"
    trap - EXIT
    print_env "$DIR"
    ;;
  env)
    [ $# -eq 1 ] || usage
    print_env "$1"
    ;;
  user)
    [ $# -ge 2 ] || usage
    tenant_user "$@"
    ;;
  stop)
    [ $# -eq 1 ] || usage
    stop_dir "$1"
    ;;
  run)
    ready=""
    args=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --ready) ready=$2; shift 2 ;;
        *) args+=("$1"); shift ;;
      esac
    done
    DIR=""
    trap '[ -n "$DIR" ] && stop_dir "$DIR"' EXIT
    trap 'exit 143' TERM
    trap 'exit 130' INT
    start "${args[@]}"
    if [ -n "$ready" ]; then
      print_env "$DIR" >"$ready.tmp"
      mv "$ready.tmp" "$ready"
    fi
    print_env "$DIR"
    # Until standard input closes (read in the background, so that a signal is handled at once).
    cat <&0 >/dev/null &
    wait $! || true
    ;;
  *) usage ;;
esac
