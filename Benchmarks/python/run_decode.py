"""Runs the four decoders of the decode benchmark interleaved and prints the tables.

usage: run_decode.py BENCH C_BENCH DATA_DIR ITERATIONS ROUNDS
Each round runs swift-web-image, the C floor, Pillow and libvips once each (ITERATIONS timed
decodes after a warm-up, median), in an order rotated every round; each contender's figure is
the lowest of its round medians, so a burst of load from another process on the shared machine
does not land on one contender only. Wall-clock and process-CPU medians are kept separately.
"""
import sys

from harness import run

bench, c_bench, data, iterations, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
peers = [sys.executable, "Benchmarks/python/peers.py"]
MP = 4032 * 3024 / 1e6  # source megapixels (MP/s counts source pixels, thumbnails too)


rows = []
for fmt, ext in (("jpeg", "jpg"), ("png", "png"), ("webp", "webp")):
    path = f"{data}/photo-12mp.{ext}"
    for denom in ("1", "8"):
        contenders = {
            "ours": [bench, "decode", path, iterations, denom],
            "c": [c_bench, fmt, path, iterations, denom],
            "pillow": peers + ["pillow", fmt, path, iterations, denom],
            "vips": peers + ["vips", fmt, path, iterations, denom],
        }
        best = {name: None for name in contenders}
        hashes = {}
        names = list(contenders)
        for r in range(rounds):
            for name in names[r % 4:] + names[: r % 4]:
                if r > 0 and best[name] is None:
                    continue  # failed in round 0 (no coder for the format in this build)
                result = run(contenders[name])
                if result is None:
                    continue
                wall, cpu, fnv = result
                old = best[name]
                best[name] = (min(wall, old[0]), min(cpu, old[1])) if old else (wall, cpu)
                if fnv:
                    hashes[name] = fnv
        same = "yes" if hashes.get("ours") and hashes.get("ours") == hashes.get("c") else "no"
        rows.append((fmt, "full" if denom == "1" else f"thumb 1/{denom}", best, same))

for index, title in ((0, "wall clock"), (1, "process CPU time")):
    print(f"\n{title} (best of {rounds} round medians, {iterations} decodes each)\n")
    print("| input | mode | swift-web-image ms | C library ms | Pillow ms | libvips ms | MP/s (ours) "
          "| ours vs C (C/ours) | vs Pillow | vs libvips | same px |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for fmt, mode, best, same in rows:
        t = {k: (v[index] if v else None) for k, v in best.items()}
        cell = lambda v: f"{v:.1f}" if v is not None else "n/a"
        ratio = lambda other: f"{t[other] / t['ours']:.2f}" if t["ours"] and t[other] else "n/a"
        mps = f"{MP / t['ours'] * 1000:.0f}" if t["ours"] else "n/a"
        print(f"| {fmt} 12 MP | {mode} | {cell(t['ours'])} | {cell(t['c'])} | {cell(t['pillow'])} | "
              f"{cell(t['vips'])} | {mps} | {ratio('c')} | {ratio('pillow')} | {ratio('vips')} | {same} |")
