"""The service benchmarks' loopback origin: Python's `http.server` serving DIR on PORT
(threaded, `Last-Modified`, `If-Modified-Since`) the way nginx, S3 and CDNs answer images:
- a strong `ETag` per file, in nginx's form (`"<mtime hex>-<size hex>"`); the service takes it,
  with the source URL, as the source's identity instead of hashing the bytes (docs/BEHAVIOUR.md,
  V-7). `--no-etag`: none, so every fetch hashes the source (SHA-256);
- HTTP/1.1 with persistent connections; `--close`: HTTP/1.0, one connection per request (what
  `python3 -m http.server` does).

  python3 service_origin.py PORT DIR [--no-etag] [--close]
"""
import functools
import http.server
import os
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    etag = True

    def end_headers(self):
        if self.etag and getattr(self, "_status", 0) == 200:
            path = self.translate_path(self.path)
            if os.path.isfile(path):
                st = os.stat(path)
                self.send_header("ETag", f'"{int(st.st_mtime):x}-{st.st_size:x}"')
        super().end_headers()

    def send_response(self, code, message=None):
        self._status = code
        super().send_response(code, message)

    def log_message(self, *args):
        pass


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    port, directory = int(args[0]), args[1]
    Handler.etag = "--no-etag" not in sys.argv
    if "--close" not in sys.argv:
        Handler.protocol_version = "HTTP/1.1"
    handler = functools.partial(Handler, directory=directory)
    http.server.ThreadingHTTPServer(("127.0.0.1", port), handler).serve_forever()


if __name__ == "__main__":
    main()
