"""Every chapter as a notebook, generated from its page.

``docs/chapters/<slug>.md`` becomes ``docs/chapters/notebooks/<slug>.ipynb``:

* the page's prose becomes Markdown cells (``math`` fences as ``$$`` blocks, ``///``
  admonitions as quotes, D2 diagrams as their alt text, links as their text: the
  notebook is read away from the site);
* every executed block becomes a code cell, in page order, includes expanded exactly as
  the build expands them (:func:`coursekit.includes.expand`). A block the page marks
  ``raises="X"`` is wrapped so that the notebook prints ``X: <message>`` as the page
  does and "Run all" goes on;
* ``html="on"`` blocks are left out, with a note: they print a figure's HTML with the
  course's own build tools (``coursekit.diagrams``, plots, step-throughs), which a
  notebook on Colab does not have, and their output is a picture, not text to compare;
  so is any other block that imports ``coursekit``;
* the first cell prints the PyTorch version that runs the notebook and the one that
  printed the site's outputs (the pin in ``pyproject.toml``), so a learner on Colab
  knows why a digit may differ.

The notebooks are committed (Colab opens them from the repository) and regenerated
with ``python -m coursekit.chapter_notebooks``; ``--check`` exits 1 when one is stale.
The build generates them again from the pages it builds, so the site's download always
matches the page (see coursekit/notebook_hooks.py). The JSON is deterministic: fixed
cell ids, sorted keys, no outputs.
"""

from __future__ import annotations

import argparse
import builtins
import io
import re
import sys
import textwrap
import tokenize
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import nbformat

from coursekit import includes
from coursekit.fences import executed_fences
from coursekit.notebooks import new_notebook, render

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CHAPTERS = "chapters"  # folder of the chapter pages, relative to docs/
FOLDER = "notebooks"  # the notebooks' folder inside it

_OPEN = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)(?P<rest>.*)$")
_BLOCK_OPEN = re.compile(r"^/{3,}\s*(?P<kind>[\w-]+)\s*(?:\|\s*(?P<title>.*?))?\s*$")
_BLOCK_CLOSE = re.compile(r"^/{3,}\s*$")
_ATTR = re.compile(r'(?P<key>[\w-]+)="(?P<value>[^"]*)"')
# [text](target) -> text, except links to the web, which still work in a notebook.
_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])+)\]\((?!https?://)[^)]*\)")
# Heading attributes of attr_list: "## Why {#why}".
_HEADING_ATTRS = re.compile(r"^(#{1,6} .*?)\s*\{[^}]*\}\s*$")

FIGURE_NOTE = (
    "*On the web page, a figure is drawn here from the tensors above, with the course's "
    "own build tools; this notebook leaves it out.*"
)


TOOLS_NOTE = (
    "*On the web page, a block here runs with the course's own build tools; this "
    "notebook leaves it out.*"
)


class ChapterNotebookError(ValueError):
    """A page that cannot become a notebook; the message names file and line."""


@dataclass(frozen=True)
class Block:
    """One executed block of a page and what the notebook makes of it."""

    index: int  # 1-based among the page's executed blocks (today's record key)
    line: int  # line of the opening fence in the page file
    fence: Any  # the coursekit.fences.Fence it came from
    code: str  # the code cell's source ("" when the block is left out)
    cell_id: str  # "" when the block is left out

    @property
    def in_notebook(self) -> bool:
        return bool(self.cell_id)


@cache
def pinned_torch(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The PyTorch version the site's outputs come from: the pin in pyproject.toml."""
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    for requirement in data["project"]["dependencies"]:
        name, _, pinned = requirement.partition("==")
        if name.strip() == "torch" and pinned:
            return pinned.strip()
    raise ChapterNotebookError(f"{pyproject}: no `torch==` pin in [project].dependencies")


def setup_cell(torch_version: str) -> str:
    return f"""\
# Run this cell first. The course site printed its outputs with PyTorch {torch_version}
# (CPU); with another version a printed number can differ in its last digits.
import re
import warnings

import torch

print("This notebook runs PyTorch", torch.__version__)
print("The site's outputs came from PyTorch {torch_version}: if a digit differs, that is why.")

# Show each warning on one line, as the site prints it (without the path of the C++
# file on PyTorch's build machine that some warnings end with).
warnings.simplefilter("always")
warnings.showwarning = lambda message, category, *args, **kwargs: print(
    f"{{category.__name__}}: "
    + re.sub(r"\\s*\\(Triggered internally at [^)]*\\)", "", str(message))
)"""


def notebook_src_uri(page_src_uri: str) -> str | None:
    """``chapters/x.md`` -> ``chapters/notebooks/x.ipynb``; None for other pages."""
    folder, _, name = page_src_uri.rpartition("/")
    if folder != CHAPTERS or not name.endswith(".md"):
        return None
    return f"{CHAPTERS}/{FOLDER}/{name.removesuffix('.md')}.ipynb"


def chapter_pages(docs: Path = DOCS) -> list[Path]:
    return sorted((docs / CHAPTERS).glob("*.md"))


def notebook_path(page: Path, docs: Path = DOCS) -> Path:
    uri = notebook_src_uri(page.relative_to(docs).as_posix())
    assert uri is not None, page
    return docs / uri


# --- code cells ---------------------------------------------------------------------------


def _has_multiline_string(code: str) -> bool:
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return any(t.type == tokenize.STRING and t.start[0] != t.end[0] for t in tokens)


def _expecting(code: str, error: str, where: str) -> str:
    """Wrap a block that must raise ``error`` so the notebook prints it and runs on."""
    if _has_multiline_string(code):
        # Indenting it would change the string's text.
        raise ChapterNotebookError(
            f"{where}: a block with raises= cannot contain a multi-line string"
        )
    body = textwrap.indent(code.rstrip("\n"), "    ")
    # A built-in exception is named as it is; another (torch's GradcheckError, say) is not
    # a name in the notebook, so it is matched by class name, as the site's runner does.
    if isinstance(getattr(builtins, error, None), type):
        catch = f"except {error} as error:\n"
    else:
        catch = (
            "except Exception as error:\n"
            f'    if type(error).__name__ != "{error}":\n'
            "        raise\n"
        )
    return (
        f"# The page shows that this raises {error}: print the error, then go on.\n"
        f"try:\n{body}\n"
        f"{catch}"
        '    print(f"{type(error).__name__}: {error}")'
    )


def _cell_id(fence: Any, index: int, used: set[str]) -> str:
    """A stable id: the included region's name when there is one, else block-N."""
    regions = re.findall(r'^\s*-+8<-+\s+["\'][^"\']*:([\w-]+)["\']\s*$', fence.body, re.M)
    base = "-".join(regions)[:50] if regions else f"block-{index}"
    candidate, n = base, 2
    while candidate in used:
        candidate, n = f"{base}-{n}", n + 1
    used.add(candidate)
    return candidate


def blocks(text: str, page: str, options: dict[str, Any], base_dir: Path) -> list[Block]:
    """The executed blocks of a page (``page`` is e.g. ``docs/chapters/x.md``)."""
    found: list[Block] = []
    used = {"setup"}
    for index, fence in enumerate(executed_fences(text, page), start=1):
        if fence.attrs.get("html", "").lower() in {"on", "1", "yes", "true"}:
            found.append(Block(index, fence.line, fence, "", ""))
            continue
        code = includes.expand(fence.body, page, fence.line + 1, options, base_dir)
        if re.search(r"^\s*(?:from|import)\s+coursekit\b", code, re.M):
            # The course's build tools are not installed where learners run notebooks.
            found.append(Block(index, fence.line, fence, "", ""))
            continue
        error = fence.attrs.get("raises", "")
        code = _expecting(code, error, f"{page}:{fence.line}") if error else code
        found.append(Block(index, fence.line, fence, code, _cell_id(fence, index, used)))
    return found


# --- Markdown cells -----------------------------------------------------------------------


def _prose_line(line: str) -> str:
    line = _HEADING_ATTRS.sub(r"\1", line)
    return _LINK.sub(r"\1", line)


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    closing = re.compile(rf"^{re.escape(marker[0])}{{{len(marker)},}}\s*$")
    end = start + 1
    while end < len(lines) and not closing.match(lines[end]):
        end += 1
    return end


def _other_fence(lang: str, rest: str, body: list[str], opening: str, closing: str) -> list[str]:
    """A fence that does not run: maths, a diagram, or code to read."""
    if lang == "math":
        return ["$$", *body, "$$"]
    if lang == "d2":
        attrs = {m["key"]: m["value"] for m in _ATTR.finditer(rest)}
        caption = attrs.get("caption", "")
        text = f"**Figure on the site:** {attrs.get('alt', caption)}"
        return [text, "", f"*{caption}*"] if caption and caption != attrs.get("alt") else [text]
    return [opening, *body, closing]


def _front_matter_end(lines: list[str]) -> int:
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in {"---", "..."}:
                return i + 1
    return 0


def build(
    text: str, page: str, options: dict[str, Any], base_dir: Path, torch_version: str
) -> nbformat.NotebookNode:
    """The notebook of one chapter page (``page`` is e.g. ``docs/chapters/x.md``)."""
    by_line = {block.line: block for block in blocks(text, page, options, base_dir)}
    lines = text.split("\n")
    cells = [nbformat.v4.new_code_cell(setup_cell(torch_version), id="setup")]
    prose: list[str] = []
    depth = 0  # how many /// blocks we are inside: their lines become a quote

    def add(*new: str) -> None:
        prose.extend(("> " * depth + line).rstrip() for line in new)

    def flush() -> None:
        source = "\n".join(prose).strip("\n")
        prose.clear()
        if source.strip("> \n"):
            cells.append(nbformat.v4.new_markdown_cell(source, id=f"text-{len(cells)}"))

    i = _front_matter_end(lines)
    while i < len(lines):
        line = lines[i]
        opening = _OPEN.match(line)
        if opening:
            end = _fence_end(lines, i, opening["fence"])
            block = by_line.get(i + 1)
            if block is not None and block.in_notebook:
                flush()
                cells.append(nbformat.v4.new_code_cell(block.code, id=block.cell_id))
            elif block is not None:
                add(FIGURE_NOTE if block.fence.attrs.get("html") else TOOLS_NOTE)
            else:
                body = lines[i + 1 : end]
                if opening["lang"] in {"python", "py", "python3"}:
                    expanded = includes.expand("\n".join(body), page, i + 2, options, base_dir)
                    body = expanded.split("\n")
                closing = lines[end] if end < len(lines) else opening["fence"]
                add(*_other_fence(opening["lang"].lower(), opening["rest"], body, line, closing))
            i = end + 1
            continue
        block_open = _BLOCK_OPEN.match(line)
        if block_open and not _BLOCK_CLOSE.match(line):
            title = _prose_line(block_open["title"] or "")
            kind = block_open["kind"].capitalize()
            depth += 1
            add(f"**{kind}: {title}**" if title and kind != "Details" else f"**{title or kind}**")
            add("")
        elif _BLOCK_CLOSE.match(line) and depth:
            depth -= 1
            add("")
        else:
            add(_prose_line(line))
        i += 1
    flush()
    return new_notebook(cells)


def render_page(page: Path, root: Path = ROOT, config_file: Path | None = None) -> str:
    """The notebook JSON of one chapter page, includes resolved as ``mkdocs.yml`` says."""
    options = dict(includes.snippet_options(config_file or root / "mkdocs.yml"))
    rel = page.relative_to(root).as_posix()
    text = page.read_text(encoding="utf-8")
    return render(build(text, rel, options, root, pinned_torch()))


def stale(docs: Path = DOCS) -> list[Path]:
    """Chapter notebooks that are missing or differ from their page, and orphans."""
    wanted = {notebook_path(page, docs): page for page in chapter_pages(docs)}
    out = [
        path
        for path, page in wanted.items()
        if not path.exists() or path.read_text(encoding="utf-8") != render_page(page)
    ]
    orphans = set((docs / CHAPTERS / FOLDER).glob("*.ipynb")) - set(wanted)
    return sorted([*out, *orphans])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    if args.check:
        outdated = stale()
        for path in outdated:
            print(f"{path.relative_to(ROOT)} is out of date", file=sys.stderr)
        if outdated:
            print("Run: python -m coursekit.chapter_notebooks", file=sys.stderr)
        return 1 if outdated else 0
    folder = DOCS / CHAPTERS / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {notebook_path(page): page for page in chapter_pages()}
    for orphan in set(folder.glob("*.ipynb")) - set(wanted):
        orphan.unlink()
        print(f"removed {orphan.relative_to(ROOT)} (its page is gone)")
    for path, page in wanted.items():
        path.write_text(render_page(page), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
