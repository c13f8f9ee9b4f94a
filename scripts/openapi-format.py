#!/usr/bin/env python3
"""openapi-format.py - keeps Sources/App/openapi.json (docs/openapi.json) in its one layout.

The API document is JSON, which is also YAML 1.2, so the server serves the file as it is at
/openapi.json and /openapi.yaml. To stay readable it is laid out one way: two-space indentation,
members in the order written (never sorted), and an object or array on one line when that line fits in
120 columns. This script rewrites the file in that layout (after an edit by hand, or after pasting in
members converted from YAML); `--check` only says whether it is already so (exit 1 when not), as
scripts/api-conformance.sh runs it. Standard library only.
"""

import json
import pathlib
import sys

DOCUMENT = pathlib.Path(__file__).resolve().parent.parent / "Sources/App/openapi.json"
WIDTH = 120


def _inline(value):
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _emit(value, indent, used):
    """`value` laid out at `indent` spaces, `used` columns of the line already taken."""
    if isinstance(value, (dict, list)) and value:
        one_line = _inline(value)
        if used + len(one_line) + 1 <= WIDTH:
            return one_line
        pad = " " * (indent + 2)
        if isinstance(value, dict):
            items = []
            for key, item in value.items():
                name = json.dumps(key, ensure_ascii=False) + ": "
                items.append(pad + name + _emit(item, indent + 2, len(pad) + len(name)))
            return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
        items = [pad + _emit(item, indent + 2, len(pad)) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return _inline(value)


def layout(document):
    """The text of `document` in the house layout."""
    return _emit(document, 0, 0) + "\n"


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        sys.exit("usage: openapi-format.py [--check]")
    text = DOCUMENT.read_text(encoding="utf-8")
    try:
        document = json.loads(text, object_pairs_hook=_no_duplicates)
    except ValueError as error:
        sys.exit(f"openapi-format: {DOCUMENT}: not JSON: {error}")
    wanted = layout(document)
    if check:
        if wanted != text:
            sys.exit(f"openapi-format: {DOCUMENT} is not in the house layout: run python3 scripts/openapi-format.py")
        return
    if wanted != text:
        DOCUMENT.write_text(wanted, encoding="utf-8")
        print(f"openapi-format: rewrote {DOCUMENT}", file=sys.stderr)


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"member {key!r} twice")
        seen[key] = value
    return seen


if __name__ == "__main__":
    main(sys.argv)
