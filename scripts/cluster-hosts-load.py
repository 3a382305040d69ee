#!/usr/bin/env python3
"""URLs and bounded HTTP load for `make cluster-hosts` (scripts/cluster-hosts.sh).

    cluster-hosts-load.py urls OUT KEY_HEX SALT_HEX SEED --source URL... --size N...
        Writes one `ACCEPT<TAB>PATH` line per source x size x Accept spelling, in a fixed shuffled
        order; every path is signed (imgproxy's base64url(HMAC-SHA256(key, salt + path))).
    cluster-hosts-load.py load BASE_URL URLS COUNT CONCURRENCY RESULTS RATE [EVENT_AT EVENT_FILE [RESUME_FILE]]
        COUNT GETs at CONCURRENCY, request i using line i mod len (so the URL set is passed over
        again and again), request i starting no earlier than i / RATE seconds after the first
        (RATE 0: as fast as the answers come), so the load lasts about COUNT / RATE seconds.
        Appends `STATUS<TAB>LATENCY_MS<TAB>ACCEPT<TAB>PATH` per request to RESULTS (status 0 =
        transport error or timeout). With EVENT_FILE, that file is created once EVENT_AT
        requests have completed, and the load goes on. With RESUME_FILE too, no request starts
        after the event until RESUME_FILE exists (requests already started go on), so at most
        CONCURRENCY requests are under way between the event and the resume; after 300 s
        without it the load goes on anyway.
    cluster-hosts-load.py rendered RESULTS OUT
        The URLs answered 200 so far, one line per path and format bucket (what nginx's map
        makes of Accept: avif, webp, other), for the replay after the restart.
"""
import base64
import hashlib
import hmac
import os
import http.client
import random
import sys
import threading
import time
import urllib.parse

ACCEPTS = ["image/avif,image/webp,*/*", "image/webp,*/*", "*/*"]


def bucket(accept):
    """The format bucket of nginx's `map $http_accept $webimage_format` (avif before webp)."""
    lowered = accept.lower()
    return "avif" if "image/avif" in lowered else "webp" if "image/webp" in lowered else "other"


def sign(key, salt, path):
    digest = hmac.new(key, salt + path.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def urls(arguments):
    out, key, salt, seed = arguments[:4]
    key, salt = bytes.fromhex(key), bytes.fromhex(salt)
    sources, sizes, current = [], [], None
    for word in arguments[4:]:
        if word in ("--source", "--size"):
            current = sources if word == "--source" else sizes
        elif current is None:
            sys.exit(f"cluster-hosts-load: unexpected argument {word}")
        else:
            current.append(word)
    lines = []
    for source in sources:
        for size in sizes:
            path = f"/rs:fit:{size}:{size}/plain/{source}"
            for accept in ACCEPTS:
                lines.append(f"{accept}\t/{sign(key, salt, path)}{path}")
    random.Random(int(seed)).shuffle(lines)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def load(arguments):
    base, urls_file, count, concurrency, results_file, rate = arguments[:6]
    count, concurrency, rate = int(count), int(concurrency), float(rate)
    event_at = int(arguments[6]) if len(arguments) > 7 else -1
    event_file = arguments[7] if len(arguments) > 7 else None
    resume_file = arguments[8] if len(arguments) > 8 else None
    target = urllib.parse.urlsplit(base)
    with open(urls_file, encoding="utf-8") as f:
        lines = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
    lock = threading.Lock()
    state = {"next": 0, "done": 0, "held": False, "held_until": 0.0}
    results = []
    first = time.monotonic()

    def worker():
        conn = None
        while True:
            with lock:
                waiting = state["held"] and not os.path.exists(resume_file) and time.monotonic() < state["held_until"]
                if not waiting:
                    if state["next"] >= count:
                        break
                    i = state["next"]
                    state["next"] += 1
            if waiting:
                time.sleep(0.02)
                continue
            accept, path = lines[i % len(lines)]
            if rate > 0:
                delay = first + i / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            start = time.monotonic()
            status = 0
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
                conn.request("GET", path, headers={"Accept": accept})
                response = conn.getresponse()
                response.read()
                status = response.status
            except Exception:
                if conn is not None:
                    conn.close()
                conn = None
            elapsed = (time.monotonic() - start) * 1000
            with lock:
                results.append(f"{status}\t{elapsed:.1f}\t{accept}\t{path}")
                state["done"] += 1
                fire = state["done"] == event_at
                if fire and resume_file:
                    state["held"] = True
                    state["held_until"] = time.monotonic() + 300
            if fire and event_file:
                with open(event_file, "w", encoding="utf-8") as f:
                    f.write(f"{event_at}\n")

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open(results_file, "a", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in results))


def rendered(arguments):
    results_file, out = arguments[:2]
    seen = {}
    with open(results_file, encoding="utf-8") as f:
        for line in f:
            status, _, accept, path = line.rstrip("\n").split("\t", 3)
            if status == "200":
                seen.setdefault((bucket(accept), path), accept)
    with open(out, "w", encoding="utf-8") as f:
        f.write("".join(f"{accept}\t{path}\n" for (_, path), accept in sorted(seen.items())))


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    commands = {"urls": urls, "load": load, "rendered": rendered}
    if command not in commands:
        sys.exit(__doc__)
    commands[command](sys.argv[2:])
