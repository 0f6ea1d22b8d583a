"""Copy buttons on code blocks, written into the HTML at build time.

Material can add them itself (the `content.code.copy` feature), but it does so in the
browser while the page loads: for every block it asks whether copying is supported and
inserts a button, and each insertion makes the next block's size check recompute the
page's styles. On the backprop-by-hand chapter that was 16 of the 44 style
recalculations left once Material's palette component was gone (Chromium traces).
Here every block gets the same markup Material would insert, so Material's stylesheet
draws the button and Material's clipboard integration (one listener for every
`[data-clipboard-target]`, set up on every page) copies the block, with its "Copied to
clipboard" message. mkdocs.yml leaves `content.code.copy` off.

Without JavaScript nothing could copy: course.css hides the buttons then.
"""

from __future__ import annotations

import re

from coursekit.content.errors import ContentError

# Material's renderCodeBlockNavigation() and renderClipboardButton() put a <nav> inside
# the <pre>, before the <code>: fine in a script's DOM, but invalid HTML when written
# into the page (a <pre> holds phrasing content only). A <span> of the same class gets
# the same styles (Material's CSS selects `.md-code__nav`). The <code> gets the id the
# button points at: Material rewrites the <pre>'s id when it mounts the block.
_BLOCK = re.compile(r"(<pre\b[^>]*>(?:<span></span>)?)<code\b([^>]*)>")
_BUTTON = (
    '<span class="md-code__nav"><button class="md-code__button" title="Copy to clipboard" '
    'data-clipboard-target="{target}" data-md-type="copy"></button></span>'
)


def add(html: str) -> str:
    """Give every ``<pre><code>`` block of a page's content a copy button."""
    count = 0

    def button(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        attributes = match[2]
        given = re.search(r'(?:^|\s)id="([^"]+)"', attributes)
        if given:  # a block that already has an id keeps it (any id: a selector by value)
            target = f"[id=&quot;{given[1]}&quot;]"
            return f"{match[1]}{_BUTTON.format(target=target)}<code{attributes}>"
        block_id = f"__copy_{count}"
        button = _BUTTON.format(target=f"#{block_id}")
        return f'{match[1]}{button}<code id="{block_id}"{attributes}>'

    return _BLOCK.sub(button, html)


def check_features(features: list[str]) -> None:
    """Material's own copy buttons would be a second button on every block."""
    if "content.code.copy" in features:
        raise ContentError(
            "mkdocs.yml: remove `content.code.copy` from theme.features: "
            "coursekit/content/copy_buttons.py writes the copy buttons at build time"
        )
