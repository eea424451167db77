#!/usr/bin/env python3
"""Compares decodeprof's summarize outputs for one run with seed_summarize.py's.

Usage: compare_outputs.py ORACLE_DIR DECODEPROF_DIR NAME

Three checks, each printing the first differing lines:
  json  decodeprof's <NAME>_summary.json parsed, minus decodeprof's documented extra keys
        (top level: decode_forward_passes, pack, units_file, warnings, trace_format, trace_file, device,
        diagnostics, window_source, window_evidence, plain_runs, ranked_units; inside each
        port_units entry: the reached_optin_* fields other than reached_optin_share_pct),
        re-serialized with json.dumps(indent=2) + "\\n", equals the oracle's text;
  raw   decodeprof's original text with the spans of those extra members cut out equals the
        oracle's text byte for byte (so float spellings such as 1.0 vs 1 or 1e-05 are checked
        as written, not as parsed);
  csv   <NAME>_decode_kernels.csv is byte-identical.
Strings the spec does not quote verbatim (seed_summarize.UNSPECIFIED_TEXTS: port
descriptions and some reach notes) may differ: such a difference is printed as NOTE and the
oracle's text is substituted before the checks. Exit status 0 when all checks pass, 1 if not.
"""

import difflib
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_summarize  # noqa: E402

EXTRA_TOP = ("decode_forward_passes", "pack", "units_file", "warnings", "trace_format",
             "trace_file", "device", "diagnostics", "window_source", "window_evidence", "plain_runs", "ranked_units")
SEED_OPTIN_KEY = "reached_optin_share_pct"


def is_extra_unit_key(key):
    return key.startswith("reached_optin_") and key != SEED_OPTIN_KEY


# ---------------------------------------------------------------------------------------
# A position-keeping JSON walker: objects become lists of members
# (key, key_start, value_start, value_end, child); arrays lists of (start, end, child).
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _ws(s, i):
    return _WS.match(s, i).end()


def walk(s, i):
    """Returns (child, end) for the JSON value starting at s[i] (no leading whitespace)."""
    ch = s[i]
    if ch == "{":
        members = []
        i = _ws(s, i + 1)
        if s[i] == "}":
            return members, i + 1
        while True:
            key_start = i
            key, i = json.decoder.scanstring(s, i + 1)
            i = _ws(s, i)
            if s[i] != ":":
                raise ValueError(f"expected ':' at offset {i}")
            value_start = _ws(s, i + 1)
            child, value_end = walk(s, value_start)
            members.append((key, key_start, value_start, value_end, child))
            i = _ws(s, value_end)
            if s[i] == "}":
                return members, i + 1
            if s[i] != ",":
                raise ValueError(f"expected ',' or '}}' at offset {i}")
            i = _ws(s, i + 1)
    if ch == "[":
        items = []
        i = _ws(s, i + 1)
        if s[i] == "]":
            return items, i + 1
        while True:
            start = i
            child, i = walk(s, i)
            items.append((start, i, child))
            i = _ws(s, i)
            if s[i] == "]":
                return items, i + 1
            if s[i] != ",":
                raise ValueError(f"expected ',' or ']' at offset {i}")
            i = _ws(s, i + 1)
    if ch == '"':
        _, end = json.decoder.scanstring(s, i + 1)
        return None, end
    for literal in ("true", "false", "null"):
        if s.startswith(literal, i):
            return None, i + len(literal)
    m = _NUMBER.match(s, i)
    if not m:
        raise ValueError(f"unexpected character {ch!r} at offset {i}")
    return None, m.end()


def _deletion_span(members, k):
    """The text span that removes member k and one separating comma."""
    if k > 0:
        return (members[k - 1][3], members[k][3])
    if len(members) > 1:
        return (members[k][1], members[k + 1][1])
    return (members[k][1], members[k][3])


# ---------------------------------------------------------------------------------------
def first_diff(label, expected, actual, context=3, limit=40):
    lines = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                      f"seed ({label})", f"decodeprof ({label})",
                                      n=context, lineterm=""))
    out = lines[:limit]
    if len(lines) > limit:
        out.append(f"... ({len(lines) - limit} more diff lines)")
    return "\n".join("    " + line for line in out)


def compare(oracle_dir, dp_dir, name):
    failures = []
    notes = []
    oracle_json_path = os.path.join(oracle_dir, f"{name}_summary.json")
    dp_json_path = os.path.join(dp_dir, f"{name}_summary.json")
    with open(oracle_json_path, encoding="utf-8") as f:
        oracle_text = f.read()
    with open(dp_json_path, encoding="utf-8") as f:
        dp_text = f.read()
    oracle = json.loads(oracle_text)
    dp = json.loads(dp_text)

    # Spans to cut from / replace in decodeprof's raw text, and the parsed copy to reduce.
    edits = []  # (start, end, replacement)
    top, end = walk(dp_text, _ws(dp_text, 0))
    info = {k: dp[k] for k in EXTRA_TOP if k in dp}
    for k, member in enumerate(top):
        if member[0] in EXTRA_TOP:
            start, stop = _deletion_span(top, k)
            edits.append((start, stop, ""))
            del dp[member[0]]
    units_member = next((m for m in top if m[0] == "port_units"), None)
    if units_member is not None and isinstance(dp.get("port_units"), dict):
        for unit_member in units_member[4] or []:
            unit = unit_member[0]
            entry_members = unit_member[4] or []
            dp_entry = dp["port_units"][unit]
            oracle_entry = (oracle.get("port_units") or {}).get(unit, {})
            for k, member in enumerate(entry_members):
                key = member[0]
                if is_extra_unit_key(key):
                    start, stop = _deletion_span(entry_members, k)
                    edits.append((start, stop, ""))
                    del dp_entry[key]
                elif (key in ("port", "note") and isinstance(dp_entry.get(key), str)
                      and oracle_entry.get(key) in seed_summarize.UNSPECIFIED_TEXTS
                      and dp_entry[key] != oracle_entry[key]):
                    notes.append(f"port_units.{unit}.{key}: spec gives no verbatim text; seed "
                                 f"reading {oracle_entry[key]!r}, decodeprof "
                                 f"{dp_entry[key]!r}")
                    dp_entry[key] = oracle_entry[key]
                    edits.append((member[2], member[3], json.dumps(oracle_entry[key])))
    reserialized = json.dumps(dp, indent=2) + "\n"
    if reserialized != oracle_text:
        failures.append("json: values or key order differ\n" +
                        first_diff("json", oracle_text, reserialized))
    raw = dp_text
    for start, stop, replacement in sorted(edits, reverse=True):
        raw = raw[:start] + replacement + raw[stop:]
    if raw != oracle_text:
        failures.append("raw: decodeprof's text (extra keys cut) differs from the seed's\n" +
                        first_diff("raw text", oracle_text, raw))

    with open(os.path.join(oracle_dir, f"{name}_decode_kernels.csv"), "rb") as f:
        oracle_csv = f.read()
    with open(os.path.join(dp_dir, f"{name}_decode_kernels.csv"), "rb") as f:
        dp_csv = f.read()
    if oracle_csv != dp_csv:
        failures.append("csv: decode kernel CSV differs\n" + first_diff(
            "csv", oracle_csv.decode("utf-8", "replace").replace("\r\n", "<CRLF>\n"),
            dp_csv.decode("utf-8", "replace").replace("\r\n", "<CRLF>\n")))
    return failures, notes, info


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: compare_outputs.py ORACLE_DIR DECODEPROF_DIR NAME")
    try:
        failures, notes, info = compare(argv[1], argv[2], argv[3])
    except (OSError, ValueError) as e:
        print(f"  error: {e}")
        return 1
    for note in notes:
        print(f"  NOTE {note}")
    if info.get("warnings"):
        print(f"  INFO decodeprof warnings: {json.dumps(info['warnings'])}")
    for failure in failures:
        print(f"  {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
