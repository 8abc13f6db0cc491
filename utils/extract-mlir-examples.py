#!/usr/bin/env python3
"""Prints the ```mlir blocks of a Markdown file as one split-input-file.

The guide's examples are lit tests: each block becomes one `// -----` split,
so `spio-opt -split-input-file -verify-diagnostics` checks the errors a block
expects and FileCheck the CHECK lines it carries. Blocks keep their line
numbers (other lines become blank) so diagnostics point into the guide.
"""

import sys


def extract(lines):
    out = []
    inside = False
    seen_block = False
    for line in lines:
        stripped = line.strip()
        if not inside and stripped == "```mlir":
            inside = True
            # The separator takes this fence's line, keeping numbering.
            out.append("// -----" if seen_block else "")
            seen_block = True
            continue
        if inside and stripped == "```":
            inside = False
            out.append("")
            continue
        out.append(line.rstrip("\n") if inside else "")
    if inside:
        raise SystemExit("unterminated ```mlir block")
    if not seen_block:
        raise SystemExit("no ```mlir blocks found")
    return out


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: extract-mlir-examples.py FILE.md")
    with open(sys.argv[1], encoding="utf-8") as f:
        print("\n".join(extract(f.readlines())))


if __name__ == "__main__":
    main()
