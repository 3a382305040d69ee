#!/usr/bin/env python3
"""Gain-map test inputs and checks, through libultrahdr (imagecodecs' ultrahdr codec).

  gainmap-fixtures.py make DIR     writes Ultra HDR JPEGs into DIR (printed, one a line)
  gainmap-fixtures.py render FILE  writes libultrahdr's HDR rendition of FILE (linear float32
                                   RGB, full boost) to FILE.rgbf
  gainmap-fixtures.py encode FILE W H SCALE
                                   libultrahdr's own Ultra HDR JPEG (its default settings, map
                                   at 1/SCALE) of the linear float32 RGB HDR picture in FILE
                                   (W×H, BT.709, 1.0 = SDR white), written to FILE.jpg
  gainmap-fixtures.py check FILE   decodes FILE with libultrahdr and prints JSON: the HDR
                                   rendition's size, the gain-map image's size and component
                                   count, and its ISO 21496-1 block and hdrgm XMP in hex

`make` writes libultrahdr's own output (map scale 1 and 1/4, three-component maps) and variants
re-assembled here from its parts: a one-component (grey) map with non-default gamma and offsets
in both metadata forms, metadata in Ultra HDR 1.0 XMP alone, and three-channel metadata in
ISO 21496-1 alone.
"""
import json
import struct
import sys

import imagecodecs
import numpy as np

ISO = b"urn:iso:std:iso:ts:21496:-1\x00"
XMP = b"http://ns.adobe.com/xap/1.0/\x00"
MPF = b"MPF\x00"


def segments(d, start):
    """(marker, payload start, payload end) of the header segments of the JPEG at start."""
    out, i = [], start + 2
    while i + 4 <= len(d) and d[i] == 0xFF:
        m = d[i + 1]
        if m == 0xDA:
            break
        n = d[i + 2] << 8 | d[i + 3]
        out.append((m, i + 4, i + 2 + n))
        i += 2 + n
    return out


def split(d):
    """The primary and the gain-map JPEG of an MPF file (from its MPF index)."""
    for m, a, b in segments(d, 0):
        if m == 0xE2 and d[a:a + 4] == MPF:
            t = a + 4
            big = d[t:t + 2] == b"MM"
            e = ">" if big else "<"
            ifd = struct.unpack(e + "I", d[t + 4:t + 8])[0]
            n = struct.unpack(e + "H", d[t + ifd:t + ifd + 2])[0]
            for k in range(n):
                tag, typ, cnt, val = struct.unpack(e + "HHII", d[t + ifd + 2 + 12 * k:t + ifd + 14 + 12 * k])
                if tag == 0xB002:
                    size, off = struct.unpack(e + "II", d[t + val + 20:t + val + 28])
                    return d[:t + off], d[t + off:t + off + size]
    raise SystemExit("no MPF index")


def strip(jpeg):
    """The JPEG without its APP1/APP2 metadata segments (everything else kept)."""
    keep, i = bytearray(jpeg[:2]), 2
    for m, a, b in segments(jpeg, 0):
        if not (m == 0xE1 and jpeg[a:a + len(XMP)] == XMP) and not (m == 0xE2 and jpeg[a:a + len(ISO)] in (ISO,)) \
                and not (m == 0xE2 and jpeg[a:a + 4] == MPF):
            keep += jpeg[a - 4:b]
        i = b
    keep += jpeg[i:]
    return bytes(keep)


def seg(marker, name, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", 2 + len(name) + len(payload)) + name + payload


def frac(v, signed):
    d = 1 << 20
    return struct.pack(">iI" if signed else ">II", int(round(v * d)), d)


def iso_block(ch, base=0.0, alt=2.0):
    flags = 0x80 if len(ch) == 3 else 0
    out = struct.pack(">HHB", 0, 0, flags) + frac(base, False) + frac(alt, False)
    for mn, mx, g, os, oh in ch:
        out += frac(mn, True) + frac(mx, True) + frac(g, False) + frac(os, True) + frac(oh, True)
    return out


def xmp_map(ch, base=0.0, alt=2.0):
    def val(i):
        vals = [c[i] for c in ch]
        if len(vals) == 1:
            return None, repr(vals[0])
        return "<rdf:Seq>" + "".join(f"<rdf:li>{v!r}</rdf:li>" for v in vals) + "</rdf:Seq>", None
    names = ["GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR"]
    attrs, elems = "", ""
    for i, name in enumerate(names):
        seq, one = val(i)
        if one is not None:
            attrs += f' hdrgm:{name}="{one}"'
        else:
            elems += f"<hdrgm:{name}>{seq}</hdrgm:{name}>"
    return (f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            f'<rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"'
            f' hdrgm:HDRCapacityMin="{base!r}" hdrgm:HDRCapacityMax="{alt!r}" hdrgm:BaseRenditionIsHDR="False"{attrs}>'
            f"{elems}</rdf:Description></rdf:RDF></x:xmpmeta>").encode()


def xmp_primary(length):
    return (f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            f'<rdf:Description rdf:about="" xmlns:Container="http://ns.google.com/photos/1.0/container/"'
            f' xmlns:Item="http://ns.google.com/photos/1.0/container/item/"'
            f' xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"><Container:Directory><rdf:Seq>'
            f'<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>'
            f'<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg"'
            f' Item:Length="{length}"/></rdf:li></rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>').encode()


def assemble(primary, gainmap, ch, iso=True, xmp=True):
    """An Ultra HDR / ISO 21496-1 file from a plain primary and gain-map JPEG."""
    map_meta = (seg(0xE1, XMP, xmp_map(ch)) if xmp else b"") + (seg(0xE2, ISO, iso_block(ch)) if iso else b"")
    secondary = gainmap[:2] + map_meta + gainmap[2:]
    head = (seg(0xE1, XMP, xmp_primary(len(secondary))) if xmp else b"") + (seg(0xE2, ISO, b"\0\0\0\0") if iso else b"")
    mpf_len = 4 + 4 + 8 + 2 + 3 * 12 + 4 + 32
    primary_size = len(primary) + len(head) + mpf_len
    tiff = 2 + len(head) + 4 + 4
    entries = struct.pack(">IIIHH", 0x030000, primary_size, 0, 0, 0) + struct.pack(">IIIHH", 0, len(secondary), primary_size - tiff, 0, 0)
    ifd = struct.pack(">H", 3) + struct.pack(">HHI4s", 0xB000, 7, 4, b"0100") + struct.pack(">HHII", 0xB001, 4, 1, 2) \
        + struct.pack(">HHII", 0xB002, 7, 32, 8 + 2 + 36 + 4) + struct.pack(">I", 0)
    mpf = seg(0xE2, MPF, b"MM\x00\x2a" + struct.pack(">I", 8) + ifd + entries)
    assert len(mpf) == mpf_len
    return primary[:2] + head + mpf + primary[2:] + secondary


def hdr_picture(h, w):
    y, x = np.mgrid[0:h, 0:w]
    img = np.zeros((h, w, 4), np.float16)
    img[..., 0] = 0.05 + (x / w) * 3.5
    img[..., 1] = 0.05 + (y / h) * 2.5
    img[..., 2] = 0.3 + 0.2 * np.sin(x / 17.0) + 0.6 * ((x // 40 + y // 40) % 2)
    img[..., 3] = 1
    return img


def make(out):
    img = hdr_picture(600, 800)
    files = {}
    for scale in (1, 4):
        files[f"uhdr-scale{scale}.jpg"] = imagecodecs.ultrahdr_encode(img, scale=scale)
    primary, gainmap = split(files["uhdr-scale4.jpg"])
    primary, gainmap = strip(primary), strip(gainmap)
    luma = imagecodecs.jpeg8_decode(gainmap)
    grey = imagecodecs.jpeg8_encode(np.ascontiguousarray(luma[..., 1]), level=90)
    # (min, max, gamma, offset SDR, offset HDR) per channel.
    files["grey-gamma-both.jpg"] = assemble(primary, grey, [(-0.5, 2.0, 2.2, 0.03125, 0.0625)])
    # libultrahdr reads single values from XMP only (no rdf:Seq), so this one has one channel.
    files["xmp-only.jpg"] = assemble(primary, gainmap, [(-0.25, 1.8, 0.5, 0.02, 0.04)], iso=False)
    files["multi-iso-only.jpg"] = assemble(
        primary, gainmap, [(0.0, 1.9, 1.0, 0.015625, 0.015625), (-0.25, 2.0, 0.8, 0.02, 0.01), (0.1, 1.5, 1.5, 0.0, 0.03)], xmp=False)
    for name, data in files.items():
        with open(f"{out}/{name}", "wb") as f:
            f.write(data)
        print(name)


def check(path):
    d = open(path, "rb").read()
    hdr = imagecodecs.ultrahdr_decode(d)
    primary, gainmap = split(d)
    meta = {"iso": None, "xmp": None}
    for m, a, b in segments(gainmap, 0):
        if m == 0xE2 and gainmap[a:a + len(ISO)] == ISO:
            meta["iso"] = gainmap[a + len(ISO):b].hex()
        if m == 0xE1 and gainmap[a:a + len(XMP)] == XMP:
            meta["xmp"] = gainmap[a + len(XMP):b].hex()
    for m, a, b in segments(gainmap, 0):
        if m in (0xC0, 0xC1, 0xC2):
            h, w, comps = struct.unpack(">HHB", gainmap[a + 1:a + 6])
    print(json.dumps({"hdr_width": int(hdr.shape[1]), "hdr_height": int(hdr.shape[0]),
                      "map_width": w, "map_height": h, "map_components": comps,
                      "hdr_finite": bool(np.isfinite(hdr.astype(np.float32)).all()), **meta}))


def render(path):
    """libultrahdr's HDR rendition of FILE (linear, full boost) as float32 RGB to FILE.rgbf."""
    hdr = imagecodecs.ultrahdr_decode(open(path, "rb").read()).astype(np.float32)[..., :3]
    hdr.tofile(path + ".rgbf")
    print(json.dumps({"width": int(hdr.shape[1]), "height": int(hdr.shape[0])}))


def encode(path, width, height, scale):
    """libultrahdr's encode of an HDR-only input (half-float linear RGBA, BT.709) to FILE.jpg."""
    w, h = int(width), int(height)
    rgb = np.fromfile(path, np.float32).reshape(h, w, 3)
    rgba = np.ones((h, w, 4), np.float16)
    rgba[..., :3] = rgb
    with open(path + ".jpg", "wb") as f:
        f.write(imagecodecs.ultrahdr_encode(rgba, scale=int(scale)))


if __name__ == "__main__":
    {"make": make, "check": check, "render": render, "encode": encode}[sys.argv[1]](*sys.argv[2:])
