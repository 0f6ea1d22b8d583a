"""Two builds in a row print exactly the same outputs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import build_site

# What the code printed (output boxes) and what it drew (figures), per page.
_GENERATED = re.compile(
    r'<div class="result exec-output".*?</code></pre></div>|<figure.*?</figure>', re.S
)


def _generated(site: Path) -> dict[str, list[str]]:
    return {
        str(page.relative_to(site)): _GENERATED.findall(page.read_text(encoding="utf-8"))
        for page in sorted(site.rglob("*.html"))
    }


def test_two_builds_print_identical_outputs(built_site: Path, tmp_path: Path) -> None:
    second = tmp_path / "site"
    # Really run every block again (the first build may have read .cache/exec/).
    result = build_site(second, exec_cache=False)
    assert result.returncode == 0, result.stderr
    first_outputs, second_outputs = _generated(built_site), _generated(second)
    assert sum(len(blocks) for blocks in first_outputs.values()) > 0, "no output found at all"
    for page, blocks in first_outputs.items():
        if blocks != second_outputs.get(page):
            pytest.fail(f"{page}: outputs differ between two builds", pytrace=False)
