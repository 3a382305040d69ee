"""Decode timings of the libraries users would otherwise pick, on the same files, in-process.

usage: peers.py pillow|vips jpeg|png|webp|avif|heif FILE ITERATIONS DENOM
prints: median_ms=<wall ms> cpu_ms=<median process CPU ms>
Pillow: full = open + load(); thumbnail = draft() (JPEG DCT scaling) + reduce/resize to 1/DENOM
        with BOX (Pillow's fastest), which is what Image.thumbnail does.
Run single-threaded (the harness sets VIPS_CONCURRENCY=1), like the other decoders.
libvips (pyvips): full = new_from_file(access=sequential) forced to memory with write_to_memory();
        thumbnail = Image.thumbnail(file, width) (shrink-on-load), forced to memory.
"""
import statistics
import sys
import time

lib, fmt, path, iterations, denom = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])

if lib == "pillow":
    from PIL import Image

    def run():
        im = Image.open(path)
        if denom > 1:
            w, h = im.size
            im.thumbnail((w // denom, h // denom), Image.Resampling.BOX)
        else:
            im.load()
        im.convert("RGBA")  # the same RGBA8 output swift-web-image produces
else:
    import pyvips

    pyvips.cache_set_max(0)  # no operation cache: every iteration really decodes

    def run():
        if denom > 1:
            w = pyvips.Image.new_from_file(path).width
            im = pyvips.Image.thumbnail(path, w // denom)
        else:
            im = pyvips.Image.new_from_file(path, access="sequential")
        if im.format != "uchar":
            im = im.cast("uchar", shift=True)  # 10/12-bit sources: 8-bit RGBA like the others
        if not im.hasalpha():
            im = im.bandjoin(255)
        im.write_to_memory()

run()
times, cpu = [], []
for _ in range(iterations):
    t0, c0 = time.perf_counter(), time.process_time()
    run()
    cpu.append((time.process_time() - c0) * 1000)
    times.append((time.perf_counter() - t0) * 1000)
print("median_ms=%.3f cpu_ms=%.3f" % (statistics.median(times), statistics.median(cpu)))
