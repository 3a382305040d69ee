#!/usr/bin/env python3
"""Generates the resize reference images the transformer tests compare against (SPEC T-3).

Inputs:
  - pattern.png (generated here, deterministic): 256x256 RGB gradients, rings and fine lines.
  - small.png (generated here): 48x32 RGB, for enlarging.
  - the corpus photo png-regressions/bugfixes/gama-srgb-order-issue#304.png (320x480, read in
    place from ../shared/corpus; not copied into the repository).

For every input and filter, Pillow's Image.resize (no reducing_gap) writes
<input>-<w>x<h>-<filter>.png into Tests/Fixtures/transform-references/.

Run from the project root:  python3 scripts/make-transform-references.py
"""
import math
import os
import sys

from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "Fixtures", "transform-references")
CORPUS = os.environ.get("WEBIMAGE_CORPUS") or os.path.join(os.path.dirname(ROOT), "shared", "corpus")

FILTERS = {
    "lanczos3": Image.Resampling.LANCZOS,
    "catmull-rom": Image.Resampling.BICUBIC,
    "bilinear": Image.Resampling.BILINEAR,
    "box": Image.Resampling.BOX,
}


def pattern(width, height):
    """Smooth gradients, concentric rings (all frequencies) and one-pixel lines."""
    im = Image.new("RGB", (width, height))
    px = im.load()
    cx, cy = width / 2, height / 2
    for y in range(height):
        for x in range(width):
            r = int(255 * x / (width - 1))
            g = int(255 * y / (height - 1))
            d = math.hypot(x - cx, y - cy)
            b = int(127.5 + 127.5 * math.cos(d * d / (width * 0.9)))
            if x % 16 == 0 or y % 23 == 0:
                r, g, b = 255 - r, 255 - g, 255 - b
            px[x, y] = (r, g, b)
    return im


def main():
    os.makedirs(OUT, exist_ok=True)
    inputs = []
    big = pattern(256, 256)
    big.save(os.path.join(OUT, "pattern.png"), optimize=True)
    inputs.append(("pattern", big, [(200, 150), (64, 48)]))
    small = pattern(48, 32)
    small.save(os.path.join(OUT, "small.png"), optimize=True)
    inputs.append(("small", small, [(200, 150), (75, 41)]))
    photo_path = os.path.join(CORPUS, "png-regressions", "bugfixes", "gama-srgb-order-issue#304.png")
    if not os.path.exists(photo_path):
        sys.exit("corpus photo not found: " + photo_path)
    inputs.append(("photo", Image.open(photo_path).convert("RGBA"), [(200, 150), (64, 48)]))
    for name, im, sizes in inputs:
        for (w, h) in sizes:
            for fname, f in FILTERS.items():
                out = im.resize((w, h), f)
                out.save(os.path.join(OUT, f"{name}-{w}x{h}-{fname}.png"), optimize=True)
    total = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()
