"""Photo-like benchmark sources for `make bench-service`, generated with Pillow (never committed).

Photo-like means not flat colour: gradients, soft low-frequency blotches, hard-edged shapes and
fine grain, so that JPEG and PNG sizes are in the range of real photographs (a flat picture
decodes and encodes unrealistically fast). Deterministic for a seed.

usage: service_sources.py DIR  -> writes photo.jpg (2040x1356 q90), photo12.jpg (4000x3000 q90),
       graphic.png (1200x800 RGB), anim.gif (640x360, 24 frames) and prints one line per file.
"""
import os
import random
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFilter


def noise(rng, size, scale):
    """Uniform noise at 1/scale resolution, smoothed up to size: blotches `scale` pixels wide."""
    w, h = max(1, size[0] // scale), max(1, size[1] // scale)
    small = Image.frombytes("L", (w, h), rng.randbytes(w * h))
    if scale > 1:
        small = small.filter(ImageFilter.GaussianBlur(1))
    return small.resize(size, Image.Resampling.BICUBIC)


def photo(size, seed):
    rng = random.Random(seed)
    w, h = size
    # Gradients: a sky-to-ground ramp per channel, different directions.
    ramp_v = Image.linear_gradient("L").resize(size)
    ramp_h = Image.linear_gradient("L").rotate(90).resize(size)
    channels = []
    for c in range(3):
        base = ImageChops.blend(ramp_v, ramp_h, 0.3 + 0.2 * c)
        base = ImageChops.blend(base, noise(rng, size, max(8, w // 40)), 0.45)
        base = ImageChops.blend(base, noise(rng, size, max(2, w // 400)), 0.25)
        channels.append(base)
    img = Image.merge("RGB", channels)
    # Shapes: hard edges and flat-ish areas, as objects in a scene.
    shapes = img.copy()
    draw = ImageDraw.Draw(shapes)
    for _ in range(30):
        x, y = rng.randrange(w), rng.randrange(h)
        r = rng.randrange(w // 60, w // 8)
        colour = tuple(rng.randrange(256) for _ in range(3))
        if rng.random() < 0.5:
            draw.ellipse((x - r, y - r, x + r, y + r * rng.uniform(0.5, 1.5)), fill=colour)
        else:
            draw.polygon([(x + rng.randrange(-r, r), y + rng.randrange(-r, r)) for _ in range(5)], fill=colour)
    # Textured objects: the background's detail shows through them.
    img = Image.blend(img, shapes, 0.7).filter(ImageFilter.GaussianBlur(0.8))
    # Grain: fine sensor-like noise over everything.
    grain = Image.frombytes("L", size, rng.randbytes(w * h)).point(lambda v: 128 + (v - 128) // 7)
    grain = Image.merge("RGB", [grain] * 3)
    return ImageChops.add(img, grain, scale=1.0, offset=-128)


def animation(size, frames, seed):
    rng = random.Random(seed)
    background = photo(size, seed).quantize(colors=200, dither=Image.Dither.NONE).convert("RGB")
    out = []
    balls = [(rng.randrange(size[0]), rng.randrange(size[1]), rng.randrange(-12, 12), rng.randrange(-9, 9),
              tuple(rng.randrange(256) for _ in range(3))) for _ in range(8)]
    for f in range(frames):
        frame = background.copy()
        draw = ImageDraw.Draw(frame)
        for x, y, dx, dy, colour in balls:
            cx, cy = (x + dx * f) % size[0], (y + dy * f) % size[1]
            draw.ellipse((cx - 24, cy - 24, cx + 24, cy + 24), fill=colour)
        out.append(frame.quantize(colors=256, dither=Image.Dither.NONE))
    return out


def main():
    target = sys.argv[1]
    os.makedirs(target, exist_ok=True)
    files = []
    p = os.path.join(target, "photo.jpg")
    photo((2040, 1356), 1).save(p, "JPEG", quality=90)
    files.append(p)
    p = os.path.join(target, "photo12.jpg")
    photo((4000, 3000), 2).save(p, "JPEG", quality=90)
    files.append(p)
    p = os.path.join(target, "graphic.png")
    photo((1200, 800), 3).save(p, "PNG")
    files.append(p)
    p = os.path.join(target, "anim.gif")
    frames = animation((640, 360), 24, 4)
    frames[0].save(p, "GIF", save_all=True, append_images=frames[1:], duration=80, loop=0)
    files.append(p)
    for p in files:
        with Image.open(p) as im:
            frames = getattr(im, "n_frames", 1)
            print("%s %d×%d %s %d KB%s" % (os.path.basename(p), im.width, im.height, im.format,
                                           os.path.getsize(p) // 1024, " %d frames" % frames if frames > 1 else ""))


if __name__ == "__main__":
    main()
