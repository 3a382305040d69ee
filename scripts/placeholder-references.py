#!/usr/bin/env python3
"""Generates the BlurHash/ThumbHash reference table the placeholder tests compare against.

Regenerate (from the project root):

    make placeholder-references

which builds the tool and runs `python3 scripts/placeholder-references.py`.

It creates (once) a venv under .build-placeholder-venv with the PyPI reference packages
`blurhash` (Wolt's algorithm, pure Python port) and `thumbhash-python` (Evan Wallace's
algorithm), and writes Tests/Fixtures/placeholder-references/placeholder-references.json.

The inputs are identical to the ones the library's encoders see: each corpus file (read in
place from ../shared/corpus, or $WEBIMAGE_CORPUS) is decoded by the built tool with

    webimage convert FILE small.png --first-frame [--resize 100x100 --fit fit --filter box]

(the resize only when a side exceeds 100 pixels) — exactly ImagePlaceholder.encoderInput(of:) —
and the references are computed from that PNG's RGBA pixels. Recorded per image: the small
size, the BlurHash components (4 on the longer side, max(1, floor(4*short/long + 0.5)) on the
shorter), the reference BlurHash and ThumbHash strings, and the reference decoders' pixels
(BlurHash at 32x32, punch 1, as RGB; ThumbHash at its own size, saturation boost 1.25, as RGBA),
base64.
"""
import base64
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".build-placeholder-venv")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "placeholder-references", "placeholder-references.json")
CORPUS = os.environ.get("WEBIMAGE_CORPUS") or os.path.join(os.path.dirname(ROOT), "shared", "corpus")
TOOL = os.environ.get("WEBIMAGE_TOOL") or os.path.join(ROOT, ".build", "debug", "webimage")
PACKAGES = ["blurhash==1.1.5", "thumbhash-python==1.0.1", "pillow==10.4.0"]

# Real corpus images: photos, orientation, ICC, large, wide, portrait, alpha, animation, small.
IMAGES = [
    "jpeg-misc/progressive/3.jpg",
    "exif-orientation/Landscape_6.jpg",
    "sdwebimage/TestICCProfile.jpg",
    "sdwebimage/TestJFIF.jpg",
    "png-regressions/bugfixes/gama-srgb-order-issue#304.png",
    "png-misc/bugfixes/debug_triangle_corners_widescreen.png",
    "sdwebimage/TestImageStatic.webp",
    "webp-conformance/lossy_alpha1.webp",
    "webp-conformance/lossless_color_transform.webp",
    "sdwebimage/1@2x.gif",
    "apng/ball.png",
    "sdwebimage/TestImage.heic",
    "pngsuite/basn6a08.png",
]


def ensure_venv():
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    subprocess.check_call([python, "-m", "pip", "install", "-q", *PACKAGES])
    os.execv(python, [python, *sys.argv])


def components(width, height):
    long, short = max(width, height, 1), max(min(width, height), 1)
    short_count = min(4, max(1, math.floor(4 * short / long + 0.5)))
    return (4, short_count) if width >= height else (short_count, 4)


def small_png(path, tmp):
    out = os.path.join(tmp, "small.png")
    subprocess.check_call([TOOL, "convert", path, out, "--first-frame"], stdout=subprocess.DEVNULL)
    from PIL import Image

    with Image.open(out) as im:
        w, h = im.size
    if w > 100 or h > 100:
        subprocess.check_call(
            [TOOL, "convert", path, out, "--first-frame", "--resize", "100x100", "--fit", "fit", "--filter", "box"],
            stdout=subprocess.DEVNULL)
    return out


def main():
    ensure_venv()
    import blurhash
    from PIL import Image
    from thumbhash.decode import thumbhash_to_rgba
    from thumbhash.encode import rgba_to_thumbhash

    if not os.path.exists(TOOL):
        sys.exit(f"build the tool first: swift build --product webimage ({TOOL} is missing)")
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in IMAGES:
            png = small_png(os.path.join(CORPUS, name), tmp)
            with Image.open(png) as im:
                rgba = im.convert("RGBA")
            w, h = rgba.size
            data = rgba.tobytes()
            rows = [[list(data[(y * w + x) * 4:(y * w + x) * 4 + 3]) for x in range(w)] for y in range(h)]
            cx, cy = components(w, h)
            blur = blurhash.encode(rows, cx, cy)
            decoded = blurhash.decode(blur, 32, 32)
            blur_pixels = bytes(v for row in decoded for px in row for v in px)
            thumb_bytes = rgba_to_thumbhash(w, h, list(data))
            tw, th, thumb_pixels = thumbhash_to_rgba(thumb_bytes)
            entries.append({
                "file": name,
                "width": w,
                "height": h,
                "blurHashComponents": [cx, cy],
                "blurHash": blur,
                "blurHashDecoded32x32RGB": base64.b64encode(blur_pixels).decode(),
                "thumbHash": base64.b64encode(thumb_bytes).decode(),
                "thumbHashDecodedSize": [tw, th],
                "thumbHashDecodedRGBA": base64.b64encode(bytes(thumb_pixels)).decode(),
            })
            print(f"{name}: {w}x{h} {blur} {entries[-1]['thumbHash']}")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"generator": "scripts/placeholder-references.py", "packages": PACKAGES, "images": entries}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
