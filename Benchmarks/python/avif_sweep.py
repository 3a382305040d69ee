"""`make bench-avif`: the AV1 encoders libavif links (aom, rav1e, SVT-AV1), at equal quality.

For each source and output size, Benchmarks/c/avif_sweep.c makes one thumbnail (untimed) and
encodes it with each setting (codec:speed:subsampling:Q[:tune]), timing the median process CPU of
one encode (avifImageRGBToYUV + avifEncoderWrite, one thread). `webimage compare` scores every
file with SSIMULACRA2 against the lossless thumbnail. The reference setting is imgproxy's default
AVIF: libaom speed 8, 4:2:0, q63 (our quantizer mapping). For each candidate (codec, speed,
subsampling) the table shows the lowest Q in the sweep whose score is at least the reference's,
with its CPU and size: equal quality, then the cost.

usage: avif_sweep.py   (environment: AVIF_SWEEP, WEBIMAGE, SOURCES_DIR, OUT_DIR, ITERATIONS,
                        SIDES, QUALITIES)
"""
import json
import os
import subprocess
import sys

SWEEP = os.environ["AVIF_SWEEP"]
WEBIMAGE = os.environ["WEBIMAGE"]
SOURCES_DIR = os.environ["SOURCES_DIR"]
OUT_DIR = os.environ["OUT_DIR"]
ITERATIONS = int(os.environ.get("ITERATIONS", "5"))
SIDES = [int(x) for x in os.environ.get("SIDES", "256,512,1024").split(",")]
QUALITIES = [int(x) for x in os.environ.get("QUALITIES", "55,58,61,63,64,65,66,67,69,71,73,76").split(",")]
CORPUS = os.environ.get("CORPUS", "../shared/corpus")

REFERENCE = "aom:8:420:63"
# (codec:speed:subsampling[:tune]) swept over QUALITIES; SVT-AV1 and rav1e once at q63 (too slow
# to sweep: see the table).
CANDIDATES = ["aom:8:420", "aom:9:420", "aom:9:444", "aom:7:420"]
ONCE = ["rav1e:10:420:63", "svt:8:420:63"]


def sources():
    """(name, path, [(side, denom)]): the generated 2 MP photo and the corpus's real photos."""
    out = [("photo 2040x1356 (generated)", os.path.join(SOURCES_DIR, "photo.jpg"), {256: 4, 512: 2, 1024: 1})]
    for name, rel, denoms in [("TestHDR 1662x2493", "sdwebimage/TestHDR.jpeg", {256: 4, 512: 2, 1024: 1}),
                              ("TestJFIF 4032x3024", "sdwebimage/TestJFIF.jpg", {256: 8, 512: 4, 1024: 2})]:
        path = os.path.join(CORPUS, rel)
        if os.path.exists(path):
            out.append((name, path, denoms))
    return out


def setting_text(candidate, q):
    codec, speed, sub, *rest = candidate.split(":")
    tune = rest[1] if len(rest) > 1 else ""
    return f"{codec}:{speed}:{sub}:{q}" + (f":{tune}" if tune else "")


def score(reference, distorted):
    out = subprocess.run([WEBIMAGE, "compare", reference, distorted, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)["ssimulacra2"]


def run(name, path, side, denom):
    workdir = os.path.join(OUT_DIR, f"{os.path.basename(path)}-{side}")
    os.makedirs(workdir, exist_ok=True)
    settings = [REFERENCE] + [setting_text(c, q) for c in CANDIDATES for q in QUALITIES] + ONCE
    settings = list(dict.fromkeys(settings))
    proc = subprocess.run([SWEEP, path, str(denom), str(side), str(ITERATIONS), workdir] + settings,
                          capture_output=True, text=True, env=dict(os.environ, SVT_LOG="0"))
    if proc.returncode != 0:
        sys.exit(f"avif_sweep failed on {path}: {proc.stderr[-400:]}")
    rows, size, versions = {}, "", ""
    for line in proc.stdout.splitlines():
        parts = line.split()
        if parts[0] == "versions":
            versions = line
            continue
        if len(parts) < 4:
            continue
        fields = dict(p.split("=", 1) for p in parts[1:])
        size = fields["size"]
        file = os.path.join(workdir, parts[0].replace(":", "_") + ".avif")
        rows[parts[0]] = (float(fields["cpu_ms"]), int(fields["bytes"]), score(os.path.join(workdir, "reference.avif"), file))
    return rows, size, versions


def main():
    lines, versions = [], ""
    for name, path, denoms in sources():
        for side in SIDES:
            rows, size, versions = run(name, path, side, denoms[side])
            ref_cpu, ref_bytes, ref_score = rows[REFERENCE]
            lines.append(f"\n{name} → {size} (reference {REFERENCE}: SSIMULACRA2 {ref_score:.2f}, "
                         f"{ref_cpu:.1f} CPU-ms, {ref_bytes} B)\n")
            lines.append("| setting | lowest Q ≥ reference | SSIMULACRA2 | CPU-ms | × ref CPU | bytes | × ref bytes |")
            lines.append("|---|---|---|---|---|---|---|")
            for candidate in CANDIDATES:
                hits = [(q, rows.get(setting_text(candidate, q))) for q in QUALITIES]
                hits = [(q, r) for q, r in hits if r and r[2] is not None and r[2] >= ref_score]
                if not hits:
                    lines.append(f"| {candidate} | none in {QUALITIES[0]}…{QUALITIES[-1]} | | | | | |")
                    continue
                q, (cpu, size_b, s) = hits[0]
                lines.append(f"| {candidate} | {q} | {s:.2f} | {cpu:.1f} | {cpu / ref_cpu:.2f} | {size_b} | "
                             f"{size_b / ref_bytes:.2f} |")
            for setting in ONCE:
                r = rows.get(setting)
                if r and r[2] is not None:
                    lines.append(f"| {setting} (one Q) | {setting.split(':')[3]} | {r[2]:.2f} | {r[0]:.1f} | "
                                 f"{r[0] / ref_cpu:.2f} | {r[1]} | {r[1] / ref_bytes:.2f} |")
                else:
                    lines.append(f"| {setting} (one Q) | failed | | | | | |")
            print("\n".join(lines[-(len(CANDIDATES) + len(ONCE) + 3):]), flush=True)
    print(f"\n{versions}")
    with open(os.path.join(OUT_DIR, "avif-sweep.md"), "w") as f:
        f.write("\n".join(lines) + f"\n\n{versions}\n")


if __name__ == "__main__":
    main()
