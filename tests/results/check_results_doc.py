#!/usr/bin/env python3
"""Checks that every figure of a published results document comes out of `decodeprof report`.

usage: check_results_doc.py DOC.md DECODEPROF ROOT

DOC.md names its data with one or more HTML comments `<!-- report: DIR -->` (DIR relative to
ROOT, the repository). The checker runs `DECODEPROF report --full ROOT/DIR` for each and
then requires, for every number written in the document outside code (fenced blocks and
`inline code` are exempt: commands, flags, kernel and file names live there):

  * either the same number appears in one of the reports (compared as written, e.g.
    `6.3668`, `88.73`, `-2.26`), a trailing `%` or `x`/`×` aside;
  * or it is a derived figure written with its derivation right after it,
    `8.12× (= 127.07 / 15.65)`, whose operands both appear in the reports and whose
    value, rounded as written, is the operands' quotient, product, sum or difference.

Dates (2026-11-30), version-like words (Llama-3.1-8B, sm90, H200) and numbers inside
identifiers are not figures. Prints every figure that fails and exits 1; exits 2 on usage
errors (no report declared, a report that cannot be produced).
"""
import re
import subprocess
import sys
from decimal import Decimal, ROUND_HALF_EVEN

# A number standing alone: not part of a word, a path, a date or a version string.
NUMBER = re.compile(r"(?<![\w.\-/#:<])(-?\d+(?:\.\d+)?)(?![\w/:#]|\.\d|-\w)")
DERIVED = re.compile(
    r"(?<![\w.\-/#:<])(-?\d+(?:\.\d+)?)\s*(?:%|×|x)?\s*\(=\s*(-?\d+(?:\.\d+)?)\s*([/*×+−-])\s*"
    r"(-?\d+(?:\.\d+)?)\s*\)")
REPORT = re.compile(r"<!--\s*report:\s*(\S+)\s*-->")


def strip_code(text):
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    return text


def numbers(text):
    return {m.group(1) for m in NUMBER.finditer(text)}


def same_rounded(value, written):
    places = -Decimal(written).as_tuple().exponent
    quant = Decimal(1).scaleb(-places) if places > 0 else Decimal(1)
    return Decimal(value).quantize(quant, rounding=ROUND_HALF_EVEN) == Decimal(written)


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    doc_path, decodeprof, root = argv[1:4]
    doc = open(doc_path, encoding="utf-8").read()
    dirs = REPORT.findall(doc)
    if not dirs:
        print(f"{doc_path}: declares no `<!-- report: DIR -->`", file=sys.stderr)
        return 2
    known = set()
    for d in dirs:
        run = subprocess.run([decodeprof, "report", "--full", f"{root}/{d}"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{doc_path}: decodeprof report --full {d} failed ({run.returncode}): "
                  f"{run.stderr.strip()}", file=sys.stderr)
            return 2
        known |= numbers(run.stdout.replace("`", " "))
    failures = []
    for lineno, line in enumerate(strip_code(doc).splitlines(), 1):
        derived_spans = []
        for m in DERIVED.finditer(line):
            derived_spans.append(m.span())
            result, a, op, b = m.group(1), m.group(2), m.group(3), m.group(4)
            missing = [x for x in (a, b) if x not in known]
            if missing:
                failures.append(f"line {lineno}: operands {missing} of {m.group(0)!r} are not "
                                "in the reports")
                continue
            x, y = Decimal(a), Decimal(b)
            value = {"/": lambda: x / y, "*": lambda: x * y, "×": lambda: x * y,
                     "+": lambda: x + y, "-": lambda: x - y, "−": lambda: x - y}[op]()
            if not same_rounded(value, result):
                failures.append(f"line {lineno}: {m.group(0)!r}: {a} {op} {b} = {value:.6f}, "
                                f"not {result}")
        for m in NUMBER.finditer(line):
            if any(s <= m.start() < e for s, e in derived_spans):
                continue
            if m.group(1) not in known:
                failures.append(f"line {lineno}: {m.group(1)} is not in the reports: "
                                f"{line.strip()[:120]}")
    for f in failures:
        print(f"{doc_path}: {f}")
    if failures:
        print(f"{len(failures)} figure(s) of {doc_path} do not come out of decodeprof report")
        return 1
    print(f"{doc_path}: every figure comes out of decodeprof report ({', '.join(dirs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
