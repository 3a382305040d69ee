"""The thumbnail path of an image service in Pillow and libvips, in-process, single-threaded:
decode to fit BOX x BOX (each library's shrink-on-load), high-quality resize, JPEG q80.

usage: thumbnail_peers.py pillow|vips FILE ITERATIONS BOX
prints: median_ms=<wall> cpu_ms=<process CPU> size=<WxH> bytes=<output bytes>
Pillow: Image.open + draft (JPEG DCT scaling) + thumbnail(LANCZOS) + save(quality=80).
libvips: Image.thumbnail (shrink-on-load + lanczos3) + jpegsave_buffer(Q=80); operation cache
off; run with VIPS_CONCURRENCY=1.
"""
import io
import statistics
import sys
import time

lib, path, iterations, box = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

if lib == "pillow":
    from PIL import Image

    def run():
        im = Image.open(path)
        im.draft("RGB", (box, box))
        im.thumbnail((box, box), Image.Resampling.LANCZOS)
        out = io.BytesIO()
        im.convert("RGB").save(out, "JPEG", quality=80)
        return im.size, out.tell()
else:
    import pyvips

    pyvips.cache_set_max(0)

    def run():
        im = pyvips.Image.thumbnail(path, box, height=box)
        data = im.jpegsave_buffer(Q=80)
        return (im.width, im.height), len(data)

result = run()
wall, cpu = [], []
for _ in range(iterations):
    w0, c0 = time.perf_counter(), time.process_time()
    result = run()
    cpu.append((time.process_time() - c0) * 1000)
    wall.append((time.perf_counter() - w0) * 1000)
print("median_ms=%.3f cpu_ms=%.3f size=%dx%d bytes=%d" % (statistics.median(wall), statistics.median(cpu), result[0][0], result[0][1], result[1]))
