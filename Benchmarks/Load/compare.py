"""Compares two load-benchmark runs (`loadbench.py --json`): each scenario's throughput in the second run as a ratio of
the first's, with each run's own HTTP floor as the yardstick too (the machines are noisy; the floor moves with them).

    python3 Benchmarks/Load/compare.py before.json after.json
"""
from __future__ import annotations

import json
import sys


def scenarios(path: str) -> dict:
    return json.load(open(path))["runs"][0]["scenarios"]


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    before, after = scenarios(sys.argv[1]), scenarios(sys.argv[2])
    floor_before = before["http_floor"]["requests_per_second"]
    floor_after = after["http_floor"]["requests_per_second"]
    print(f"{'scenario':<22}{'before/s':>10}{'after/s':>10}{'ratio':>8}{'vs floor':>10}")
    for name in before:
        if name not in after:
            continue
        old, new = before[name]["requests_per_second"], after[name]["requests_per_second"]
        relative = (new / floor_after) / (old / floor_before) if old and floor_before and floor_after else float("nan")
        print(f"{name:<22}{old:>10.0f}{new:>10.0f}{new / old if old else float('nan'):>8.3f}{relative:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
