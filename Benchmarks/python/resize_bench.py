"""Resize benchmark (SPEC T-3, `make bench-resize`): Lanczos3 on the same pixels, one thread,
CPU time per operation, contenders interleaved round by round.

Contenders: our Resampler with its machine-width kernels (AVX2 here) and forced to the portable
passes (WEBIMAGE_RESAMPLE_KERNELS=portable); Pillow-SIMD (built with AVX2 by
scripts/resize-venv.sh) `Image.resize`; libvips (pyvips-binary) `resize(kernel="lanczos3",
gap=0)`, i.e. the whole Lanczos3 reduce without the box pre-shrink, the same job. RGBA inputs
carry real transparency: Pillow premultiplies them in `resize`, libvips is asked to
(`premultiply` … `unpremultiply`, as sharp does), and ours always works premultiplied.

Usage: python resize_bench.py <webimage-resize-bench> <corpus photo> <work dir> <rounds> <ops per round>
"""
import os
import statistics
import subprocess
import sys
import time

from PIL import Image
import PIL
import pyvips

bench, photo, work, rounds, ops = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
os.makedirs(work, exist_ok=True)
pyvips.cache_set_max(0)
pyvips.concurrency_set(1)

CASES = [("12 MP → 400×300", (4000, 3000), (400, 300)), ("2 MP → 512 px", (1732, 1155), (512, 341))]


def inputs(size):
    """The photo at `size` (RGB), and the same with an alpha channel: a soft vignette that is
    fully transparent in the corners and opaque in the middle."""
    rgb = Image.open(photo).convert("RGB").resize(size, Image.Resampling.LANCZOS)
    w, h = size
    mask = Image.radial_gradient("L").resize(size, Image.Resampling.BILINEAR)
    alpha = mask.point(lambda v: max(0, min(255, 400 - 2 * v)))
    rgba = rgb.copy()
    rgba.putalpha(alpha)
    return rgb, rgba


def cpu_ms(f):
    s = time.process_time()
    f()
    return (time.process_time() - s) * 1000


results = {}  # (case, alpha, contender) -> [ms]
prepared = []
for label, size, out in CASES:
    rgb, rgba = inputs(size)
    for alpha, im in (("RGB", rgb), ("RGBA", rgba)):
        path = f"{work}/{size[0]}x{size[1]}-{alpha}.rgba"
        # Ours is RGBA8 only: RGB goes in as opaque RGBA (it takes the opaque passes).
        open(path, "wb").write(im.convert("RGBA").tobytes())
        prepared.append((label, size, out, alpha, im, path))

for r in range(rounds):
    for label, size, out, alpha, im, path in prepared:
        key = (label, alpha)
        for name, env in (("ours", {}), ("ours portable", {"WEBIMAGE_RESAMPLE_KERNELS": "portable"})):
            run = subprocess.run(
                [bench, path, str(size[0]), str(size[1]), str(out[0]), str(out[1]), "lanczos3", str(ops), "1"],
                capture_output=True, text=True, check=True, env={**os.environ, **env})
            line = next(l for l in run.stdout.splitlines() if l.startswith("cpu_ms "))
            results.setdefault(key + (name,), []).extend(float(v) for v in line.split()[1:])
            if r == 0 and name == "ours":
                results.setdefault(key + ("kernels",), run.stdout.splitlines()[-1])
        im.resize(out, Image.Resampling.LANCZOS)  # warm-up
        results.setdefault(key + ("Pillow-SIMD",), []).extend(
            cpu_ms(lambda: im.resize(out, Image.Resampling.LANCZOS)) for _ in range(ops))
        raw = im.tobytes()
        bands = len(alpha)

        def vips():
            v = pyvips.Image.new_from_memory(raw, size[0], size[1], bands, "uchar")
            if bands == 4:
                v = v.premultiply()
            v = v.resize(out[0] / size[0], vscale=out[1] / size[1], kernel="lanczos3", gap=0)
            if bands == 4:
                v = v.unpremultiply().cast("uchar")
            v.write_to_memory()

        vips()
        results.setdefault(key + ("libvips",), []).extend(cpu_ms(vips) for _ in range(ops))

print(f"== Lanczos3, 1 thread, CPU ms per op (median of {rounds} interleaved rounds × {ops} ops) ==")
print(f"Pillow-SIMD {PIL.__version__}, libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)} (pyvips-binary)")
print("| case | ours | ours portable | Pillow-SIMD | libvips | Pillow-SIMD ÷ ours | libvips ÷ ours |")
print("|---|---:|---:|---:|---:|---:|---:|")
for label, size, out, alpha, im, path in prepared:
    key = (label, alpha)
    m = {n: statistics.median(results[key + (n,)]) for n in ("ours", "ours portable", "Pillow-SIMD", "libvips")}
    print(f"| {label} {alpha} | {m['ours']:.2f} | {m['ours portable']:.2f} | {m['Pillow-SIMD']:.2f} | "
          f"{m['libvips']:.2f} | {m['Pillow-SIMD'] / m['ours']:.2f}× | {m['libvips'] / m['ours']:.2f}× |")
print("ours:", results[(prepared[0][0], "RGB", "kernels")])
