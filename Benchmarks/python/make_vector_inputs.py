"""Writes the SVG and PDF benchmark inputs (Benchmarks/run-decode-tiff-svg-pdf.sh): an SVG of
600 shapes with gradients and strokes at 1600x1200, and a one-page PDF of 2,000 filled and
stroked paths on an A4 page (595x842 points). Deterministic.

usage: make_vector_inputs.py OUT_DIR
"""
import random
import sys

out = sys.argv[1]
rng = random.Random(16)
shapes = []
for i in range(600):
    x, y, r = rng.uniform(0, 1600), rng.uniform(0, 1200), rng.uniform(4, 60)
    colour = "#%06x" % rng.randrange(1 << 24)
    if i % 3 == 0:
        shapes.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="url(#g{i % 4})" stroke="{colour}" stroke-width="2"/>')
    elif i % 3 == 1:
        shapes.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{2 * r:.1f}" height="{r:.1f}" fill="{colour}" opacity="0.7"/>')
    else:
        shapes.append(f'<path d="M{x:.1f} {y:.1f} q {r:.1f} {-r:.1f} {2 * r:.1f} 0 t {2 * r:.1f} 0" fill="none" stroke="{colour}" stroke-width="3"/>')
gradients = "".join(
    f'<linearGradient id="g{k}"><stop offset="0" stop-color="#{rng.randrange(1 << 24):06x}"/>'
    f'<stop offset="1" stop-color="#{rng.randrange(1 << 24):06x}"/></linearGradient>' for k in range(4))
with open(f"{out}/shapes.svg", "w") as f:
    f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1200"><defs>{gradients}</defs>{"".join(shapes)}</svg>')

ops = []
for i in range(2000):
    x, y, r = rng.uniform(0, 595), rng.uniform(0, 842), rng.uniform(2, 30)
    ops.append(f"{rng.random():.3f} {rng.random():.3f} {rng.random():.3f} rg {x:.1f} {y:.1f} {r:.1f} {r:.1f} re f")
    ops.append(f"{rng.random():.3f} {rng.random():.3f} {rng.random():.3f} RG 1.5 w {x:.1f} {y:.1f} m {x + 2 * r:.1f} {y + r:.1f} l S")
content = "\n".join(ops)
objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
    f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
]
text, offsets = "%PDF-1.4\n", []
for n, body in enumerate(objects, 1):
    offsets.append(len(text))
    text += f"{n} 0 obj\n{body}\nendobj\n"
xref = len(text)
text += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n" + "".join(f"{o:010d} 00000 n \n" for o in offsets)
text += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
with open(f"{out}/paths.pdf", "w") as f:
    f.write(text)
