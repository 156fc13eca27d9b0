"""Prints what a PNG shows, for tests that look at screenshots: its width,
height, the number of distinct colours and the share of pixels that are not
the most common colour (the background).

Usage: png_stats.py FILE  ->  "WIDTH HEIGHT COLOURS INK_SHARE"

Decodes 8-bit truecolour (RGB, RGBA) and greyscale PNGs, non-interlaced,
with every row filter (what Chromium writes), using only the standard
library. Exits 2 for anything else.
"""

import struct
import sys
import zlib
from collections import Counter


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        print(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})", file=sys.stderr)
        sys.exit(2)
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    out = []
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, scan = line[0], bytearray(line[1:])
        for i in range(stride):
            left = scan[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                scan[i] = (scan[i] + left) & 0xFF
            elif kind == 2:
                scan[i] = (scan[i] + up) & 0xFF
            elif kind == 3:
                scan[i] = (scan[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                scan[i] = (scan[i] + paeth(left, up, corner)) & 0xFF
        out.append(bytes(scan))
        previous = scan
    return width, height, channels, out


def main(path):
    width, height, channels, lines = rows(path)
    colours = Counter()
    for line in lines:
        for x in range(0, len(line), channels):
            colours[line[x:x + min(channels, 3)]] += 1
    background = colours.most_common(1)[0][1]
    print(width, height, len(colours), f"{1 - background / (width * height):.4f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
