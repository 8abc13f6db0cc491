#!/usr/bin/env python3
"""Runs the examples of a Markdown section, as a user would copy them.

  run-readme-examples.py README.md --section "Quick start" --tools BUILD/bin --capi LIB [--root DIR]

Each line of a ```sh block is a command run from --root (default: the
file's directory), its
`build/bin/` standing for --tools; each ```python block runs with the
package on the path and --capi as its C API library; each ```mlir block
must verify under spio-opt. Prints one line an example and a count, and
exits with 1 when any fails.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys


def blocks(text, section):
    """(language, body) of the fenced blocks under the `## section` heading."""
    match = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not match:
        sys.exit(f"run-readme-examples.py: no section '## {section}'")
    return re.findall(r"^```(\w+)\n(.*?)^```", match.group(1), re.M | re.S)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("markdown")
    parser.add_argument("--section", required=True)
    parser.add_argument("--tools", required=True, help="the directory of spio-opt and spio-jit")
    parser.add_argument("--capi", required=True, help="libspio_capi.so")
    parser.add_argument("--root", help="where the commands run (default: the file's directory)")
    args = parser.parse_args()
    root = args.root or os.path.dirname(os.path.abspath(args.markdown))
    with open(args.markdown, encoding="utf-8") as f:
        examples = blocks(f.read(), args.section)
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"), SPIO_LIBRARY=args.capi)
    runs = []
    for language, body in examples:
        if language == "sh":
            for line in body.splitlines():
                if line.strip() and not line.startswith("#"):
                    words = shlex.split(line, comments=True)
                    if words[0].startswith("build/bin/"):
                        words[0] = os.path.join(args.tools, words[0][len("build/bin/"):])
                    runs.append((line, words, None))
        elif language == "python":
            runs.append((body.splitlines()[0] + " ...", [sys.executable, "-"], body))
        elif language == "mlir":
            runs.append(("mlir: " + body.splitlines()[0], [os.path.join(args.tools, "spio-opt")],
                         body))
    failed = 0
    for label, words, stdin in runs:
        run = subprocess.run(words, cwd=root, env=env, input=stdin, capture_output=True, text=True)
        if run.returncode == 0:
            print(f"ok: {label}")
        else:
            failed += 1
            last = (run.stderr.strip().splitlines() or ["?"])[-1]
            print(f"FAILED: {label}: {last}")
    print(f"{len(runs) - failed} of {len(runs)} examples ran")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
