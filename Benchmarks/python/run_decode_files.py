"""Full-decode timings of given files: swift-web-image vs the C library called directly vs
libvips, interleaved, in one run (Pillow 9.4 reads none of AVIF, HEIF and JPEG XL without plugins).

usage: run_decode_files.py BENCH C_BENCH ITERATIONS ROUNDS FORMAT:PATH...
Each round runs the three once each (ITERATIONS timed decodes after a warm-up, median), in an
order rotated every round; each figure is the lowest of its round medians. Wall clock and
process CPU are kept separately; `same px` says whether ours and the C floor produced
identical pixels (FNV-1a of the RGBA output).
"""
import sys

from harness import run

bench, c_bench, iterations, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
inputs = [arg.split(":", 1) for arg in sys.argv[5:]]
peers = [sys.executable, "Benchmarks/python/peers.py"]


print("| file | ours ms (wall / CPU) | C ms | libvips ms | ours ÷ C (CPU) | libvips ÷ ours (CPU) | same px |")
print("|---|---|---|---|---|---|---|")
for fmt, path in inputs:
    contenders = {
        "ours": [bench, "decode", path, iterations, "1"],
        "c": [c_bench, fmt, path, iterations, "1"],
        "vips": peers + ["vips", fmt, path, iterations, "1"],
    }
    best, hashes = {}, {}
    names = list(contenders)
    for r in range(rounds):
        for name in names[r % 3:] + names[: r % 3]:
            result = run(contenders[name])
            if result is None:
                continue
            wall, cpu, fnv = result
            old = best.get(name)
            best[name] = (min(wall, old[0]), min(cpu, old[1])) if old else (wall, cpu)
            if fnv:
                hashes[name] = fnv
    fmt_ms = lambda name: "%.1f / %.1f" % best[name] if name in best else "failed"
    ratio = lambda a, b: "%.2f" % (best[a][1] / best[b][1]) if a in best and b in best else "—"
    same = "yes" if hashes.get("ours") and hashes.get("ours") == hashes.get("c") else "no"
    name = path.rsplit("/", 1)[-1]
    print(f"| {name} | {fmt_ms('ours')} | {fmt_ms('c')} | {fmt_ms('vips')} | {ratio('ours', 'c')} | {ratio('vips', 'ours')} | {same} |")
