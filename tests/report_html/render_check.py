#!/usr/bin/env python3
"""Renders every golden HTML page of `decodeprof report --format html` in headless Chromium.

    render_check.py SOURCE_DIR OUT_DIR

The pages: tests/golden/report/html_*/expected_stdout (the CLI golden cases) and
tests/golden/report_html/*.html (the page over examples/data, check_examples_page.py). Each page
is copied to OUT_DIR/<case>.html and rendered by Debian's `chromium`, once for the screenshot
and the DOM together (each start of the browser costs about a second of CPU):

  chromium --headless --disable-gpu --no-sandbox --hide-scrollbars --enable-logging=stderr
           --v=0 --window-size=1280,4000 --screenshot=OUT_DIR/<case>.png --dump-dom
           file://OUT_DIR/<case>.html

and fails when
  * Chromium logs a console message (a line with ":CONSOLE" or "Uncaught" on stderr: a script
    error, a resource it could not load, ...) for the page;
  * the screenshot is blank: fewer than 0.5 % of its pixels are not white (a PNG decoder of the
    standard library below reads it), or it lacks the plots' colours: the host gap's orange
    (#f28e2b) or the GPU-busy blue (#4e79a7), 500 px each at least;
  * the DOM Chromium built holds another number of <svg> elements than the page's source (a plot
    the HTML parser threw away or nested wrongly).

Two self-checks run first, so that a broken check cannot pass: a page that logs a console error
and throws must be caught, and a blank page must count as blank.

DECODEPROF_CHROMIUM=PATH names the browser (then it must exist). Without it, and with no
`chromium` or `chromium-browser` on PATH, the check prints a line starting with "SKIP:" and exits 77, which CTest reports as skipped
(SKIP_RETURN_CODE). `apt-get install -y chromium` installs it; scripts/test does, and sets
DECODEPROF_REQUIRE_CHROMIUM=1, which turns the skip into a failure.
"""

import collections
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
# Tall enough for the first run's plots below the "Do first" section and the run table.
WINDOW = (1280, 4000)
HOST_GAP = (0xF2, 0x8E, 0x2B)
GPU_BUSY = (0x4E, 0x79, 0xA7)
MIN_PLOT_PIXELS = 500
MIN_INK_FRACTION = 0.005
TIMEOUT_S = 120


def find_chromium():
    explicit = os.environ.get("DECODEPROF_CHROMIUM")
    if explicit:
        if not os.access(explicit, os.X_OK):
            sys.exit(f"FAIL: DECODEPROF_CHROMIUM={explicit} is not an executable")
        return explicit
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def read_png(path):
    """(width, height, rows): rows is a list of bytes objects, 3 or 4 bytes a pixel."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError(f"{path}: no IHDR chunk")
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace != 0:
        raise ValueError(f"{path}: unsupported PNG (bit depth {depth}, colour type {color}, "
                         f"interlace {interlace}); expected 8-bit RGB or RGBA")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    # Each byte's low 7 bits added apart from its top bit, which is then added without a carry
    # out of the byte (Up is a byte-by-byte sum modulo 256; a loop over 4 MB is seconds).
    low7 = int.from_bytes(b"\x7f" * stride, "big")
    high1 = int.from_bytes(b"\x80" * stride, "big")
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:  # Up: the byte-by-byte sums, on the rows as integers
            here, up = int.from_bytes(line, "big"), int.from_bytes(previous, "big")
            line = bytearray((((here & low7) + (up & low7)) ^ ((here ^ up) & high1))
                             .to_bytes(stride, "big"))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(bpp):  # no left neighbour (a = c = 0): the predictor is b
                line[i] = (line[i] + previous[i]) & 0xFF
            for i in range(bpp, stride):
                a = line[i - bpp]
                b = previous[i]
                c = previous[i - bpp]
                # With p = a + b - c: |p - a|, |p - b|, |p - c|.
                pa = b - c
                pb = a - c
                pc = pa + pb
                if pa < 0:
                    pa = -pa
                if pb < 0:
                    pb = -pb
                if pc < 0:
                    pc = -pc
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            raise ValueError(f"{path}: row {y} has filter type {kind}")
        rows.append(bytes(line))
        previous = line
    return width, height, bpp, rows


def pixel_counts(path):
    """(pixels, not white, host-gap orange, GPU-busy blue) of the PNG at `path`."""
    width, height, bpp, rows = read_png(path)
    # The pixels of each colour counted (in C), then each colour classified: a page has a few
    # thousand colours among its 5 M pixels.
    white = b"\xff" * (width * bpp)
    data = b"".join(row for row in rows if row != white)  # white rows hold no ink
    colours = collections.Counter(zip(data[0::bpp], data[1::bpp], data[2::bpp]))
    ink = orange = blue = 0
    for (r, g, b), n in colours.items():
        if r < 245 or g < 245 or b < 245:
            ink += n
            if abs(r - HOST_GAP[0]) + abs(g - HOST_GAP[1]) + abs(b - HOST_GAP[2]) <= 12:
                orange += n
            elif abs(r - GPU_BUSY[0]) + abs(g - GPU_BUSY[1]) + abs(b - GPU_BUSY[2]) <= 12:
                blue += n
    return width * height, ink, orange, blue


def chromium(binary, profile, args, url):
    command = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
               "--no-first-run", "--no-default-browser-check", f"--user-data-dir={profile}",
               "--enable-logging=stderr", "--v=0", *args, url]
    result = subprocess.run(command, capture_output=True, text=True, errors="replace",
                            timeout=TIMEOUT_S, check=False)
    return command, result


def console_lines(stderr):
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def render(binary, profile, html, png):
    """(problems, stats) of one page."""
    url = "file://" + os.path.abspath(html)
    problems = []
    command, dom = chromium(
        binary, profile,
        [f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={png}", "--dump-dom"], url)
    if dom.returncode != 0 or not os.path.exists(png):
        problems.append(f"screenshot failed (exit {dom.returncode}): {' '.join(command)}\n"
                        + dom.stderr[-2000:])
        return problems, None
    for line in console_lines(dom.stderr):
        problems.append("console: " + line.strip())
    with open(html, encoding="utf-8") as f:
        source_svgs = len(re.findall(r"<svg[ >]", f.read()))
    dom_svgs = len(re.findall(r"<svg[ >]", dom.stdout))
    if dom.returncode != 0 or dom_svgs != source_svgs:
        problems.append(f"the DOM holds {dom_svgs} <svg> elements, the page {source_svgs} "
                        f"(--dump-dom exit {dom.returncode})")
    stats = pixel_counts(png)
    return problems, stats


def blank_or_plotless(stats):
    pixels, ink, orange, blue = stats
    reasons = []
    if ink < MIN_INK_FRACTION * pixels:
        reasons.append(f"blank: {ink} of {pixels} pixels are not white")
    if orange < MIN_PLOT_PIXELS:
        reasons.append(f"{orange} px of the host gap's orange #f28e2b (< {MIN_PLOT_PIXELS})")
    if blue < MIN_PLOT_PIXELS:
        reasons.append(f"{blue} px of the GPU-busy blue #4e79a7 (< {MIN_PLOT_PIXELS})")
    return reasons


def self_check(binary, profile, out_dir):
    bad = os.path.join(out_dir, "selftest_console.html")
    with open(bad, "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html><html><body><p>x</p><script>console.error("dp-selftest");'
                'throw new Error("dp-selftest-uncaught");</script></body></html>\n')
    problems, _ = render(binary, profile, bad, os.path.join(out_dir, "selftest_console.png"))
    if not any("dp-selftest" in p for p in problems):
        return "the console check missed a page's console.error and uncaught error"
    blank = os.path.join(out_dir, "selftest_blank.html")
    with open(blank, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><body></body></html>\n")
    problems, stats = render(binary, profile, blank, os.path.join(out_dir, "selftest_blank.png"))
    if stats is None:
        return "the blank page did not render: " + "; ".join(problems)
    if not any(r.startswith("blank") for r in blank_or_plotless(stats)):
        return f"the blank check passed a blank page ({stats})"
    return None


def pages(source_dir):
    found = []
    for path in sorted(glob.glob(os.path.join(source_dir, "tests/golden/report/html_*/expected_stdout"))):
        found.append((os.path.basename(os.path.dirname(path)), path))
    for path in sorted(glob.glob(os.path.join(source_dir, "tests/golden/report_html/*.html"))):
        found.append((os.path.splitext(os.path.basename(path))[0], path))
    return found


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source_dir, out_dir = sys.argv[1], sys.argv[2]
    binary = find_chromium()
    if binary is None and os.environ.get("DECODEPROF_REQUIRE_CHROMIUM") == "1":
        print("FAIL: chromium is not installed and DECODEPROF_REQUIRE_CHROMIUM=1 (scripts/test "
              "installs it with scripts/deps.sh)")
        return 1
    if binary is None:
        print("SKIP: chromium is not installed (apt-get install -y chromium; scripts/test "
              "installs it), so the HTML pages were not rendered")
        return SKIP
    os.makedirs(out_dir, exist_ok=True)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="dp_chromium_") as profile:
        problem = self_check(binary, profile, out_dir)
        if problem:
            print(f"FAIL self-check: {problem}")
            return 1
        cases = pages(source_dir)
        if len(cases) < 4:
            print(f"FAIL: found {len(cases)} golden HTML pages under {source_dir}, expected 4 or more")
            return 1
        for case, page in cases:
            html = os.path.join(out_dir, case + ".html")
            png = os.path.join(out_dir, case + ".png")
            shutil.copyfile(page, html)
            problems, stats = render(binary, profile, html, png)
            if stats is not None:
                problems += blank_or_plotless(stats)
            status = "FAIL" if problems else "ok"
            detail = "" if stats is None else (
                f"{stats[1]} of {stats[0]} px inked, {stats[2]} orange, {stats[3]} blue")
            print(f"{status} {case}: {png} ({detail})")
            for p in problems:
                print("    " + p)
            failures += 1 if problems else 0
    print(f"{len(cases) - failures} of {len(cases)} pages rendered cleanly with {binary}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
