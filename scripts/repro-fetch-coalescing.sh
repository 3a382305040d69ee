#!/usr/bin/env bash
# Reproduction of issue #13 item 7 (SPEC D-3): `webimage fetch` of one URL listed 100 times
# among 60 others, shuffled, against a real nginx on loopback; prints how many GETs nginx logged
# per URL and fails when any URL was requested more than once.
#
#   bash scripts/repro-fetch-coalescing.sh [RUNS]      (WEBIMAGE=path/to/webimage to pick a build)
#
# Installs the Debian package nginx when missing (root or sudo). nginx runs in the foreground
# as a child of this script, listening on 127.0.0.1 only, with its own prefix, configuration and
# logs in a temporary directory that is removed at the end.
set -euo pipefail
RUNS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WEBIMAGE=${WEBIMAGE:-$ROOT/.build/debug/webimage}
CORPUS=${CORPUS:-/work/shared/corpus}

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  EXTRA_PACKAGES="nginx" bash "$ROOT/scripts/setup.sh"
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$WEBIMAGE" ] || { echo "no webimage binary at $WEBIMAGE (make build)" >&2; exit 2; }

TMP=$(mktemp -d)
NGINX_PID=""
cleanup() {
  if [ -n "$NGINX_PID" ]; then kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$TMP/www" "$TMP/logs" "$TMP/cache"
# 61 distinct JPEGs: the hot one and 60 others (copies of corpus photos under distinct names).
mapfile -t photos < <(find "$CORPUS" -name '*.jpg' -size +8k -not -path '*malformed*' -not -path '*fuzz*' -not -name '*12.jpg' | sort | head -20)
# 12-bit JPEGs are excluded: they are not decodable (a failure, not a download, in the summary).
[ ${#photos[@]} -gt 0 ] || { echo "no JPEGs under $CORPUS" >&2; exit 2; }
HOT=${HOT:-$CORPUS/sdwebimage/TestImageLarge.jpg}
[ -f "$HOT" ] || HOT=${photos[0]}
cp "$HOT" "$TMP/www/hot.jpg"
for i in $(seq 1 60); do cp "${photos[$((i % ${#photos[@]}))]}" "$TMP/www/other-$i.jpg"; done

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$TMP/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $TMP/nginx.pid;
error_log $TMP/logs/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  log_format counted '\$connection \$connection_requests \$request_method \$uri \$status \$http_range';
  client_body_temp_path $TMP/body;
  proxy_temp_path $TMP/proxy;
  fastcgi_temp_path $TMP/fastcgi;
  uwsgi_temp_path $TMP/uwsgi;
  scgi_temp_path $TMP/scgi;
  types { image/jpeg jpg; }
  keepalive_requests 1000;
  server {
    listen 127.0.0.1:$PORT;
    root $TMP/www;
    access_log $TMP/logs/access.log counted;
  }
}
CONF
"$NGINX" -p "$TMP" -c "$TMP/nginx.conf" &
NGINX_PID=$!
for _ in $(seq 1 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1',$PORT),1)" 2>/dev/null && break
  sleep 0.1
done

failed=0
for run in $(seq 1 "$RUNS"); do
  : > "$TMP/logs/access.log"
  rm -rf "$TMP/cache"; mkdir -p "$TMP/cache"
  urls=()
  for _ in $(seq 1 100); do urls+=("http://127.0.0.1:$PORT/hot.jpg"); done
  for i in $(seq 1 60); do urls+=("http://127.0.0.1:$PORT/other-$i.jpg"); done
  mapfile -t shuffled < <(printf '%s\n' "${urls[@]}" | python3 -c "import random,sys; l=sys.stdin.read().split(); random.Random($run).shuffle(l); print('\n'.join(l))")
  summary=$("$WEBIMAGE" fetch --cache-dir "$TMP/cache" --json "${shuffled[@]}" 2>/dev/null | tail -1 || true)
  # nginx writes the log line when the response ends; give it the moment it needs.
  sleep 0.2
  hot=$(grep -c ' /hot.jpg ' "$TMP/logs/access.log" || true)
  repeated=$(awk '{print $4}' "$TMP/logs/access.log" | sort | uniq -d | wc -l)
  echo "run $run: GET /hot.jpg x$hot; URLs requested more than once: $repeated; webimage: $summary"
  if [ "$hot" -ne 1 ] || [ "$repeated" -ne 0 ]; then
    failed=1
    grep ' /hot.jpg ' "$TMP/logs/access.log" | sed 's/^/    nginx: /'
  fi
done
exit $failed
