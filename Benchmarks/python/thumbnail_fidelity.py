"""Thumbnail fidelity and time: `webimage convert --thumbnail N` against `vipsthumbnail`, both
scored by PSNR against Pillow's full-resolution Lanczos resize to the same size.

usage: thumbnail_fidelity.py WEBIMAGE INPUT.jpg BOX RUNS OUT_DIR
prints one line per contender: name, output size, PSNR (dB, RGB, 8-bit), and the medians of
RUNS runs of wall time and of process CPU time (user + system) — each run a whole process
(start-up, decode with shrink-on-load, resize, write a PNG) — alternating the contenders so
that machine load hits both alike.
"""
import math
import os
import resource
import statistics
import subprocess
import sys
import time

from PIL import Image, ImageChops, ImageStat

webimage, source, box, runs, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
os.makedirs(out, exist_ok=True)

full = Image.open(source)
full.load()
full = full.convert("RGB")
scale = min(box / full.width, box / full.height)
size = (max(1, round(full.width * scale)), max(1, round(full.height * scale)))
reference = full.resize(size, Image.Resampling.LANCZOS)

ours_png = os.path.join(out, "ours.png")
vips_png = os.path.join(out, "vips.png")
contenders = {
    "webimage convert --thumbnail %d" % box: ([webimage, "convert", source, ours_png, "--thumbnail", str(box)], ours_png),
    "vipsthumbnail -s %dx%d" % size: (["vipsthumbnail", source, "-s", "%dx%d" % size, "-o", vips_png], vips_png),
}
env = dict(os.environ, VIPS_CONCURRENCY="1")


def psnr(path):
    image = Image.open(path).convert("RGB")
    if image.size != reference.size:
        return float("nan"), image.size
    diff = ImageChops.difference(image, reference)
    stat = ImageStat.Stat(diff)
    pixels = image.width * image.height
    mse = sum(stat.sum2) / (3 * pixels)
    return (float("inf") if mse == 0 else 10 * math.log10(255 * 255 / mse)), image.size


times = {name: [] for name in contenders}
cpu = {name: [] for name in contenders}


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


for _ in range(runs + 1):  # the first round warms the page cache and is dropped
    for name, (command, _) in contenders.items():
        start, start_cpu = time.perf_counter(), child_cpu()
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
        times[name].append((time.perf_counter() - start) * 1000)
        cpu[name].append((child_cpu() - start_cpu) * 1000)
for name, (_, path) in contenders.items():
    value, got = psnr(path)
    print("%-32s %4dx%-4d PSNR %6.2f dB  median wall %7.1f ms  CPU %7.1f ms" % (
        name, got[0], got[1], value, statistics.median(times[name][1:]), statistics.median(cpu[name][1:])))
