"""Executed blocks in the MkDocs build: run each page once, then let markdown-exec format.

One :class:`BuildRun` per build (created by the hooks' ``on_config``; `mkdocs serve`
makes a new one for every rebuild, so nothing leaks from one build to the next):

1. ``page_markdown`` (from ``on_page_markdown``) reads the page's blocks
   (:mod:`coursekit.blocks`), takes their outputs from the execution cache or runs
   them with :func:`coursekit.page_run.run_page`, and tags each fence with one
   opaque token, ``coursekit_block="N"``.
2. markdown-exec's Python fence is replaced by :meth:`BuildRun.validator` and
   :meth:`BuildRun.formatter`, which hand markdown-exec's public ``base_format`` a
   ``run`` that returns the precomputed output of the token's block. markdown-exec
   only formats; it never executes anything.
3. A failing block fails the build with :class:`PluginError` (``mkdocs build`` exits
   non-zero whatever its flags). Under `mkdocs serve` it is shown instead: in the
   terminal and as an error box on the page, and the server keeps running.
"""

from __future__ import annotations

import hashlib
import html
import logging
import os
import re
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown_exec import base_format
from markdown_exec import validator as mx_validator
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import BuildError, PluginError
from mkdocs.structure.pages import Page
from pymdownx.superfences import SuperFencesException

from coursekit import includes
from coursekit.blocks import Block, page_blocks
from coursekit.exec_cache import ExecCache
from coursekit.fences import FenceError
from coursekit.page_run import BlockResult, run_page

log = logging.getLogger("mkdocs.hooks.coursekit")
TORCH_VERSION = version("torch").split("+")[0]
TOKEN = "coursekit_block"
# Options of ours on an executed fence; markdown-exec must not see them.
OUR_OPTIONS = (TOKEN, "raises", "timeout")


# Rendered HTML of a block, by everything it is made from (code, output, options, the
# Markdown settings). A pure function's memo, not build state: under `mkdocs serve` a
# rebuild after a prose edit formats no block twice (a fifth of a rebuild's time).
_RENDERED: dict[str, str] = {}
_RENDERED_MAX = 4096
# A page's blocks by its Markdown and every snippet: under `mkdocs serve` only.
_SCANNED: dict[str, tuple[Block, ...]] = {}


def _serve_log() -> logging.Logger:
    """Errors under `mkdocs serve`: printed like MkDocs' own, but not counted by
    strict mode (a counted error would abort the rebuild and freeze live reload)."""
    logger = logging.getLogger("coursekit.serve")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    return logger


class UntrackedBlock(SuperFencesException, BuildError):
    """An executed fence the page scan did not see: it would run unchecked."""


@dataclass
class BuildRun:
    """Everything one build knows about executed blocks."""

    root: Path
    snippets: dict[str, Any]
    serving: bool
    cache: ExecCache
    markdown_settings: str = ""  # digest of mkdocs.yml: the Markdown extensions in use
    snippet_files: str = ""  # digest of every file under the snippets' base paths (serve)
    results: dict[str, BlockResult] = field(default_factory=dict)  # token -> result
    page_tokens: dict[str, list[str]] = field(default_factory=dict)
    formatted: set[str] = field(default_factory=set)
    stats: dict[str, int] = field(
        default_factory=lambda: {"blocks": 0, "pages": 0, "run": 0, "cached": 0}
    )

    @classmethod
    def for_config(cls, config: MkDocsConfig, *, serving: bool) -> BuildRun:
        config_file = Path(config.config_file_path).resolve()
        root = config_file.parent
        return cls(
            root=root,
            snippets=dict(config.mdx_configs.get("pymdownx.snippets", {})),
            serving=serving,
            cache=ExecCache(root / ".cache" / "exec"),
            markdown_settings=hashlib.sha256(config_file.read_bytes()).hexdigest(),
        )

    def install(self, config: MkDocsConfig) -> None:
        """Route markdown-exec's Python fences through this build's formatter."""
        superfences = config.mdx_configs.setdefault("pymdownx.superfences", {})
        for fence in superfences.setdefault("custom_fences", []):
            if fence.get("name") in {"python", "py"} and fence.get("class") in {"python", "py"}:
                fence["validator"] = self.validator
                fence["format"] = self.formatter

    def page_src(self, page: Page) -> str:
        """The page's path from the project root: "docs/chapters/chain-rule.md"."""
        return Path(os.path.relpath(page.file.abs_src_path or "", self.root)).as_posix()

    # -- on_page_markdown -------------------------------------------------------------

    def page_markdown(self, markdown: str, page: Page, line_offset: int) -> str:
        """Run (or recall) the page's blocks and tag their fences; fail on an error."""
        src = self.page_src(page)
        blocks = self._scan(markdown, src, line_offset)
        if not blocks:
            return markdown
        outputs = self.cache.load(blocks)
        if outputs is not None:
            results = [
                BlockResult(block, output) for block, output in zip(blocks, outputs, strict=True)
            ]
            self.stats["cached"] += 1
        else:
            results = run_page(blocks)
            self.stats["run"] += 1
            if all(result.ok for result in results):
                self.cache.store(blocks, [result.output for result in results])
        self.stats["pages"] += 1
        self.stats["blocks"] += len(blocks)
        failure = next((r.failure for r in results if r.failure), None)
        if failure is not None:
            if not self.serving:
                raise PluginError(failure.report())
            _serve_log().error("%s", failure.report())
        lines = markdown.split("\n")
        tokens = self.page_tokens.setdefault(src, [])
        for result in results:
            token = str(len(self.results))
            self.results[token] = result
            tokens.append(token)
            index = result.block.line - line_offset - 1
            lines[index] = f'{lines[index]} {TOKEN}="{token}"'
        return "\n".join(lines)

    def _scan(self, markdown: str, src: str, line_offset: int) -> list[Block]:
        """The page's blocks, includes expanded and checked; fail with file and line."""
        memo = ""
        if self.serving:  # a rebuild scans again only what changed (or all, if a snippet did)
            if not self.snippet_files:
                self.snippet_files = snippet_files_digest(self.root, self.snippets)
            memo = _digest(self.snippet_files, self.snippets, markdown, src, line_offset)
            if memo in _SCANNED:
                return list(_SCANNED[memo])
        try:
            blocks = page_blocks(
                markdown, src, snippets=self.snippets, base_dir=self.root, line_offset=line_offset
            )
            includes.check_page(markdown, src, line_offset, self.snippets, self.root)
        except (FenceError, includes.IncludeError) as error:
            raise PluginError(str(error)) from None
        if memo:
            if len(_SCANNED) >= _RENDERED_MAX:
                _SCANNED.clear()
            _SCANNED[memo] = tuple(blocks)
        return blocks

    def check_page_content(self, page: Page) -> None:
        """Every block the scan saw must have been formatted by markdown-exec."""
        src = self.page_src(page)
        for token in self.page_tokens.get(src, []):
            if token not in self.formatted:
                # E.g. a fence swallowed by raw HTML: it ran, but the reader never sees it.
                where = self.results[token].block.where
                raise PluginError(f"{where}: this block was never shown by the build")

    # -- markdown-exec's Python fence --------------------------------------------------

    def validator(
        self,
        language: str,
        inputs: dict[str, str],
        options: dict[str, Any],
        attrs: dict[str, Any],
        md: Markdown,
    ) -> bool:
        ours = {key: inputs.pop(key) for key in OUR_OPTIONS if key in inputs}
        if not mx_validator(language, inputs, options, attrs, md):
            return False
        if TOKEN not in ours:
            raise UntrackedBlock(
                "an executed Python fence that coursekit did not see "
                f"(is it indented, or inside raw HTML?):\n{inputs}"
            )
        options[TOKEN] = ours[TOKEN]
        return True

    def formatter(
        self,
        source: str,
        language: str,
        css_class: str,
        options: dict[str, Any],
        md: Markdown,
        **kwargs: Any,
    ) -> str:
        token = options.pop(TOKEN)
        result = self.results[token]
        self.formatted.add(token)
        block = result.block
        if result.failure is not None:
            return _error_box("This block failed", result.failure.report())
        if not result.ran:
            return _error_box("Not run", "An earlier block of this page failed.")
        if source.strip("\n") != block.code.strip("\n"):
            raise PluginError(f"{block.where}: the code shown is not the code that ran")
        memo = hashlib.sha256(
            repr((self.markdown_settings, source, result.output, block.raises, options)).encode()
        ).hexdigest()
        if memo not in _RENDERED:
            if len(_RENDERED) >= _RENDERED_MAX:
                _RENDERED.clear()
            _RENDERED[memo] = self._render(source, options, result, md)
        return _RENDERED[memo]

    def _render(
        self, source: str, options: dict[str, Any], result: BlockResult, md: Markdown
    ) -> str:
        block = result.block
        # html="on" blocks print figures: show the result only, unless asked for the source.
        show_source = options.get("source") or ("" if block.html else "block")
        id_prefix = options.get("id_prefix")
        rendered = str(
            base_format(
                **{
                    **options,
                    "language": "python",
                    "run": lambda code, **_: result.output,
                    "code": source,
                    "md": md,
                    "source": show_source,
                    "result": "" if block.html else "text",
                    "id_prefix": "" if id_prefix is None else id_prefix,
                    "session": None,
                }
            )
        )
        if block.html:
            return rendered
        return _label_output(rendered, expected=block.raises)

    def summary(self) -> str:
        s = self.stats
        return (
            f"coursekit: {s['blocks']} blocks on {s['pages']} pages, {s['run']} pages run, "
            f"{s['cached']} from .cache/exec (PyTorch {TORCH_VERSION})"
        )


def snippet_files_digest(root: Path, snippets: dict[str, Any]) -> str:
    """Digest of every file an include may read (names and contents)."""
    bases = snippets.get("base_path", ["."])
    digest = hashlib.sha256()
    for base in [bases] if isinstance(bases, str) else bases:
        folder = root / base
        files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
        for path in files:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _digest(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _error_box(title: str, text: str) -> str:
    return (
        '<div class="admonition failure exec-error" role="alert">'
        f'<p class="admonition-title">{html.escape(title)}</p>'
        f"<pre><code>{html.escape(text)}</code></pre></div>"
    )


def _code_of(html_text: str) -> str:
    match = re.search(r"<code>.*?</code>", html_text, re.S)
    return match[0] if match else ""


def _label_output(rendered: str, expected: str) -> str:
    """Give the output box a visible, accessible "Output" label; drop it when empty."""
    if '<div class="result"' not in rendered:
        return rendered
    head, _, rest = rendered.partition('<div class="result"')
    # Pygments always emits one empty <span></span>; anything else is output.
    if re.fullmatch(r"<code>(?:\s|<span></span>)*</code>", _code_of(rest)):
        return head  # the block printed nothing: no empty box
    label = f"Output ({html.escape(expected)} expected)" if expected else "Output"
    opening = f'<div class="result exec-output" role="group" aria-label="{label}">'
    return f'{head}{opening}<p class="exec-output__label">{label}</p>{rest.split(">", 1)[1]}'


def stamp_version(markdown: str) -> str:
    """Say under the title which PyTorch printed the page's outputs."""
    stamp = (
        f'<p class="run-stamp">Every output on this page was printed by its code, run '
        f"when the site was built with PyTorch {TORCH_VERSION} on a CPU.</p>"
    )
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("# "):
            return "\n".join([*lines[: i + 1], "", stamp, "", *lines[i + 1 :]])
    return "\n".join([stamp, "", *lines])
