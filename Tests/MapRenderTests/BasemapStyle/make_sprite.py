#!/usr/bin/env python3
"""Writes the test sprite Fixtures/sprite/sprite{,@2x}.{json,png}: a MapLibre sprite sheet (index and
image) drawn with Pillow, at pixel ratio 1 and 2. Icons: `dot` (a red disc with a white ring, 14 px),
`square` (a blue square, 12 px), `flag` (a green flag on a pole, 10x16 px, anchored by its foot in the
tests); pattern: `hatch` (8x8 px, dark diagonal lines on light yellow), `checker` (16x16 px);
`arrow` (14x10 px, a dark arrow pointing east, for icons along lines); `rail` (16x6 px, a line
pattern: black and white dashes over a grey band); `box` (a 20x12 px framed box, for
`icon-text-fit`); `sdf-disc` (24x24 px, a signed-distance field of a 7-px disc, `"sdf": true`: the
alpha falls 32 per CSS px from 192 at the edge, as MapLibre's glyph fields, for `icon-color` and
`icon-halo-*`).

usage: make_sprite.py OUT_DIR   (needs: pip install pillow)"""
import json, os, sys
from PIL import Image, ImageDraw


def draw(name, w, h, r):
    im = Image.new("RGBA", (w * r, h * r), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    if name == "dot":
        d.ellipse((0, 0, w * r - 1, h * r - 1), fill=(255, 255, 255, 255))
        d.ellipse((2 * r, 2 * r, (w - 2) * r - 1, (h - 2) * r - 1), fill=(214, 40, 40, 255))
    elif name == "square":
        d.rectangle((0, 0, w * r - 1, h * r - 1), fill=(30, 80, 200, 255))
    elif name == "flag":
        d.rectangle((0, 0, r - 1, h * r - 1), fill=(40, 40, 40, 255))
        d.rectangle((r, 0, w * r - 1, 7 * r - 1), fill=(30, 150, 60, 255))
    elif name == "hatch":
        im.paste((250, 240, 190, 255), (0, 0, w * r, h * r))
        for k in range(-h * r, w * r, 4 * r):
            d.line((k, h * r, k + h * r, 0), fill=(120, 100, 40, 255), width=r)
    elif name == "checker":
        im.paste((230, 230, 230, 255), (0, 0, w * r, h * r))
        d.rectangle((0, 0, 8 * r - 1, 8 * r - 1), fill=(150, 170, 200, 255))
        d.rectangle((8 * r, 8 * r, 16 * r - 1, 16 * r - 1), fill=(150, 170, 200, 255))
    elif name == "arrow":
        d.rectangle((0, 4 * r, 8 * r - 1, 6 * r - 1), fill=(40, 40, 40, 255))
        d.polygon([(8 * r, 0), (w * r, 5 * r), (8 * r, 10 * r)], fill=(40, 40, 40, 255))
    elif name == "rail":
        im.paste((120, 120, 120, 255), (0, 0, w * r, h * r))
        d.rectangle((0, r, 8 * r - 1, 5 * r - 1), fill=(20, 20, 20, 255))
        d.rectangle((8 * r, r, 16 * r - 1, 5 * r - 1), fill=(250, 250, 250, 255))
    elif name == "box":
        d.rectangle((0, 0, w * r - 1, h * r - 1), fill=(60, 60, 140, 255))
        d.rectangle((r, r, (w - 1) * r - 1, (h - 1) * r - 1), fill=(255, 250, 220, 255))
    elif name == "sdf-disc":
        c = w * r / 2
        for y in range(h * r):
            for x in range(w * r):
                dist = (((x + 0.5 - c) ** 2 + (y + 0.5 - c) ** 2) ** 0.5 - 7 * r) / r  # CSS px outside the disc
                a = max(0, min(255, round(192 - 32 * dist)))
                im.putpixel((x, y), (0, 0, 0, a))
    return im


ICONS = [("dot", 14, 14), ("square", 12, 12), ("flag", 10, 16), ("hatch", 8, 8), ("checker", 16, 16),
         ("arrow", 14, 10), ("rail", 16, 6), ("box", 20, 12), ("sdf-disc", 24, 24)]
SDF = {"sdf-disc"}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for r, suffix in [(1, ""), (2, "@2x")]:
        width = sum(w for _, w, _ in ICONS) * r + 2 * r * len(ICONS)
        height = max(h for _, _, h in ICONS) * r
        sheet = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        index, x = {}, 0
        for name, w, h in ICONS:
            sheet.paste(draw(name, w, h, r), (x, 0))
            index[name] = {"x": x, "y": 0, "width": w * r, "height": h * r, "pixelRatio": r}
            if name in SDF:
                index[name]["sdf"] = True
            x += w * r + 2 * r
        sheet.save(os.path.join(out, f"sprite{suffix}.png"), optimize=True)
        with open(os.path.join(out, f"sprite{suffix}.json"), "w") as f:
            json.dump(index, f, indent=1, sort_keys=True)


main()
