#!/usr/bin/env python3
"""Sources for `make soak-service`: photo-like JPEG, PNG, WebP and GIF images of 0.3-12 MP.

Usage: soak-sources.py DIRECTORY

Writes the images into DIRECTORY (a temporary folder: never commit them) and prints one line per
image, `NAME MEGAPIXELS`. Deterministic (fixed seeds). Needs Pillow.
"""
import random
import sys

from PIL import Image

directory = sys.argv[1]


def photo(width, height, seed, mode="RGB"):
    """Smooth colour fields (a tiny random image upscaled) with some grain: compresses like a photo."""
    rnd = random.Random(seed)
    small = Image.new("RGB", (16, 12))
    small.putdata([tuple(rnd.randrange(256) for _ in range(3)) for _ in range(16 * 12)])
    image = small.resize((width, height), Image.BICUBIC)
    grain = Image.effect_noise((width, height), 24).convert("RGB")
    image = Image.blend(image, grain, 0.12)
    if mode == "RGBA":
        alpha = Image.radial_gradient("L").resize((width, height))
        image.putalpha(alpha)
    return image


# (name, width, height): 0.3, 1, 2, 4, 8 and 12 MP.
SPECS = [
    ("p03.jpg", 640, 480), ("p1.jpg", 1152, 864), ("p2.jpg", 1632, 1224), ("p4.jpg", 2304, 1728),
    ("p8.jpg", 3264, 2448), ("p12.jpg", 4000, 3000),
    ("p03.png", 640, 480), ("p1a.png", 1152, 864), ("p2.png", 1632, 1224), ("p12.png", 4000, 3000),
    ("p05.webp", 816, 612), ("p2.webp", 1632, 1224), ("p12.webp", 4000, 3000),
    ("p03.gif", 640, 480), ("p1.gif", 1152, 864),
]

for index, (name, width, height) in enumerate(SPECS):
    path = f"{directory}/{name}"
    if name.endswith(".jpg"):
        photo(width, height, index).save(path, quality=90)
    elif name.endswith(".png"):
        photo(width, height, index, "RGBA" if "a." in name else "RGB").save(path, compress_level=6)
    elif name.endswith(".webp"):
        photo(width, height, index).save(path, quality=80, method=2)
    elif name == "p03.gif":  # animated: four frames
        frames = [photo(width, height, index * 10 + f).convert("P", palette=Image.ADAPTIVE) for f in range(4)]
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=100, loop=0)
    else:
        photo(width, height, index).convert("P", palette=Image.ADAPTIVE).save(path)
    print(f"{name} {width * height / 1e6:.1f}")
