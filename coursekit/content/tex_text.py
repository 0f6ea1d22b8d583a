"""TeX maths as plain text, for places that cannot hold MathML.

An ``<option>`` holds text only, and accessible names leave MathML out (axe-core, NVDA
and JAWS all drop it), so there the maths that :mod:`coursekit.content.mathml` drew is
read from its TeX source instead: ``\\frac{\\partial L}{\\partial w}`` reads "∂L/∂w".
"""

from __future__ import annotations

import html
import re
from types import MappingProxyType

# Commands in TEX_SYMBOLS read as their symbol, formatting commands vanish, and any other
# keeps its name (\sin, \log, \max), so "$2\sin(x)$" reads "2 sin(x)", not "2(x)".
TEX_SYMBOLS = MappingProxyType(
    {
        "alpha": "α",
        "beta": "β",
        "gamma": "γ",
        "delta": "δ",
        "epsilon": "ε",
        "varepsilon": "ε",
        "eta": "η",
        "theta": "θ",
        "lambda": "λ",
        "mu": "μ",
        "pi": "π",
        "rho": "ρ",
        "sigma": "σ",
        "tau": "τ",
        "phi": "φ",
        "omega": "ω",
        "Delta": "Δ",
        "Sigma": "Σ",
        "partial": "∂",
        "nabla": "∇",
        "times": "×",
        "cdot": "·",
        "approx": "≈",
        "le": "≤",
        "leq": "≤",
        "ge": "≥",
        "geq": "≥",
        "ne": "≠",
        "neq": "≠",
        "in": "∈",
        "infty": "∞",
        "sum": "Σ",
        "lVert": "‖",
        "rVert": "‖",
        "ldots": "…",
        "to": "→",
        "quad": " ",
    }
)
# Read with the next symbol ("∂b", "‖x"), not spaced from it.
TEX_PREFIXES = frozenset({"partial", "nabla", "sum", "lVert", "Delta"})
TEX_FORMATTING = frozenset(
    {"mathrm", "mathbf", "mathit", "mathbb", "mathcal", "text", "operatorname", "left", "right"}
)
TEX_ACCENTS = MappingProxyType({"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303"})
_FRAC = re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}")
# The MathML that mathml.to_mathml writes keeps its TeX source in alttext.
_MATHS = re.compile(r'<math[^>]*alttext="([^"]*)".*?</math>', re.S)


def tex_as_text(tex: str) -> str:
    """TeX source as plain (unescaped) text: ``v^{\\top} J`` reads "vᵀ J"."""
    # Accents combine with their letter (x̂); spacing commands are spaces.
    tex = re.sub(r"\\(hat|bar|tilde)\s*\{?(\w)\}?", lambda m: m[2] + TEX_ACCENTS[m[1]], tex)
    tex = re.sub(r"\\[,;:!]", " ", tex).replace("\\|", "‖")
    # Innermost groups first: ^{...} and \sqrt{...}, then fractions, until none is left.
    while True:
        before = tex
        tex = re.sub(r"\^\{\\top\}|\^\\top", "ᵀ", tex)
        tex = re.sub(
            r"\^\{([^{}]*)\}", lambda m: "^" + (m[1] if len(m[1]) == 1 else f"({m[1]})"), tex
        )
        tex = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", tex)
        tex = _FRAC.sub(lambda m: f"{_fraction_part(m[1])}/{_fraction_part(m[2])}", tex)
        if tex == before:
            break

    def command(m: re.Match[str]) -> str:
        name, space = m[1], " " if m[2] else ""
        if name in TEX_FORMATTING:
            return ""
        if name in TEX_SYMBOLS:
            return TEX_SYMBOLS[name] + ("" if name in TEX_PREFIXES else space)
        after_word = m.start() > 0 and tex[m.start() - 1].isalnum()
        return f"{' ' if after_word else ''}{name}{space}"

    tex = re.sub(r"\\([a-zA-Z]+)(\s*)", command, tex)
    return re.sub(r" {2,}", " ", re.sub(r"[{}]", "", tex)).strip()


def _fraction_part(part: str) -> str:
    """A sum or difference in a fraction gets brackets: "(a+b)/c", not "a+b/c"."""
    return f"({part.strip()})" if re.search(r"[-+]", part.strip()[1:]) else part.strip()


def html_as_text(rendered: str) -> str:
    """Rendered inline HTML as escaped text, each ``<math>`` read from its TeX source."""

    def maths(match: re.Match[str]) -> str:
        # Escaped, so that a "<" of the maths is not taken for a tag just below.
        return html.escape(tex_as_text(html.unescape(match[1])))

    return html.escape(html.unescape(re.sub(r"<[^>]+>", "", _MATHS.sub(maths, rendered))))
