"""In-process validation time of the Python package: one engine built up front with the
embedded catalogue, each file's text read before timing, three warm-up calls, then
``--runs N`` timed calls of ``Engine.validate`` on the text (format JSON given). Prints one
JSON line per file and nothing else on stdout::

    {"file": ..., "bytes": ..., "runs": N, "median_s": ..., "min_s": ..., "diagnostics": ...}

    python bench_validate.py --runs 50 FILE...

Run it where ``mcpdesc`` imports from the installed wheel (xtask/bindings/python/bench.sh).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from mcpdesc import Engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs needs a positive integer")

    engine = Engine()
    for file in args.files:
        with open(file, encoding="utf-8") as f:
            text = f.read()
        for _ in range(3):
            engine.validate(text, format="json")
        times = []
        diagnostics = 0
        for _ in range(args.runs):
            start = time.perf_counter()
            report = engine.validate(text, format="json")
            times.append(time.perf_counter() - start)
            diagnostics = len(report.diagnostics)
        line = {
            "file": file,
            "bytes": os.path.getsize(file),
            "runs": args.runs,
            "median_s": statistics.median(times),
            "min_s": min(times),
            "diagnostics": diagnostics,
        }
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
