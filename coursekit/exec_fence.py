"""Wrap markdown-exec's Python fence so every block runs through ``run_block``.

markdown-exec still executes the block (in its per-session globals, capturing
``print``); what it executes is a one-line call into
:func:`coursekit.execution.run_block`, which compiles the author's code under
the Markdown file's name. The reader sees the author's code unchanged.
"""

from __future__ import annotations

import html
import re
from typing import Any

from markdown_exec import formatter as mx_formatter
from markdown_exec import validator as mx_validator

from coursekit.execution import DEFAULT_TIMEOUT

# Options our own hook adds to each fence line, and options authors may write.
OUR_OPTIONS = ("mdpage", "mdline", "raises", "timeout")

# "docs/page.md:LINE" of every block run in this process; the hooks check that
# every fence they saw really ran.
EXECUTED: set[str] = set()


def validator(
    language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md: Any
) -> bool:
    ours = {key: inputs.pop(key) for key in OUR_OPTIONS if key in inputs}
    if not mx_validator(language, inputs, options, attrs, md):
        return False
    options["course"] = ours
    return True


def _runner_call(code: str, where: str, raises: str, timeout: float) -> str:
    line = where.rsplit(":", 1)[1]
    return (
        "__import__('coursekit.execution').execution.run_block("
        f"{code!r}, globals(), __import__('functools').partial(print, end=''), where={where!r}, "
        f"raises={raises!r}, timeout={timeout!r}, first_line={int(line) + 1})"
    )


def formatter(
    source: str, language: str, css_class: str, options: dict[str, Any], md: Any, **kwargs: Any
) -> str:
    course = options.pop("course", {})
    if "mdpage" not in course:
        # Not a page of ours (e.g. a snippet rendered elsewhere): plain markdown-exec.
        return mx_formatter(source, language, css_class, options, md, **kwargs)
    where = f"{course['mdpage']}:{course['mdline']}"
    EXECUTED.add(where)
    run = _runner_call(
        source, where, course.get("raises", ""), float(course.get("timeout", DEFAULT_TIMEOUT))
    )
    # html="on" blocks produce figures (diagrams): show the result only, unless the
    # author asked for the source too.
    show_source = options.get("source") or ("" if options.get("html") else "block")
    options = {
        **options,
        # The id names the block in markdown-exec's warnings: file and line.
        "id": where,
        "id_prefix": "",
        "source": show_source,
        "result": "" if options.get("html") else "text",
        "transform_source": lambda code: (run, code),
    }
    rendered = str(mx_formatter(source, language, css_class, options, md, **kwargs))
    if options["html"]:
        return rendered
    return _label_output(rendered, failed=course.get("raises", ""))


def _code_of(html_text: str) -> str:
    match = re.search(r"<code>.*?</code>", html_text, re.S)
    return match[0] if match else ""


def _label_output(rendered: str, failed: str) -> str:
    """Give the output box a visible, accessible "Output" label; drop it when empty."""
    if '<div class="result"' not in rendered:
        return rendered
    head, _, rest = rendered.partition('<div class="result"')
    # Pygments always emits one empty <span></span>; anything else is output.
    if re.fullmatch(r"<code>(?:\s|<span></span>)*</code>", _code_of(rest)):
        return head  # the block printed nothing: no empty box
    label = f"Output ({html.escape(failed)} expected)" if failed else "Output"
    opening = f'<div class="result exec-output" role="group" aria-label="{label}">'
    return f'{head}{opening}<p class="exec-output__label">{label}</p>{rest.split(">", 1)[1]}'
