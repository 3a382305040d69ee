#!/bin/sh
# Resize benchmark (SPEC T-3): one 12 MP image (4000x3000) to 400x300 with Lanczos3, our
# Resampler (single-threaded and 2 threads) against Pillow and libvips on the same pixels in
# the same run. Needs Pillow and pyvips (python3) and vipsthumbnail (libvips-tools).
#
# The Swift side is the package's webimage-resize-bench target, built here in release mode.
#
# Usage (from the project root): sh scripts/bench-resize.sh [runs]   (or: make bench-resize)
set -eu
RUNS=${1:-7}
SWIFT=${SWIFT:-swift}
WORK=${TMPDIR:-/tmp}/webimage-bench-resize
CORPUS=${WEBIMAGE_CORPUS:-$(cd "$(dirname "$0")/../.." && pwd)/shared/corpus}
mkdir -p "$WORK"

# Input: the corpus' 5250x3450 photo, resized to exactly 4000x3000 by Pillow, stored as raw RGBA
# (identical pixels for every contender) and as a JPEG for vipsthumbnail.
python3 - "$CORPUS/sdwebimage/TestImageLarge.jpg" "$WORK" <<'PY'
import sys
from PIL import Image
src, work = sys.argv[1], sys.argv[2]
im = Image.open(src).convert("RGB").resize((4000, 3000), Image.Resampling.LANCZOS).convert("RGBA")
open(work + "/input.rgba", "wb").write(im.tobytes())
im.convert("RGB").save(work + "/input.jpg", quality=92)
PY

# shellcheck disable=SC2086 # SWIFT_BUILD_FLAGS is a list of flags
"$SWIFT" build -c release --product webimage-resize-bench ${SWIFT_BUILD_FLAGS:-}
# shellcheck disable=SC2086
BENCH="$("$SWIFT" build -c release --show-bin-path ${SWIFT_BUILD_FLAGS:-})/webimage-resize-bench"

echo "== resize 4000x3000 -> 400x300, Lanczos3, $(nproc) cores, $RUNS runs each =="
"$BENCH" "$WORK/input.rgba" 4000 3000 400 300 lanczos3 "$RUNS" 1
"$BENCH" "$WORK/input.rgba" 4000 3000 400 300 lanczos3 "$RUNS" 2
"$BENCH" "$WORK/input.rgba" 4000 3000 400 300 mitchell "$RUNS" 1
"$BENCH" "$WORK/input.rgba" 4000 3000 400 300 bilinear "$RUNS" 1

python3 - "$WORK" "$RUNS" <<'PY'
import sys, time
from PIL import Image
import PIL
work, runs = sys.argv[1], int(sys.argv[2])
raw = open(work + "/input.rgba", "rb").read()
def best(f):
    t = []
    for _ in range(runs):
        s = time.perf_counter(); f(); t.append((time.perf_counter() - s) * 1000)
    t.sort()
    return t[0], t[len(t) // 2]
rgba = Image.frombytes("RGBA", (4000, 3000), raw)
rgb = rgba.convert("RGB")
for label, im in (("RGBA (premultiplied)", rgba), ("RGB", rgb)):
    b, m = best(lambda: im.resize((400, 300), Image.Resampling.LANCZOS))
    print(f"Pillow {PIL.__version__} resize LANCZOS {label}: best {b:.1f} ms, median {m:.1f} ms")
try:
    import pyvips
    def vips():
        v = pyvips.Image.new_from_memory(raw, 4000, 3000, 4, "uchar")
        v.resize(0.1, kernel="lanczos3").write_to_memory()
    pyvips.cache_set_max(0)
    pyvips.concurrency_set(1)
    b, m = best(vips)
    print(f"libvips {pyvips.version(0)}.{pyvips.version(1)} resize lanczos3 (1 thread): best {b:.1f} ms, median {m:.1f} ms")
    pyvips.concurrency_set(2)
    b, m = best(vips)
    print(f"libvips {pyvips.version(0)}.{pyvips.version(1)} resize lanczos3 (2 threads): best {b:.1f} ms, median {m:.1f} ms")
except ImportError:
    print("pyvips not installed: skipped")
PY

# vipsthumbnail: the whole job (JPEG decode with shrink-on-load + resize + encode), for context.
START=$(date +%s%N)
for i in $(seq "$RUNS"); do VIPS_CONCURRENCY=1 vipsthumbnail "$WORK/input.jpg" -s 400 -o "$WORK/thumb.jpg" >/dev/null; done
END=$(date +%s%N)
echo "vipsthumbnail input.jpg -s 400 (decode+shrink+encode, 1 thread): mean $(( (END - START) / RUNS / 1000000 )) ms"
