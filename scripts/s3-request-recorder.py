#!/usr/bin/env python3
"""A recording relay in front of an S3 endpoint, for the S3 tests against Ceph's RADOS Gateway:
it listens on 127.0.0.1 on a free port, passes every byte both ways unchanged, and appends each
request's "METHOD target" line to LOG_FILE before the endpoint sees the request (so when a client
has its answer, the line is there; moto's server in scripts/moto-s3.py logs the same way).

The gateway's own logs are written after the answer and by a thread of their own, so they cannot
say which requests a client has had answered. The relay changes nothing a signature covers.

It writes {"port": N} to READY_FILE (renamed into place) and serves until its standard input
closes; stopping it makes the endpoint unreachable, as stopping moto does.

    python3 scripts/s3-request-recorder.py UPSTREAM_HOST:PORT READY_FILE LOG_FILE
"""
import json
import os
import socket
import sys
import threading

HEAD_LIMIT = 64 * 1024


class Log:
    def __init__(self, path):
        self.lock = threading.Lock()
        self.file = open(path, "a", encoding="utf-8")

    def write(self, line):
        with self.lock:
            self.file.write(line + "\n")
            self.file.flush()


def pump(source, destination):
    """Copies bytes until the source ends, then ends the destination's writing side."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            destination.sendall(data)
    except OSError:
        pass
    finally:
        try:
            destination.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def requests_upstream(client, upstream, log):
    """Copies the client's requests to the endpoint, logging each request line before its head is
    sent. Bodies are skipped by Content-Length or by their chunks; a head it cannot frame ends the
    logging (the bytes still pass)."""
    buffer = b""
    framed = True
    try:
        while True:
            if framed:
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    if len(buffer) > HEAD_LIMIT:
                        framed = False
                        continue
                    data = client.recv(65536)
                    if not data:
                        break
                    buffer += data
                    continue
                head = buffer[: end + 4]
                lines = head.decode("latin-1").split("\r\n")
                method, _, rest = lines[0].partition(" ")
                target = rest.rpartition(" ")[0] or rest
                log.write(f"{method} {target}")
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                upstream.sendall(head)
                buffer = buffer[end + 4 :]
                if "chunked" in headers.get("transfer-encoding", "").lower():
                    buffer = relay_chunked(client, upstream, buffer)
                    if buffer is None:
                        break
                else:
                    remaining = int(headers.get("content-length", "0") or "0")
                    while remaining > 0:
                        if not buffer:
                            buffer = client.recv(min(65536, remaining))
                            if not buffer:
                                return
                        part, buffer = buffer[:remaining], buffer[remaining:]
                        upstream.sendall(part)
                        remaining -= len(part)
            else:
                if buffer:
                    upstream.sendall(buffer)
                    buffer = b""
                data = client.recv(65536)
                if not data:
                    break
                upstream.sendall(data)
    except (OSError, ValueError):
        pass
    finally:
        try:
            upstream.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def relay_chunked(client, upstream, buffer):
    """Sends one chunked body; returns what follows it, or None when the client ended."""
    while True:
        end = buffer.find(b"\r\n")
        while end < 0:
            data = client.recv(65536)
            if not data:
                return None
            buffer += data
            end = buffer.find(b"\r\n")
        size = int(buffer[:end].split(b";")[0], 16)
        needed = end + 2 + size + 2
        if size == 0:
            # The last chunk, then trailers up to an empty line.
            needed = buffer.find(b"\r\n\r\n", end) + 4 if buffer.find(b"\r\n\r\n", end) >= 0 else -1
            while needed < 0:
                data = client.recv(65536)
                if not data:
                    return None
                buffer += data
                found = buffer.find(b"\r\n\r\n", end)
                needed = found + 4 if found >= 0 else -1
        while len(buffer) < needed:
            data = client.recv(65536)
            if not data:
                return None
            buffer += data
        upstream.sendall(buffer[:needed])
        buffer = buffer[needed:]
        if size == 0:
            return buffer


def serve(listener, upstream_address, log):
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        try:
            upstream = socket.create_connection(upstream_address, timeout=30)
            upstream.settimeout(None)
        except OSError:
            client.close()
            continue
        for sock in (client, upstream):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=requests_upstream, args=(client, upstream, log), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()


def main():
    upstream, ready_path, log_path = sys.argv[1:4]
    host, _, port = upstream.rpartition(":")
    log = Log(log_path)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    threading.Thread(target=serve, args=(listener, (host, int(port)), log), daemon=True).start()
    with open(ready_path + ".tmp", "w", encoding="utf-8") as f:
        f.write(json.dumps({"port": listener.getsockname()[1]}) + "\n")
    os.rename(ready_path + ".tmp", ready_path)
    try:
        sys.stdin.read()
    finally:
        listener.close()


if __name__ == "__main__":
    main()
