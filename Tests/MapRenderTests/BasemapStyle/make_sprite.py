#!/usr/bin/env python3
"""Writes the test sprite Fixtures/sprite/sprite{,@2x}.{json,png}: a MapLibre sprite sheet (index and
image) drawn with Pillow, at pixel ratio 1 and 2. Icons: `dot` (a red disc with a white ring, 14 px),
`square` (a blue square, 12 px), `flag` (a green flag on a pole, 10x16 px, anchored by its foot in the
tests); pattern: `hatch` (8x8 px, dark diagonal lines on light yellow), `checker` (16x16 px).

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
    return im


ICONS = [("dot", 14, 14), ("square", 12, 12), ("flag", 10, 16), ("hatch", 8, 8), ("checker", 16, 16)]


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
            x += w * r + 2 * r
        sheet.save(os.path.join(out, f"sprite{suffix}.png"), optimize=True)
        with open(os.path.join(out, f"sprite{suffix}.json"), "w") as f:
            json.dump(index, f, indent=1, sort_keys=True)


main()
