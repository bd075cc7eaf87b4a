#!/usr/bin/env python3
"""Fails when a public symbol of a library has no documentation comment.

Reads the symbol graphs `swift symbolgraph-extract` wrote (scripts/docs runs it) and lists every public
declaration without a `///` comment; members the compiler synthesizes (Equatable, Codable, …) are not ours
to document and are skipped.
    scripts/doc-coverage.py SYMBOL_GRAPH.json...
"""
import json
import sys


def undocumented(path):
    graph = json.load(open(path))
    symbols = [
        symbol for symbol in graph["symbols"]
        if "::SYNTHESIZED::" not in symbol["identifier"]["precise"] and symbol.get("accessLevel") in ("public", "open")
    ]
    missing = sorted(".".join(symbol["pathComponents"]) for symbol in symbols if not symbol.get("docComment"))
    return graph["module"]["name"], len(symbols), missing


failed = False
for path in sys.argv[1:]:
    module, total, missing = undocumented(path)
    print(f"{module}: {total - len(missing)} of {total} public symbols documented")
    for name in missing:
        print(f"  undocumented: {module}.{name}")
    failed = failed or bool(missing)
sys.exit(1 if failed else 0)
