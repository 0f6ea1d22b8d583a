"""MkDocs hook: a page that holds a step-through figure gets its script and stylesheet.

Registered in ``mkdocs.yml`` (``hooks:``). Both go inside the page's content, so they
would come along even under Material's instant navigation (off in mkdocs.yml: it cost
every first page load more than it saved later ones), which swaps the content in and
re-runs the scripts it holds; pages without a figure load neither.
"""

from __future__ import annotations

from typing import Any

from mkdocs.utils import get_relative_url

from coursekit.backprop_steps import FIGURE_CLASS

SCRIPT = "assets/javascripts/backprop-steps.js"
STYLESHEET = "assets/stylesheets/backprop-steps.css"


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    if f'<figure class="{FIGURE_CLASS}"' not in html:
        return html
    # Relative to the page, as MkDocs writes its own links (the site may live in a folder).
    script = get_relative_url(SCRIPT, page.url)
    stylesheet = get_relative_url(STYLESHEET, page.url)
    return (
        f'<link rel="stylesheet" href="{stylesheet}">\n{html}\n'
        f'<script src="{script}" defer></script>'
    )
