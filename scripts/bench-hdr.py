"""`make bench-hdr`: a 12 MP Ultra HDR JPEG (made here by libultrahdr) to a 500 px thumbnail.

usage: bench-hdr.py BENCH_BINARY CORPUS WORKDIR ROUNDS ITERATIONS

1. Input: the corpus photo sdwebimage/TestImageLarge.jpg resized to 4000x3000 (libvips),
   linearised, its highlights lifted to 4x SDR white, and encoded by libultrahdr
   (imagecodecs.ultrahdr_encode, gain map at 1/4); the same primary JPEG with the map and its
   metadata stripped is the "without" input.
2. CPU time per thumbnail (fit 500x500, JPEG q80): ours with the map, ours without (both in
   webimage-bench hdr-thumbnail, alternating), and libvips' thumbnail_buffer + jpegsave_buffer
   (VIPS_CONCURRENCY=1) on the gain-map input; ROUNDS rounds, each running ITERATIONS of every
   contender in turn; the medians of all runs.
3. Writing a gain-map JPEG from HDR pixels, from the same 4000x3000 HDR picture at map scale
   1/4 and quality 95 (base and map): ours (webimage-bench hdr-encode: RGBA16 PQ, CICP 1/16, a
   one- and a three-channel map) against libultrahdr's encoder from an HDR-only input
   (imagecodecs.ultrahdr_encode; linear half-float RGBA, and packed RGBA1010102 PQ; its default
   three-channel map; for an HDR-only input libultrahdr 1.4 computes the map in one pass whatever
   its speed preset, so the preset is left alone); CPU ms per encode, interleaved as above, medians; then each file's HDR
   rendition (libultrahdr's decode) against the source box-averaged 8x8, PSNR in the PQ domain.
4. Quality: the HDR renditions (libultrahdr's decode, linear half float, 1.0 = SDR white) of our
   thumbnail and of libvips' against the source's rendition box-averaged 8x8 in linear light;
   PSNR over R, G, B in the PQ domain (1.0 = 203 cd/m2). And our thumbnail's SDR base against
   our plain thumbnail's (8-bit PSNR).
"""
import importlib.util
import json
import os
import subprocess
import sys
import time

import imagecodecs
import numpy as np

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import pyvips  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fixtures", os.path.join(HERE, "gainmap-fixtures.py"))
fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixtures)

WIDTH, HEIGHT, BOX = 4000, 3000, 500
MAP_SCALE, ENCODE_QUALITY = 4, 95


def make_inputs(corpus, work):
    photo = pyvips.Image.new_from_file(os.path.join(corpus, "sdwebimage/TestImageLarge.jpg"))
    photo = photo.thumbnail_image(WIDTH, height=HEIGHT, size="force")
    rgb = np.ndarray(buffer=photo.write_to_memory(), dtype=np.uint8, shape=(HEIGHT, WIDTH, photo.bands))[..., :3]
    v = rgb.astype(np.float32) / 255
    linear = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    luma = linear @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    lift = 1 + 3 * np.clip((luma - 0.5) / 0.5, 0, 1) ** 2
    hdr = np.ones((HEIGHT, WIDTH, 4), np.float16)
    hdr[..., :3] = (linear * lift[..., None]).astype(np.float16)
    with_map = imagecodecs.ultrahdr_encode(hdr, scale=4)
    primary, _ = fixtures.split(with_map)
    without = fixtures.strip(primary)
    paths = os.path.join(work, "uhdr-12mp.jpg"), os.path.join(work, "plain-12mp.jpg")
    for path, data in zip(paths, (with_map, without)):
        with open(path, "wb") as f:
            f.write(data)
    return paths, hdr


def make_encode_inputs(hdr, work):
    """The HDR picture as ours reads it (RGBA16 PQ, host-endian, written to a file) and as
    libultrahdr reads it (linear half float as given; packed RGBA1010102 PQ)."""
    signal = pq(hdr[..., :3])
    rgba16 = np.full((HEIGHT, WIDTH, 4), 65535, np.uint16)
    rgba16[..., :3] = np.round(signal * 65535).astype(np.uint16)
    raw = os.path.join(work, "hdr-12mp-pq.rgba16")
    rgba16.astype("=u2").tofile(raw)
    codes = np.round(signal * 1023).astype(np.uint32)
    packed = codes[..., 0] | codes[..., 1] << 10 | codes[..., 2] << 20 | np.uint32(3) << 30
    return raw, np.ascontiguousarray(packed)


def uhdr_linear(hdr):
    return imagecodecs.ultrahdr_encode(hdr, level=ENCODE_QUALITY, scale=MAP_SCALE)


def uhdr_pq(packed):
    return imagecodecs.ultrahdr_encode(packed, level=ENCODE_QUALITY, scale=MAP_SCALE,
                                       gamut=imagecodecs.ULTRAHDR.CG.BT_709, transfer=imagecodecs.ULTRAHDR.CT.PQ)


def box8(linear):
    return linear.astype(np.float64)[..., :3].reshape(HEIGHT // 8, 8, WIDTH // 8, 8, 3).mean(axis=(1, 3))


def vips_thumbnail(data):
    return pyvips.Image.thumbnail_buffer(data, BOX).jpegsave_buffer(Q=80)


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def pq(linear):
    y = np.clip(linear.astype(np.float64), 0, None) * 203 / 10000
    m1, m2, c1, c2, c3 = 0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875
    p = y ** m1
    return ((c1 + c2 * p) / (1 + c3 * p)) ** m2


def psnr(a, b, peak=1.0):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(peak * peak / mse)


def main():
    bench, corpus, work, rounds, iterations = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    os.makedirs(work, exist_ok=True)
    (with_path, without_path), hdr = make_inputs(corpus, work)
    source = open(with_path, "rb").read()
    ours_map, ours_plain, vips = [], [], []
    vips_out = vips_thumbnail(source)  # warm-up
    for _ in range(rounds):
        out = subprocess.run([bench, "hdr-thumbnail", with_path, without_path, str(iterations), str(BOX), work],
                             check=True, capture_output=True, text=True).stdout
        fields = dict(part.split("=", 1) for part in out.split())
        ours_map += [float(x) for x in fields["with_cpu_ms"].split(",")]
        ours_plain += [float(x) for x in fields["without_cpu_ms"].split(",")]
        for _ in range(iterations):
            start = time.process_time()
            vips_out = vips_thumbnail(source)
            vips.append((time.process_time() - start) * 1000)
    with open(os.path.join(work, "vips-map.jpg"), "wb") as f:
        f.write(vips_out)

    raw, packed = make_encode_inputs(hdr, work)
    encoders = {"ours_c1": [], "ours_c3": [], "uhdr_linear": [], "uhdr_pq": []}
    files = {"uhdr_linear": uhdr_linear(hdr), "uhdr_pq": uhdr_pq(packed)}  # warm-up
    for _ in range(rounds):
        out = subprocess.run([bench, "hdr-encode", raw, str(WIDTH), str(HEIGHT), str(MAP_SCALE), "1,3",
                              str(ENCODE_QUALITY), str(iterations), work], check=True, capture_output=True, text=True).stdout
        fields = dict(part.split("=", 1) for part in out.split())
        encoders["ours_c1"] += [float(x) for x in fields["c1_cpu_ms"].split(",")]
        encoders["ours_c3"] += [float(x) for x in fields["c3_cpu_ms"].split(",")]
        for name, encode, source_pixels in (("uhdr_linear", uhdr_linear, hdr), ("uhdr_pq", uhdr_pq, packed)):
            for _ in range(iterations):
                start = time.process_time()
                files[name] = encode(source_pixels)
                encoders[name].append((time.process_time() - start) * 1000)
    for count in (1, 3):
        files[f"ours_c{count}"] = open(os.path.join(work, f"ours-encode-c{count}.jpg"), "rb").read()
    source_box = box8(hdr)
    encode_psnr = {}
    for name, data in files.items():
        try:
            rendition = imagecodecs.ultrahdr_decode(data)
            encode_psnr[name] = round(psnr(pq(box8(rendition)), pq(source_box)), 2)
        except Exception as error:
            encode_psnr[name] = f"not read: {error}"

    ours_jpeg = open(os.path.join(work, "ours-map.jpg"), "rb").read()
    plain_jpeg = open(os.path.join(work, "ours-plain.jpg"), "rb").read()
    reference = imagecodecs.ultrahdr_decode(source).astype(np.float64)[..., :3]
    reference = reference.reshape(HEIGHT // 8, 8, WIDTH // 8, 8, 3).mean(axis=(1, 3))
    result = {}
    for name, data in (("ours", ours_jpeg), ("libvips", vips_out)):
        try:
            hdr = imagecodecs.ultrahdr_decode(data).astype(np.float64)[..., :3]
        except Exception as error:  # libvips' output without a map, say
            result[name + "_psnr_pq_db"] = f"no HDR rendition: {error}"
            continue
        if hdr.shape != reference.shape:
            result[name + "_psnr_pq_db"] = f"size {hdr.shape[1]}x{hdr.shape[0]}"
            continue
        result[name + "_psnr_pq_db"] = round(psnr(pq(hdr), pq(reference)), 2)
    base = imagecodecs.jpeg8_decode(fixtures.split(ours_jpeg)[0])[..., :3]
    plain = imagecodecs.jpeg8_decode(plain_jpeg)[..., :3]
    db = psnr(base, plain, 255.0)
    result["sdr_base_vs_plain_db"] = "identical" if db == float("inf") else round(db, 2)
    om, op, vm = median(ours_map), median(ours_plain), median(vips)
    print(f"== 4000x3000 Ultra HDR JPEG (map 1000x750) -> fit {BOX}x{BOX}, JPEG q80; {rounds} rounds x {iterations}, "
          f"interleaved; CPU ms medians (libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}, VIPS_CONCURRENCY=1)")
    print(f"  ours, gain map kept     {om:8.1f}")
    print(f"  ours, same JPEG no map  {op:8.1f}   ratio {om / op:.2f}x (target <= 1.3x)")
    print(f"  libvips thumbnail       {vm:8.1f}   ours/libvips {om / vm:.2f}x")
    print("== quality: HDR rendition PSNR (PQ domain) vs the source's, box-averaged in linear light")
    print(f"  ours {result['ours_psnr_pq_db']} dB, libvips {result['libvips_psnr_pq_db']} dB")
    db_text = result["sdr_base_vs_plain_db"]
    print(f"  our SDR base vs our plain thumbnail: {db_text}{'' if db_text == 'identical' else ' dB'} (target >= 44 dB)")
    print(f"== writing a gain-map JPEG from the 4000x3000 HDR picture, map 1/{MAP_SCALE}, quality {ENCODE_QUALITY}; "
          f"{rounds} rounds x {iterations}, interleaved; CPU ms medians ({imagecodecs.ultrahdr_version()}); "
          "PSNR: libultrahdr's reading of each file vs the source, 8x8 boxes, PQ domain")
    labels = {"ours_c1": "ours, RGBA16 PQ, 1-channel map", "ours_c3": "ours, RGBA16 PQ, 3-channel map",
              "uhdr_linear": "libultrahdr, linear half float", "uhdr_pq": "libultrahdr, RGBA1010102 PQ"}
    medians = {name: median(values) for name, values in encoders.items()}
    for name, label in labels.items():
        print(f"  {label:32s} {medians[name]:8.1f}   {len(files[name]) / 1e6:.2f} MB   {encode_psnr[name]} dB")
    print(json.dumps({"ours_map_ms": om, "ours_plain_ms": op, "vips_ms": vm, **result,
                      "encode_ms": medians, "encode_bytes": {k: len(v) for k, v in files.items()},
                      "encode_psnr_pq_db": encode_psnr}))


if __name__ == "__main__":
    main()
