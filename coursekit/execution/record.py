"""The committed record of every block's expected output, and the drift between them.

One YAML file, keyed by page and by each block's :attr:`~coursekit.markdown.blocks.Block.key`
(its ``id=``, its include region, or ``block-N``), with the PyTorch version that
produced it. Outputs are written as literal blocks so that ``git diff`` of the record
reads as the drift report.

What is recorded of a block (:func:`recorded_view`):

* an ``html="on"`` block prints a figure: its text view (:func:`text_view`), what a
  reader without the picture gets, not SVG bytes;
* a ``timing="on"`` block prints measured times: its text with every number written
  as ``#`` (the words, the method and the shape of the output are still compared);
* any other block: its output, exactly.
"""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from coursekit import files
from coursekit.execution.compare import Verdict, compare
from coursekit.markdown.blocks import Block

HEADER = """\
# Expected output of every executed block on the site, keyed by page and block key
# (the fence's id="...", else its include region, else block-N = the page's Nth
# executed block). Generated: do not edit by hand.
# After reviewing a drift diff, rewrite it with `make record`.
"""
# A line this long that changed is shown word by word as well.
LONG_LINE = 100


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
    pages: dict[str, dict[str, str]] = field(default_factory=dict)
    header: str = HEADER

    @classmethod
    def load(cls, path: Path) -> Record:
        if not path.exists():
            return cls(path)
        # libyaml's loader where PyYAML has it: the record is large, and every build (and
        # every rebuild under `mkdocs serve`) reads it; the pure-Python one took a second.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}
        pages = {
            page: {str(k): str(v) for k, v in (blocks or {}).items()}
            for page, blocks in (data.get("pages") or {}).items()
        }
        return cls(path, str(data.get("torch", "")), pages)

    def expected(self, page: str, key: str) -> str | None:
        return self.pages.get(page, {}).get(key)

    def compare(self, block: Block, output: str) -> tuple[Verdict, str | None, str]:
        """How a block's output compares with its record (a block with no record is a
        real difference): the verdict, the recorded output, and the view compared."""
        expected = self.expected(block.page, block.key)
        view = recorded_view(block, output)
        verdict = Verdict.REAL if expected is None else compare(expected, view)
        return verdict, expected, view

    def save(self, pages: set[str] | None = None) -> None:
        """Write the record; with ``pages``, only those pages are replaced (others kept
        as they are on disk, so runs over different pages do not erase each other)."""
        if pages is not None:
            on_disk = Record.load(self.path).pages
            merged = {**on_disk, **{p: self.pages.get(p, {}) for p in pages}}
            self.pages = {page: blocks for page, blocks in merged.items() if blocks}
        data = {
            "torch": self.torch,
            # Blocks stay in page order, so the record reads like the page.
            "pages": {page: dict(self.pages[page]) for page in sorted(self.pages)},
        }
        text = yaml.dump(
            data, Dumper=_LiteralDumper, sort_keys=False, allow_unicode=True, width=100
        )
        files.atomic_write(self.path, self.header + text)  # never a half-written record


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?")


def recorded_view(block: Block, output: str) -> str:
    """What the record stores of a block's output (see the module docstring)."""
    if block.html:
        return text_view(output)
    if block.timing:
        return _NUMBER.sub("#", output)
    return output


def word_diff(expected: str, actual: str) -> str:
    """The words that changed, as ``[-removed-]{+added+}``, the rest as it is."""
    old, new = expected.split(" "), actual.split(" ")
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            out.append(" ".join(old[a1:a2]))
            continue
        removed = "[-" + " ".join(old[a1:a2]) + "-]" if a2 > a1 else ""
        added = "{+" + " ".join(new[b1:b2]) + "+}" if b2 > b1 else ""
        out.append(removed + added)
    return " ".join(out)


def diff(expected: str, actual: str, recorded_torch: str, running_torch: str) -> str:
    """A unified diff of two outputs, and a word diff of each long line that changed."""
    old, new = expected.splitlines(), actual.splitlines()
    lines = list(
        difflib.unified_diff(
            old,
            new,
            fromfile=f"recorded (PyTorch {recorded_torch or '?'})",
            tofile=f"now (PyTorch {running_torch})",
            lineterm="",
        )
    )
    changed = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    words = [
        word_diff(a, b)
        for op, a1, a2, b1, b2 in changed
        if op == "replace"
        for a, b in zip(old[a1:a2], new[b1:b2], strict=False)
        if max(len(a), len(b)) > LONG_LINE
    ]
    if words:
        lines += ["word by word, [-recorded-]{+now+}:", *words]
    return "\n".join(lines)


def drift_report(
    block: Block,
    expected: str | None,
    actual: str,
    recorded_torch: str,
    running_torch: str,
    *,
    after_failure: bool = False,
) -> str:
    note = " (it ran after an earlier block of the page failed)" if after_failure else ""
    if expected is None:
        return (
            f"{block.where}: block {block.key!r} has no recorded output{note}. Review the "
            "page, then run `make record` to add it."
        )
    return (
        f"{block.where}: block {block.key!r} printed something other than the page's "
        f"record{note}, beyond the last digits of floats.\n"
        f"{diff(expected, actual, recorded_torch, running_torch)}\n"
        "The numerical code paths are pinned (`python -m coursekit numerics`), so this is "
        "not another CPU: the code, the page or PyTorch changed. If the new output is right, "
        "make the prose agree with it, then run `make record` and commit the record."
    )


# Elements whose content is not text for a reader: drawings, styles, scripts.
_DROP = re.compile(r"<(svg|style|script)\b.*?</\1\s*>", re.S | re.I)
# Tags that end a line of text (blocks, rows, list items, captions, line breaks).
_BREAK = re.compile(
    r"<(?:br|/?(?:p|div|pre|ol|ul|li|dl|dt|dd|table|thead|tbody|tr|caption|figure|"
    r"figcaption|details|summary|h[1-6]|section|blockquote))\b[^>]*>",
    re.I,
)
_CELL = re.compile(r"<t[dh]\b[^>]*>", re.I)  # table cells: separated by spaces
_TAG = re.compile(r"<[^>]+>")


def text_view(markup: str) -> str:
    """The visible text of an HTML output: no <svg>/<style>/<script>, no tags,
    one line per block element, spaces collapsed, no blank lines."""
    text = _DROP.sub("", markup)
    text = _CELL.sub(" ", _BREAK.sub("\n", text))
    text = html.unescape(_TAG.sub("", text))
    lines = [" ".join(line.split()) for line in text.split("\n")]
    kept = [line for line in lines if line]
    return "\n".join(kept) + "\n" if kept else ""
