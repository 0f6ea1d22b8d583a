"""WCAG contrast of two CSS colours, as the browser tests read them from computed styles."""

from __future__ import annotations

import re

TEXT_CONTRAST = 4.5  # WCAG AA for normal text


def _rgba(css: str) -> tuple[float, float, float, float]:
    numbers = [float(n) for n in re.findall(r"[\d.]+", css)]
    r, g, b = numbers[:3]
    return r, g, b, numbers[3] if len(numbers) > 3 else 1.0


def _luminance(r: float, g: float, b: float) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(foreground: str, background: str) -> float:
    """WCAG contrast ratio; a translucent foreground is blended over the background first."""
    fr, fg, fb, alpha = _rgba(foreground)
    br, bg, bb, _ = _rgba(background)
    blended = [alpha * f + (1 - alpha) * b for f, b in ((fr, br), (fg, bg), (fb, bb))]
    lighter, darker = sorted([_luminance(*blended), _luminance(br, bg, bb)], reverse=True)
    return (lighter + 0.05) / (darker + 0.05)
