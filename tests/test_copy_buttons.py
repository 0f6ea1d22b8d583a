"""Copy buttons written at build time (coursekit/content/copy_buttons.py).

The browser tests (tests/browser/test_pages.py) click one on every page and compare the
clipboard with the block; these check the markup itself.
"""

from __future__ import annotations

import re

import pytest

from coursekit.content import copy_buttons
from coursekit.content.errors import ContentError

HIGHLIGHTED = '<div class="highlight"><pre><span></span><code>x = 1\n</code></pre></div>'
PLAIN = "<pre><code>printed\n</code></pre>"


def test_every_code_block_gets_one_button_pointing_at_its_own_code() -> None:
    html = copy_buttons.add(HIGHLIGHTED + "<p>text</p>" + PLAIN)
    targets = re.findall(r'data-clipboard-target="#([^"]+)"', html)
    ids = re.findall(r'<code id="([^"]+)"', html)
    assert len(targets) == 2
    assert targets == ids
    assert len(set(ids)) == 2
    # Material's markup, inside the <pre> and before the <code>, so its stylesheet applies.
    assert '<pre><span></span><span class="md-code__nav"><button class="md-code__button"' in html
    assert 'data-md-type="copy"' in html


def test_a_block_with_an_id_keeps_it() -> None:
    html = copy_buttons.add('<pre><code data-id="no" id="1.given" class="x">y</code></pre>')
    assert 'data-clipboard-target="[id=&quot;1.given&quot;]"' in html
    assert html.count(" id=") == 1


def test_material_copy_buttons_must_stay_off() -> None:
    copy_buttons.check_features(["navigation.top"])
    with pytest.raises(ContentError, match=r"content\.code\.copy"):
        copy_buttons.check_features(["content.code.copy"])


def test_text_that_is_not_a_code_block_is_untouched() -> None:
    html = '<pre class="d2-structure">a -&gt; b</pre><p>&lt;pre&gt;&lt;code&gt;</p>'
    assert copy_buttons.add(html) == html
