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
