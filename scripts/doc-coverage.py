#!/usr/bin/env python3
"""Fails when a public symbol of a library has no documentation comment, or a public type is missing from its DocC
catalog's topics.

Reads the symbol graphs `swift symbolgraph-extract` wrote (scripts/docs runs it) and lists every public
declaration without a `///` comment; members the compiler synthesizes (Equatable, Codable, …) are not ours
to document and are skipped. With `--catalog DIR`, every top-level public type must be named (``Type``) in the
catalog's pages, so a reader finds it from the module's overview.
    scripts/doc-coverage.py [--catalog DOCC_DIR] SYMBOL_GRAPH.json...
"""
import json
import pathlib
import re
import sys

TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor", "swift.typealias"}


def unlisted_types(path, catalog):
    """Top-level public types of the graph that no page of `catalog` names as ``Type``."""
    graph = json.load(open(path))
    named = set()
    for page in pathlib.Path(catalog).rglob("*.md"):
        named.update(re.findall(r"``([A-Za-z0-9_]+)``", page.read_text()))
    types = {
        symbol["pathComponents"][0] for symbol in graph["symbols"]
        if symbol["kind"]["identifier"] in TYPE_KINDS and len(symbol["pathComponents"]) == 1
        and symbol.get("accessLevel") in ("public", "open")
    }
    return sorted(types - named)


def undocumented(path):
    graph = json.load(open(path))
    symbols = [
        symbol for symbol in graph["symbols"]
        if "::SYNTHESIZED::" not in symbol["identifier"]["precise"] and symbol.get("accessLevel") in ("public", "open")
    ]
    missing = sorted(".".join(symbol["pathComponents"]) for symbol in symbols if not symbol.get("docComment"))
    return graph["module"]["name"], len(symbols), missing


arguments = sys.argv[1:]
catalog = None
if arguments[:1] == ["--catalog"]:
    catalog, arguments = arguments[1], arguments[2:]
failed = False
for path in arguments:
    module, total, missing = undocumented(path)
    print(f"{module}: {total - len(missing)} of {total} public symbols documented")
    for name in missing:
        print(f"  undocumented: {module}.{name}")
    failed = failed or bool(missing)
    if catalog:
        unlisted = unlisted_types(path, catalog)
        for name in unlisted:
            print(f"  not in the DocC catalog's topics: {module}.{name}")
        failed = failed or bool(unlisted)
sys.exit(1 if failed else 0)
