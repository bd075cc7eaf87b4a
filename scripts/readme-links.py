#!/usr/bin/env python3
"""Fails when a relative link in README.md names a file that is not in the repository, or a heading its page lacks
(anchors as MkDocs makes them), so the README's map of the guides cannot go stale. mkdocs --strict checks the
guides' own links."""
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def anchor(heading: str) -> str:
    """Python-Markdown's `toc` slug, which MkDocs uses."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    fenced = False
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(anchor(line.lstrip("#").strip()))
    return found


def main() -> int:
    problems = []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", readme):
        if re.match(r"^[a-z]+:", target):
            continue  # a URL, not a file here
        path, _, fragment = target.partition("#")
        page = ROOT / path if path else ROOT / "README.md"
        if not page.exists():
            problems.append(f"README.md links to {target}, which does not exist")
        elif fragment and page.suffix == ".md" and fragment not in anchors(page):
            problems.append(f"README.md links to {target}, but {path or 'README.md'} has no heading with that anchor")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
