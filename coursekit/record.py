"""The committed record of every block's expected output.

One YAML file, keyed by page and block number, with the PyTorch version that
produced it. Outputs are written as literal blocks so that ``git diff`` of the
record reads as the drift report.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HEADER = """\
# Expected output of every executed block on the site, keyed by page and block
# number (1 = the first executed block of the page). Generated: do not edit by hand.
# After reviewing a drift diff, rewrite it with `make record`.
"""


class _LiteralDumper(yaml.SafeDumper):
    pass


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_LiteralDumper.add_representer(str, _str_presenter)


@dataclass
class Record:
    path: Path
    torch: str = ""
    pages: dict[str, dict[int, str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Record:
        if not path.exists():
            return cls(path)
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        pages = {
            page: {int(k): str(v) for k, v in (blocks or {}).items()}
            for page, blocks in (data.get("pages") or {}).items()
        }
        return cls(path, str(data.get("torch", "")), pages)

    def expected(self, page: str, block: int) -> str | None:
        return self.pages.get(page, {}).get(block)

    def save(self, pages: set[str] | None = None) -> None:
        """Write the record; with ``pages``, only those pages are replaced (others kept
        as they are on disk, so runs over different pages do not erase each other)."""
        if pages is not None:
            on_disk = Record.load(self.path).pages
            self.pages = {**on_disk, **{p: self.pages.get(p, {}) for p in pages}}
        data = {
            "torch": self.torch,
            "pages": {page: dict(sorted(self.pages[page].items())) for page in sorted(self.pages)},
        }
        text = yaml.dump(
            data, Dumper=_LiteralDumper, sort_keys=False, allow_unicode=True, width=100
        )
        self.path.write_text(HEADER + text, encoding="utf-8")


def drift_report(
    where: str,
    block: int,
    expected: str | None,
    actual: str,
    recorded_torch: str,
    running_torch: str,
) -> str:
    if expected is None:
        return (
            f"{where}: block {block} has no recorded output. Review the page, then "
            "run `make record` to add it."
        )
    diff = "\n".join(
        difflib.unified_diff(
            expected.splitlines(),
            actual.splitlines(),
            fromfile=f"recorded (PyTorch {recorded_torch or '?'})",
            tofile=f"now (PyTorch {running_torch})",
            lineterm="",
        )
    )
    return (
        f"{where}: block {block} printed something other than the page's record.\n"
        f"{diff}\nIf the new output is right, run `make record` and commit the record."
    )
