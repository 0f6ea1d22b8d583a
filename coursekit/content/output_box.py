"""The boxes around what a block printed: its labelled output, its error, the run stamp."""

from __future__ import annotations

import html
import re


def error_box(title: str, text: str) -> str:
    """A failure shown in place of a block's output (under `mkdocs serve` only)."""
    return (
        '<div class="admonition failure exec-error" role="alert">'
        f'<p class="admonition-title">{html.escape(title)}</p>'
        f"<pre><code>{html.escape(text)}</code></pre></div>"
    )


def drift_box(text: str) -> str:
    """Above a block whose output is not its record (under `mkdocs serve` only: a build
    fails instead)."""
    return (
        '<div class="admonition warning exec-drift" role="alert">'
        '<p class="admonition-title">Not the recorded output</p>'
        f"<pre><code>{html.escape(text)}</code></pre></div>"
    )


def _inline_code(text: str) -> str:
    """Escaped text with `code` spans as <code>."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def version_note(since: str, before: str, change: str, reference: str, older: str) -> str:
    """Under a block whose output changed in ``since``: what ``before`` printed."""
    name = re.sub(r"^https://github\.com/([^/]+/[^/]+)/(?:pull|issues)/(\d+)$", r"\1#\2", reference)
    return (
        '<details class="note version-note">'
        f"<summary>PyTorch {html.escape(before)} and older printed something else</summary>"
        f"<p>{_inline_code(change)} (PyTorch {html.escape(since)}, "
        f'<a href="{html.escape(reference, quote=True)}">{html.escape(name)}</a>). '
        f"On PyTorch {html.escape(before)}, the same code printed:</p>"
        f"<pre><code>{html.escape(older)}</code></pre></details>"
    )


def _code_of(html_text: str) -> str:
    match = re.search(r"<code>.*?</code>", html_text, re.S)
    return match[0] if match else ""


def label_output(rendered: str, expected: str) -> str:
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


def timing_note() -> str:
    """Under a block that printed measured times."""
    return (
        '<p class="exec-timing">These times were measured when the site was built; on '
        "your machine the numbers differ, and so may the ratios a little.</p>"
    )


def stamp(markdown: str, torch_version: str) -> str:
    """Say under the title which PyTorch printed the page's outputs."""
    line = (
        f'<p class="run-stamp">Every output on this page was printed by its code, run '
        f"when the site was built with PyTorch {torch_version} on a CPU.</p>"
    )
    lines = markdown.split("\n")
    for i, text in enumerate(lines):
        if text.startswith("# "):
            return "\n".join([*lines[: i + 1], "", line, "", *lines[i + 1 :]])
    return "\n".join([line, "", *lines])
