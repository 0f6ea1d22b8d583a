"""The same pages print the same outputs in two builds, in two processes.

The suite builds the site twice (tests/conftest.py): the second build runs every block
again in a process of its own, with an empty execution cache. What the code printed
(output boxes) and drew (figures) must be byte for byte the same in both; only the
numbers of a ``timing="on"`` block, which measures time, may differ.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# What the code printed (output boxes) and what it drew (figures), per page.
_GENERATED = re.compile(
    r'<div class="result exec-output".*?</code></pre></div>'
    r'(?:\s*</div>)?(?:<p class="exec-timing">)?'
    r"|<figure.*?</figure>",
    re.S,
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _generated(site: Path) -> dict[str, list[str]]:
    found = {}
    for page in sorted(site.rglob("*.html")):
        blocks = _GENERATED.findall(page.read_text(encoding="utf-8"))
        # A measured time differs from run to run: compare those blocks without numbers.
        found[str(page.relative_to(site))] = [
            _NUMBER.sub("#", b) if b.endswith('<p class="exec-timing">') else b for b in blocks
        ]
    return found


def test_two_builds_print_identical_outputs(
    built_site: Path, built_site_with_repo_url: Path
) -> None:
    first, second = _generated(built_site), _generated(built_site_with_repo_url)
    assert sum(len(blocks) for blocks in first.values()) > 100, "no outputs found at all"
    assert first.keys() == second.keys()
    differ = [page for page, blocks in first.items() if blocks != second[page]]
    if differ:
        pytest.fail(f"outputs differ between two builds on {differ}", pytrace=False)
