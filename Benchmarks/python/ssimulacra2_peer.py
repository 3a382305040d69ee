#!/usr/bin/env python3
"""Our SSIMULACRA2 against the reference implementation on the same 512x512 pair, interleaved.

usage: ssimulacra2_peer.py BENCH ROUNDS OURS PEERS
  BENCH   the release webimage-bench binary
  ROUNDS  rounds; each runs `BENCH ssimulacra2 OURS DIR` (ours: its median CPU ms of a comparison
          and of one against a prepared reference, OURS of each), then PEERS calls of PyPI's
          ssimulacra2 0.3.0 `compute_ssimulacra2` on the pair the bench wrote to DIR

Run with scripts/quality-venv.sh's python (`make bench-ssimulacra2` does). Both contenders run on
one thread: numpy's and scipy's thread pools are held to one before they are imported. PyPI's
call reads the two PNGs itself (its API takes paths); reading them alone is timed too and
printed, so its share is visible. CPU time: ours CLOCK_THREAD_CPUTIME_ID inside the bench,
PyPI's time.thread_time() around each call. Prints ours as the median of its rounds' medians,
PyPI's as the median of all its calls.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[variable] = "1"

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
import ssimulacra2.ssimulacra2 as pypi  # noqa: E402

LINE = re.compile(r"ssimulacra2 512x512 (\w+): median_ms=([\d.]+) cpu_ms=([\d.]+)")
SCORES = re.compile(r"scores: plain=([-\d.]+)")


def ours(bench, iterations, folder):
    out = subprocess.run([bench, "ssimulacra2", str(iterations), folder], check=True, capture_output=True, text=True).stdout
    cpu = {m.group(1): float(m.group(3)) for m in LINE.finditer(out)}
    return cpu, float(SCORES.search(out).group(1))


def main():
    bench, rounds, iterations, peers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    with tempfile.TemporaryDirectory() as folder:
        ref, dist = os.path.join(folder, "ref.png"), os.path.join(folder, "dist.png")
        our_comparison, our_prepared, peer, peer_read = [], [], [], []
        our_score = peer_score = None
        for _ in range(rounds):
            cpu, our_score = ours(bench, iterations, folder)
            our_comparison.append(cpu["comparison"])
            our_prepared.append(cpu["prepared_comparison"])
            for _ in range(peers):
                start = time.thread_time()
                peer_score = pypi.compute_ssimulacra2(ref, dist)
                peer.append((time.thread_time() - start) * 1000)
                start = time.thread_time()
                for path in (ref, dist):
                    np.array(Image.open(path).convert("RGB"), dtype=np.float64)
                peer_read.append((time.thread_time() - start) * 1000)
    print(f"ours  (webimage-bench, medians of {rounds} rounds x {iterations}): comparison cpu_ms={statistics.median(our_comparison):.2f} "
          f"prepared_comparison cpu_ms={statistics.median(our_prepared):.2f} score={our_score:.4f}")
    print(f"pypi  ssimulacra2 0.3.0 ({rounds * peers} calls): comparison cpu_ms={statistics.median(peer):.2f} "
          f"(of which reading the two PNGs {statistics.median(peer_read):.2f}) score={peer_score:.4f}")
    print(f"ratio pypi/ours (comparison): {statistics.median(peer) / statistics.median(our_comparison):.1f}x; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
