"""Writes the benchmark inputs into a build folder (never the repository).

The ~12 MP photo is the corpus's 4032x3024 camera JPEG (sdwebimage/TestJFIF.jpg); the PNG and
WebP versions are the same pixels re-encoded by Pillow (PNG default compression, WebP q80).
usage: make_inputs.py CORPUS_DIR OUT_DIR
"""
import os
import shutil
import sys

from PIL import Image

corpus, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
src = os.path.join(corpus, "sdwebimage", "TestJFIF.jpg")
jpg = os.path.join(out, "photo-12mp.jpg")
if not os.path.exists(jpg):
    shutil.copyfile(src, jpg)
img = Image.open(src).convert("RGB")
png = os.path.join(out, "photo-12mp.png")
if not os.path.exists(png):
    img.save(png, optimize=False)
webp = os.path.join(out, "photo-12mp.webp")
if not os.path.exists(webp):
    img.save(webp, quality=80)
for p in (jpg, png, webp):
    print(p, os.path.getsize(p))
