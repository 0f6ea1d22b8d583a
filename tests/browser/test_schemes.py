"""Light and dark: one chapter's diagrams stay readable in both schemes.

(The contrast of code and maths on every page, in both schemes, is checked by
test_pages.py's test_code_and_maths_keep_their_contrast.)

Screenshots of the whole page go to screenshots/ at the repository root (gitignored), so a
reader can look at what was measured: screenshots/<chapter>-light.png and -dark.png.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .audit_page import SCHEMES, switch_to_dark
from .conftest import ROOT
from .contrast import contrast

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

CHAPTER = "chapters/chain-rule/"
SHOTS = ROOT / "screenshots"
INK_CONTRAST = 4.5  # a diagram's strokes and labels against its own background
MIN_INK = 0.005  # at least 0.5% of a diagram's pixels must be such ink

# Pixels of a PNG (a diagram's screenshot): the commonest colour is the background; "ink"
# is every pixel whose contrast with it reaches the threshold.
INK_JS = """
async ([png, threshold]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width;
  canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const data = ctx.getImageData(0, 0, img.width, img.height).data;
  const lum = (r, g, b) => {
    const f = (c) => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const counts = new Map();
  for (let i = 0; i < data.length; i += 4) {
    const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  const bgKey = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const bg = lum(bgKey >> 16, (bgKey >> 8) & 255, bgKey & 255);
  let ink = 0;
  for (const [key, n] of counts) {
    const l = lum(key >> 16, (key >> 8) & 255, key & 255);
    const ratio = (Math.max(l, bg) + 0.05) / (Math.min(l, bg) + 0.05);
    if (ratio >= threshold) ink += n;
  }
  return {ink: ink / (data.length / 4), background: "#" + bgKey.toString(16).padStart(6, "0")};
}
"""


def test_contrast_formula() -> None:
    """The formula agrees with WCAG's defining cases: black on white is 21, equal is 1."""
    assert contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(21.0)
    assert contrast("rgb(119, 119, 119)", "rgb(119, 119, 119)") == pytest.approx(1.0)
    assert contrast("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(1.0)


@pytest.fixture(params=SCHEMES)
def chapter(request: pytest.FixtureRequest, new_context: Callable[..., BrowserContext]) -> Any:
    context = new_context()
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(CHAPTER)
    if request.param == "dark":
        switch_to_dark(page)
    SHOTS.mkdir(exist_ok=True)
    name = CHAPTER.strip("/").split("/")[-1]
    page.screenshot(path=SHOTS / f"{name}-{request.param}.png", full_page=True)
    yield page, request.param
    context.close()


def test_diagrams_are_visible_and_readable(chapter: tuple[Page, str]) -> None:
    page, scheme = chapter
    diagrams = page.locator("article figure svg[role='img'], article figure img")
    assert diagrams.count(), f"{CHAPTER} has no diagram to measure"
    problems = []
    for i, diagram in enumerate(diagrams.all()):
        diagram.scroll_into_view_if_needed()
        box = diagram.bounding_box()
        if not box or box["width"] < 20 or box["height"] < 20 or not diagram.is_visible():
            problems.append(f"diagram {i + 1}: not visible (box {box})")
            continue
        png = base64.b64encode(diagram.screenshot()).decode()
        measured = page.evaluate(INK_JS, [png, INK_CONTRAST])
        if measured["ink"] < MIN_INK:
            problems.append(
                f"diagram {i + 1}: only {measured['ink']:.2%} of its pixels reach "
                f"{INK_CONTRAST}:1 against its background {measured['background']}"
            )
    assert not problems, f"{CHAPTER} ({scheme}):\n" + "\n".join(problems)
