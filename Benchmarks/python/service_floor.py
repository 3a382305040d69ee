"""The floor of `make bench-service` (issue #15; docs/PERFORMANCE.md "Service"): what the 2 MP
JPEG tasks cost when nothing but the codec libraries runs, measured in the same run as the
services, so that a goal stated as a fraction of thumbor's CPU time can be checked against what
the libraries themselves need.

Steps, each timed as the median process CPU time of single-threaded calls:
  decode   Benchmarks/c/decode_bench.c: libjpeg-turbo (TurboJPEG tjDecompress2, RGBA, our flags)
           decoding the source at the scale our shrink on load picks for the task
  encode   Benchmarks/c/encode_floor.c: libjpeg-turbo, libwebp and libavif/libaom encoding the
           task's output size with our coders' settings (see that file)
  Pillow   thumbor's own libraries through its Pillow (the bench venv's): `draft` + load, LANCZOS
           resize, and the encodes with thumbor's options (JPEG progressive + optimize) — what
           thumbor cannot avoid paying either
  resample Benchmarks/Sources/webimage-resize-bench: our Resampler (Lanczos3, one thread) called
           directly on the decoded size's opaque RGBA pixels → the output size, as the service
           resamples the 1/DENOM decode (when RESIZE_BENCH is given)
The floor of a request is decode + resample + encode: what it cannot avoid (the service's own
figure of merit: ours ÷ floor, target ≤ 1.2×). Against thumbor the goals were stated on
decode + encode alone; Pillow's LANCZOS figure shows what a C library's resample costs.

Used by service_bench.py; also runnable alone:
  service_floor.py SOURCE.jpg DECODE_BENCH ENCODE_FLOOR [ITERATIONS [RESIZE_BENCH]]   prints the measurements.
"""
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# The tasks this floor covers: (task id, encoder argument of encode_floor, Pillow save options).
ENCODES = [
    ("jpeg", "jpeg:80", ("JPEG", {"quality": 80, "optimize": True, "progressive": True})),
    ("webp", "webp:75", ("WEBP", {"quality": 75, "method": 4})),
    ("avif", "avif:63", ("AVIF", {"quality": 63, "speed": 8})),
]
GOALS = {"jpeg": 0.45, "webp": 0.7, "avif": 1.0}  # issue #15: CPU-ms per request ÷ thumbor's
FIT = 512  # the tasks' fit box (512×512)


def fit_size(width, height, box=FIT):
    """The size a `fit` into box × box gives (rounded as ours does: the long side exact)."""
    scale = min(box / width, box / height, 1.0)
    return max(1, round(width * scale)), max(1, round(height * scale))


def shrink_denominator(width, height, out_w, out_h):
    """The JPEG decode scale of Sources/WebImageServer/Processing/ShrinkOnLoad.swift: the
    smallest (8, 4, 2) whose pixels still number at least the scaled result's on both axes."""
    for d in (8, 4, 2):
        if width >= out_w * d and height >= out_h * d:
            return d
    return 1


def parse(line):
    return dict(part.split("=", 1) for part in line.split() if "=" in part)


def run(argv, timeout=300):
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:2])} failed: {(proc.stderr or proc.stdout).strip()[-300:]}")
    return proc.stdout


def measure(source, decode_bench, encode_floor, iterations=31, repeats=3, resize_bench=None, pillow=True):
    """The floor's figures for `source` (the task's JPEG): a dict, or {"error": why}.
    Each program runs `repeats` times (`iterations` timed calls each, median of the process's
    CPU time); the median of those medians is reported. `pillow`: also Pillow's steps."""
    from PIL import Image  # the bench venv's Pillow (thumbor's)

    with Image.open(source) as im:
        width, height = im.size
    out_w, out_h = fit_size(width, height)
    denom = shrink_denominator(width, height, out_w, out_h)
    result = {"source": f"{width}×{height}", "output": f"{out_w}×{out_h}", "denominator": denom}
    try:
        decodes = [parse(run([decode_bench, "jpeg", source, str(iterations), str(denom)])) for _ in range(repeats)]
        result["decode_ms"] = statistics.median(float(d["cpu_ms"]) for d in decodes)
        result["decoded"] = decodes[0].get("size", "?").replace("x", "×")
        encodes = {}
        versions = ""
        for _ in range(repeats):
            out = run([encode_floor, source, str(iterations), str(denom), str(out_w), str(out_h)]
                      + [arg for _, arg, _ in ENCODES])
            for line in out.splitlines():
                if line.startswith("versions "):
                    versions = line
                    continue
                codec = line.split()[0]
                encodes.setdefault(codec, []).append(parse(line))
        for task_id, arg, _ in ENCODES:
            runs = encodes.get(arg.split(":")[0], [])
            if runs:
                result[f"{task_id}_encode_ms"] = statistics.median(float(r["cpu_ms"]) for r in runs)
                result[f"{task_id}_bytes"] = int(runs[-1]["bytes"])
        v = parse(versions.split(" codecs=")[0])
        codecs = versions.split(" codecs=", 1)[1] if " codecs=" in versions else ""
        aom = next((c.rsplit(":", 1)[1] for c in codecs.split(",") if c.strip().startswith("aom")), "?")
        result["c_versions"] = (f"libjpeg-turbo {package_version('libturbojpeg0')}, libwebp {v.get('libwebp', '?')}, "
                                f"libavif {v.get('libavif', '?')} with aom {aom.strip()}")
    except (OSError, RuntimeError, subprocess.SubprocessError, KeyError, ValueError) as error:
        result["error"] = str(error)
        return result
    if resize_bench:
        result.update(resample_step(source, result["decoded"], (out_w, out_h), resize_bench, iterations, repeats))
    if pillow:
        result.update(pillow_steps(source, (out_w, out_h), iterations))
    return result


# The floor's own steps (not Pillow's): the keys `combine` takes the median of.
STEP_KEYS = ("decode_ms", "resample_ms") + tuple(f"{task_id}_encode_ms" for task_id, _, _ in ENCODES)


def combine(final, samples):
    """`final` with each floor step replaced by its median over `samples` (floors measured
    between the rounds, interleaved with the services) and `final` itself."""
    if "error" in final:
        return final
    combined = dict(final)
    for key in STEP_KEYS:
        values = [s[key] for s in samples + [final] if key in s and "error" not in s]
        if values:
            combined[key] = statistics.median(values)
    combined["samples"] = 1 + sum(1 for s in samples if "error" not in s)
    return combined


def resample_step(source, decoded, size, resize_bench, iterations, repeats):
    """Our Resampler called directly (webimage-resize-bench, Lanczos3, one thread) from the
    decoded size to `size`, on the source's own pixels at that size, opaque RGBA as the service
    holds a JPEG: {"resample_ms": median CPU-ms} or {"resample_error": why}."""
    from PIL import Image

    try:
        width, height = (int(v) for v in decoded.split("×"))
        with Image.open(source) as im:
            pixels = im.convert("RGB").resize((width, height), Image.Resampling.BOX).convert("RGBA").tobytes()
        with tempfile.NamedTemporaryFile(suffix=".rgba", delete=False) as f:
            f.write(pixels)
            raw = f.name
        try:
            medians = []
            for _ in range(repeats):
                out = run([resize_bench, raw, str(width), str(height), str(size[0]), str(size[1]), "lanczos3",
                           str(iterations), "1"])
                m = re.search(r"median ([0-9.]+) ms", out)
                if not m:
                    raise RuntimeError(f"unexpected output of webimage-resize-bench: {out.strip()[-200:]}")
                medians.append(float(m.group(1)))
        finally:
            os.unlink(raw)
        return {"resample_ms": statistics.median(medians)}
    except (OSError, RuntimeError, subprocess.SubprocessError, ValueError) as error:
        return {"resample_error": str(error)}


def package_version(name):
    try:
        version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", name], capture_output=True, text=True,
                                 timeout=30).stdout.strip()
        # Debian's 1:2.1.5-2 → 2.1.5 (no epoch, no packaging revision)
        return version.split(":", 1)[-1].rsplit("-", 1)[0] or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def cpu_median(fn, iterations):
    fn()  # warm-up
    times = []
    for _ in range(iterations):
        c0 = time.process_time()
        fn()
        times.append((time.process_time() - c0) * 1000)
    return statistics.median(times)


def pillow_steps(source, size, iterations):
    """thumbor's libraries: Pillow's draft decode, LANCZOS resize and encodes, in CPU-ms."""
    from PIL import Image, features

    with open(source, "rb") as f:
        data = f.read()
    out = {"pillow_version": f"Pillow {Image.__version__} (libjpeg-turbo {features.version('libjpeg_turbo')}, "
                             f"libwebp {features.version('webp')}, libavif {features.version('avif')})"}

    def decode():
        im = Image.open(io.BytesIO(data))
        im.draft("RGB", size)  # what thumbor's engine asks for: at least `size`
        im.load()
        return im

    try:
        out["pillow_decode_ms"] = cpu_median(decode, iterations)
        reduced = decode()
        out["pillow_decoded"] = f"{reduced.width}×{reduced.height}"
        out["pillow_resize_ms"] = cpu_median(lambda: reduced.resize(size, Image.Resampling.LANCZOS), iterations)
        thumb = reduced.resize(size, Image.Resampling.LANCZOS)
        for task_id, _, (fmt, options) in ENCODES:
            if fmt == "AVIF" and not features.check("avif"):
                continue
            # Pillow's AVIF encoder may use threads: the process CPU time counts all of them.
            out[f"pillow_{task_id}_encode_ms"] = cpu_median(
                lambda: thumb.save(io.BytesIO(), fmt, **options), iterations)
    except (OSError, ValueError, KeyError) as error:
        out["pillow_error"] = str(error)
    return out


# ---------------------------------------------------------------- output

def fmt(value, digits=1):
    return "–" if value is None else f"{value:.{digits}f}"


def render(floor, titles, thumbor_cpu, ours_cpu):
    """Markdown lines: the steps, then per task floor ÷ thumbor against the goal.
    titles, thumbor_cpu, ours_cpu: dicts by task id (CPU-ms per request from the same run)."""
    lines = []
    add = lines.append
    if not floor:
        return lines
    if "error" in floor:
        add(f"Floor (the C libraries called directly): not measured ({floor['error']}).")
        add("")
        return lines
    d = floor["denominator"]
    when = (f"measured after each of the {floor['samples'] - 1} rounds and once more after them, interleaved with "
            f"the services; the median of those" if floor.get("samples", 1) > 1 else "measured after the rounds")
    add(f"**Floor: the codec libraries called directly** for the 2 MP tasks (source {floor['source']}, output "
        f"{floor['output']}; one thread, median process CPU-ms of single calls, {when}; {floor['c_versions']}; "
        f"thumbor's libraries: {floor.get('pillow_version', '?')}):")
    add("")
    add("| Step | C library called directly (ours links these) | CPU-ms | thumbor's library (Pillow) | CPU-ms |")
    add("|---|---|---:|---|---:|")
    add(f"| decode at 1/{d} → {floor['decoded']} | libjpeg-turbo `tjDecompress2` (Benchmarks/c/decode_bench.c) | "
        f"{fmt(floor['decode_ms'])} | `draft` + `load` → {floor.get('pillow_decoded', '?')} | {fmt(floor.get('pillow_decode_ms'))} |")
    resample_note = ("our `Resampler`, Lanczos3, 1 thread (Benchmarks/Sources/webimage-resize-bench)" if "resample_ms" in floor
                     else f"not measured ({floor.get('resample_error', 'no RESIZE_BENCH')})")
    add(f"| resample → {floor['output']} | {resample_note} | {fmt(floor.get('resample_ms'))} | LANCZOS `resize` | "
        f"{fmt(floor.get('pillow_resize_ms'))} |")
    names = {"jpeg": ("JPEG q80: libjpeg-turbo, baseline 4:2:0", "JPEG q80 progressive + optimize (thumbor's)"),
             "webp": ("WebP q75: libwebp, method 4", "WebP q75, method 4"),
             "avif": ("AVIF q63: libavif + aom, speed 9, quantizer 2 steps lower (ours up to 1.2 MP), 1 thread", "AVIF q63, speed 8")}
    for task_id, _, _ in ENCODES:
        ours_name, pillow_name = names[task_id]
        add(f"| encode | {ours_name} (Benchmarks/c/encode_floor.c), {floor.get(task_id + '_bytes', 0) // 1024} KB | "
            f"{fmt(floor.get(task_id + '_encode_ms'))} | {pillow_name} | {fmt(floor.get('pillow_' + task_id + '_encode_ms'))} |")
    add("")
    add("Floor = decode + encode with the C libraries (no resample, no HTTP, no fetch) against thumbor's CPU-ms "
        "per request from the table above; headroom = what the goal leaves for everything else (resample, "
        "fetch, HTTP, hashing):")
    add("")
    add("| Task | floor CPU-ms | thumbor CPU-ms | floor ÷ thumbor | goal | headroom at the goal | "
        "floor + Pillow's resample ÷ thumbor | ours ÷ thumbor |")
    add("|---|---:|---:|---:|---:|---|---:|---:|")
    for task_id, _, _ in ENCODES:
        enc = floor.get(task_id + "_encode_ms")
        if enc is None:
            continue
        total = floor["decode_ms"] + enc
        th, ours = thumbor_cpu.get(task_id), ours_cpu.get(task_id)
        goal = GOALS[task_id]
        resize = floor.get("pillow_resize_ms")
        if th:
            headroom = goal * th - total
            verdict = (f"{headroom:.1f} ms" if headroom > 0 else
                       f"none: the floor alone is {-headroom:.1f} ms over (out of reach with these libraries)")
            add(f"| {titles.get(task_id, task_id)} | {total:.1f} ({floor['decode_ms']:.1f} + {enc:.1f}) | {th:.1f} | "
                f"**{total / th:.2f}×** | ≤ {goal:.2f}× | {verdict} | "
                f"{fmt((total + resize) / th, 2) + '×' if resize else '–'} | {fmt(ours / th, 2) + '×' if ours else '–'} |")
        else:
            add(f"| {titles.get(task_id, task_id)} | {total:.1f} ({floor['decode_ms']:.1f} + {enc:.1f}) | – | – | "
                f"≤ {goal:.2f}× | thumbor not measured in this run | – | – |")
    add("")
    lines.extend(render_ratio(floor, titles, ours_cpu))
    return lines


SERVICE_TARGET = 1.2  # ours ÷ floor (decode + resample + encode), CPU-ms per request


def render_ratio(floor, titles, ours_cpu):
    """Markdown lines: ours against the whole floor (decode + resample + encode) per task."""
    if "resample_ms" not in floor or not any(ours_cpu.get(t) for t, _, _ in ENCODES):
        return []
    lines = ["**Ours against the floor** (decode + resample + encode called directly, the same run): what the "
             "service adds (fetch through the address policy's proxy, HTTP, hashing, scheduling) on top of "
             f"what the request cannot avoid; target ≤ {SERVICE_TARGET:.1f}×:", "",
             "| Task | floor CPU-ms (decode + resample + encode) | ours CPU-ms | ours ÷ floor | over the floor |",
             "|---|---:|---:|---:|---:|"]
    for task_id, _, _ in ENCODES:
        enc, ours = floor.get(task_id + "_encode_ms"), ours_cpu.get(task_id)
        if enc is None or not ours:
            continue
        total = floor["decode_ms"] + floor["resample_ms"] + enc
        lines.append(f"| {titles.get(task_id, task_id)} | {total:.1f} ({floor['decode_ms']:.1f} + "
                     f"{floor['resample_ms']:.1f} + {enc:.1f}) | {ours:.1f} | **{ours / total:.2f}×** | "
                     f"{ours - total:.1f} ms |")
    lines.append("")
    return lines


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    result = measure(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 31,
                     resize_bench=sys.argv[5] if len(sys.argv) > 5 else None)
    print(json.dumps(result, indent=1))
