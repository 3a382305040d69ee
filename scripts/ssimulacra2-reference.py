#!/usr/bin/env python3
"""Reference SSIMULACRA2 scores for the metric tests (run by scripts/quality-venv.sh's python).

usage: ssimulacra2-reference.py DIR   (DIR holds NAME.ref.png / NAME.dist.png pairs)
prints one JSON object: {"NAME": {"pypi": score, "libjxl_blur": score}, ...}

`pypi` is PyPI's ssimulacra2 0.3.0 as it is. `libjxl_blur` is the same code with its blur replaced
by libjxl's: the finite taps of libjxl's recursive Gaussian (sigma 1.5), zero outside the image
on all four sides. (PyPI's package blurs with scipy's sampled Gaussian, and — its arrays being
transposed — pads rows with zeros but mirrors columns; libjxl's tool does neither.)
"""
import json
import math
import os
import sys

import numpy as np
from scipy import ndimage
import ssimulacra2.ssimulacra2 as pypi


def libjxl_taps(sigma=1.5):
    radius = float(round(3.2795 * sigma + 0.2546))
    w = math.pi / (2 * radius)
    om = [w, 3 * w, 5 * w]
    p = [1 / math.tan(0.5 * om[0]), -1 / math.tan(0.5 * om[1]), 1 / math.tan(0.5 * om[2])]
    r = [p[0] ** 2 / math.sin(om[0]), -p[1] ** 2 / math.sin(om[1]), p[2] ** 2 / math.sin(om[2])]
    rho = [math.exp(-0.5 * sigma * sigma * o * o) / radius for o in om]
    d13 = p[0] * r[1] - r[0] * p[1]
    d35 = p[1] * r[2] - r[1] * p[2]
    d51 = p[2] * r[0] - r[2] * p[0]
    z15, z35 = d35 / d13, d51 / d13
    a = np.array([p, r, [z15, z35, 1.0]])
    g = np.array([1.0, radius * radius - sigma * sigma, z15 * rho[0] + z35 * rho[1] + rho[2]])
    beta = np.linalg.solve(a, g)
    half = [sum(beta[k] * math.cos(om[k] * x) for k in range(3)) for x in range(int(radius))]
    return np.array(half[:0:-1] + half)


TAPS = libjxl_taps()


def libjxl_blur(image, sigma=1.5):
    rows = ndimage.correlate1d(image, TAPS, axis=0, mode="constant")
    return ndimage.correlate1d(rows, TAPS, axis=1, mode="constant")


def main():
    folder = sys.argv[1]
    names = sorted(f[: -len(".ref.png")] for f in os.listdir(folder) if f.endswith(".ref.png"))
    original_blur = pypi.blur_image
    out = {}
    for name in names:
        ref = os.path.join(folder, name + ".ref.png")
        dist = os.path.join(folder, name + ".dist.png")
        pypi.blur_image = original_blur
        plain = pypi.compute_ssimulacra2(ref, dist)
        pypi.blur_image = libjxl_blur
        jxl = pypi.compute_ssimulacra2(ref, dist)
        out[name] = {"pypi": plain, "libjxl_blur": jxl}
    pypi.blur_image = original_blur
    print(json.dumps(out))


if __name__ == "__main__":
    main()
