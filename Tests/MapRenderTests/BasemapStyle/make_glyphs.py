#!/usr/bin/env python3
"""Writes MapLibre glyph PBFs (signed distance fields, as node-fontnik makes them) for the pinned
DejaVu Sans, so MapLibre Native (pymgl) can draw a style's labels offline, for a side-by-side look.

usage: make_glyphs.py OUT_DIR FONTSTACK=FONTFILE ...   e.g. "Noto Sans Regular=/usr/share/fonts/.../DejaVuSans.ttf"

Writes OUT_DIR/FONTSTACK/0-255.pbf ... 1024-1279.pbf. Glyphs are drawn at 24 px (MapLibre's glyph
size) with a 3 px border; each value is 192 at the outline, +/- 255/8 per pixel inside/outside."""
import os, sys
import numpy as np
from PIL import Image, ImageDraw, ImageFont

SIZE, BUFFER, RADIUS, CUTOFF, OVERSAMPLE = 24, 3, 8, 0.25, 4


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(n, wire, payload):
    key = varint(n << 3 | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def zz(v):
    return (v << 1) ^ (v >> 31)


def glyph(font_big, font, code):
    ch = chr(code)
    advance = int(round(font.getlength(ch)))
    bbox = font_big.getbbox(ch, anchor="ls")  # left, top, right, bottom from the baseline at OVERSAMPLE x
    if bbox[2] <= bbox[0] or bbox[3] <= bbox[1]:
        return field(1, 0, code) + field(3, 0, 0) + field(4, 0, 0) + field(5, 0, 0) + field(6, 0, zz(-SIZE)) + field(7, 0, advance)
    left = int(np.floor(bbox[0] / OVERSAMPLE)); top = int(np.floor(bbox[1] / OVERSAMPLE))
    right = int(np.ceil(bbox[2] / OVERSAMPLE)); bottom = int(np.ceil(bbox[3] / OVERSAMPLE))
    w, h = right - left, bottom - top
    W, H = (w + 2 * BUFFER) * OVERSAMPLE, (h + 2 * BUFFER) * OVERSAMPLE
    img = Image.new("L", (W, H), 0)
    ImageDraw.Draw(img).text(((BUFFER - left) * OVERSAMPLE, (BUFFER - top) * OVERSAMPLE), ch, font=font_big, fill=255, anchor="ls")
    inside = np.array(img) >= 128
    edge = inside ^ np.roll(inside, 1, 0) | inside ^ np.roll(inside, 1, 1)
    ey, ex = np.nonzero(edge)
    ys, xs = np.mgrid[0:h + 2 * BUFFER, 0:w + 2 * BUFFER]
    cy, cx = (ys + 0.5) * OVERSAMPLE, (xs + 0.5) * OVERSAMPLE
    if len(ex):
        d = np.sqrt((cx[..., None] - ex) ** 2 + (cy[..., None] - ey) ** 2).min(-1) / OVERSAMPLE
    else:
        d = np.full(cx.shape, float(RADIUS))
    sign = np.where(inside[np.clip(cy.astype(int), 0, H - 1), np.clip(cx.astype(int), 0, W - 1)], -1, 1)
    value = np.clip(255 - 255 * (sign * d / RADIUS + CUTOFF), 0, 255).astype(np.uint8)
    # MapLibre's top: the glyph's top relative to the 24-px box's ascender line, as fontnik writes it.
    ascender = font.getmetrics()[0]
    return (field(1, 0, code) + field(2, 2, value.tobytes()) + field(3, 0, w) + field(4, 0, h)
            + field(5, 0, zz(left)) + field(6, 0, zz(-top - ascender)) + field(7, 0, advance))


def main():
    out = sys.argv[1]
    for spec in sys.argv[2:]:
        name, path = spec.split("=", 1)
        font = ImageFont.truetype(path, SIZE, layout_engine=ImageFont.Layout.BASIC)
        font_big = ImageFont.truetype(path, SIZE * OVERSAMPLE, layout_engine=ImageFont.Layout.BASIC)
        os.makedirs(os.path.join(out, name), exist_ok=True)
        for start in range(0, 1280, 256):  # Latin, Latin Extended, Greek, Cyrillic
            rng = f"{start}-{start + 255}"
            glyphs = b"".join(field(3, 2, glyph(font_big, font, c)) for c in range(max(start, 32), start + 256)
                              if not 0x7F <= c < 0xA0)
            stack = field(1, 2, name.encode()) + field(2, 2, rng.encode()) + glyphs
            with open(os.path.join(out, name, rng + ".pbf"), "wb") as f:
                f.write(field(1, 2, stack))


if __name__ == "__main__":
    main()
