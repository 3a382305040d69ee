"""CPU per request of several `webimage serve` binaries (or settings) on the service benchmark's
2 MP JPEG task at concurrency 1, interleaved: every binary serves the same loopback origin
(Benchmarks/python/service_origin.py: a strong ETag, persistent connections) and the binaries
take turns, REQUESTS sequential requests each (a new connection per request, as
`make bench-service` sends them), for ROUNDS rounds whose order alternates; the medians of the
rounds' CPU-ms per request (the server's utime+stime from /proc) are printed with each one's
ratio to the first (docs/PERFORMANCE.md, "The request line against its floor").

  python3 scripts/bench-service-ab.py REQUESTS ROUNDS NAME=BINARY[:VAR=VALUE,...] ...

e.g. `python3 scripts/bench-service-ab.py 20 25 base=/tmp/webimage-main new=.build/release/webimage`.
VAR=VALUE pairs go into that server's environment. Needs Pillow (the sources come from
Benchmarks/python/service_sources.py).
"""
import http.client
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ms(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICKS


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    requests, rounds = int(sys.argv[1]), int(sys.argv[2])
    variants = []
    for argument in sys.argv[3:]:
        name, rest = argument.split("=", 1)
        binary, _, settings = rest.partition(":")
        env = dict(os.environ)
        for pair in filter(None, settings.split(",")):
            key, value = pair.split("=", 1)
            env[key] = value
        variants.append((name, binary, env))
    work = tempfile.mkdtemp(prefix="bench-service-ab.")
    processes = []
    try:
        sources = os.path.join(work, "origin")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "python", "service_sources.py"), sources],
                       check=True, capture_output=True)
        origin_port = free_port()
        processes.append(subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "Benchmarks", "python", "service_origin.py"), str(origin_port), sources],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", origin_port), 1).close()
                break
            except OSError:
                time.sleep(0.05)
        servers = []
        for name, binary, env in variants:
            server = subprocess.Popen([binary, "serve", "--bind", "127.0.0.1:0", "--allow-network", "loopback"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
            processes.append(server)
            servers.append((name, server, int(server.stdout.readline().strip().rsplit(":", 1)[1])))
        counter = iter(range(1, 1 << 30))

        def get(port):
            path = f"/insecure/rs:fit:512:512/q:80/f:jpg/cb:{next(counter)}/plain/http://127.0.0.1:{origin_port}/photo.jpg"
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status != 200:
                raise RuntimeError(f"HTTP {response.status}")

        for _, _, port in servers:
            for _ in range(8):
                get(port)
        samples = {name: [] for name, _, _ in servers}
        start_load = os.getloadavg()[0]
        for r in range(rounds):
            for name, server, port in (servers if r % 2 == 0 else servers[::-1]):
                before = cpu_ms(server.pid)
                for _ in range(requests):
                    get(port)
                samples[name].append((cpu_ms(server.pid) - before) / requests)
        print(f"{requests} requests × {rounds} rounds per binary, interleaved; load average "
              f"{start_load:.1f} → {os.getloadavg()[0]:.1f}")
        first = statistics.median(samples[servers[0][0]])
        for name, values in samples.items():
            median = statistics.median(values)
            print(f"{name}: {median:.2f} CPU-ms per request ({median / first:.3f}× {servers[0][0]}), "
                  f"rounds {min(values):.2f}–{max(values):.2f}")
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
