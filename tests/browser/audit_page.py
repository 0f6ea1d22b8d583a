"""One visit of one page: everything the per-page browser tests check, recorded once.

A visit loads the page in a clean browser context (light scheme) and records every
request and console message; it measures every image and diagram, looks for TeX left as
text, lists Tab stops without a box, runs axe-core, switches to the dark scheme with the
real palette toggle, records its colours and runs axe-core's colour rules again, clicks one
code block's copy button, and last narrows the window to a phone's width and measures what
a reader there would trip on (reader_view.py). The tests in test_pages.py each assert one
part of the record, so a failure names both the page and the kind of problem.

Colour contrast: axe's color-contrast rule spends most of a visit on two kinds of text
whose colours come from a handful of styles, the highlighted tokens of code blocks and
the parts of MathML formulas (7 of the 9 s of axe on the longest chapter). axe checks
every other text; those two are checked by TEXT_COLOURS_JS instead, in both schemes: each
run of text with its own colour, against the colour painted behind it, with WCAG's AA
thresholds (test_pages.py, test_code_and_maths_keep_their_contrast).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from axe_playwright_python.sync_playwright import Axe

from .reader_view import EMPTY_STOPS_JS, PHONE, READER_VIEW_JS, SCHEME_JS

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Request, Response, Route

SERIOUS = {"serious", "critical"}
SCHEMES = ("light", "dark")
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
# Text whose contrast TEXT_COLOURS_JS checks instead of axe (see the module docstring).
OWN_CONTRAST = ("pre", ".highlight", "math")
OWN_CONTRAST_SKIPPED = "*" + "".join(f":not({s}):not({s} *)" for s in OWN_CONTRAST)

# Every run of text in code blocks and formulas with its own colour, the colour behind
# it, and its size and weight (WCAG's thresholds depend on them); one entry per distinct
# combination, with the first text that has it.
TEXT_COLOURS_JS = """
() => {
  // The colour seen behind an element: translucent backgrounds (an admonition title's
  // tint) blended, from the nearest opaque one up.
  const behind = (el) => {
    const layers = [];
    for (; el; el = el.parentElement) {
      const [r, g, b, a = 1] = (getComputedStyle(el).backgroundColor.match(/[\\d.]+/g) || [])
        .map(Number);
      if (r === undefined || a === 0) continue;
      layers.push([r, g, b, a]);
      if (a === 1) break;
    }
    let [r, g, b] = [255, 255, 255];
    for (const [lr, lg, lb, a] of layers.reverse()) {
      [r, g, b] = [a * lr + (1 - a) * r, a * lg + (1 - a) * g, a * lb + (1 - a) * b];
    }
    return `rgb(${Math.round(r)}, ${Math.round(g)}, ${Math.round(b)})`;
  };
  const seen = new Map();
  const article = document.querySelector("article") || document.body;
  const runs = [...article.querySelectorAll("pre code, pre code span, math, math *")];
  for (const el of runs) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.checkVisibility()) continue;
    const style = getComputedStyle(el);
    const entry = {
      kind: el.closest("math") ? "maths" : "code",
      color: style.color,
      background: behind(el),
      px: parseFloat(style.fontSize),
      bold: parseInt(style.fontWeight, 10) >= 700,
      text: el.textContent.trim().slice(0, 40),
    };
    const key = [entry.kind, entry.color, entry.background, entry.px, entry.bold].join("|");
    if (!seen.has(key)) seen.set(key, entry);
  }
  return [...seen.values()];
}
"""
COPY_BUTTON = '.md-clipboard, .md-code__button[data-md-type="copy"]'
_AXE = Axe()
# axe-core, once per page (a second copy would reset its configuration), with its
# color-contrast rule told to skip OWN_CONTRAST: one run does what a run of every other
# rule and a scoped contrast run did, for a fifth less CPU.
AXE_RUN_JS = f"""async (options) => {{
  if (!window.axe) {{
    {_AXE.axe_script}
    const selector = {json.dumps(OWN_CONTRAST_SKIPPED)};
    axe.configure({{rules: [{{id: "color-contrast", selector}}]}});
  }}
  return (await axe.run(document, options)).violations;
}}"""

# Opens collapsed <details> and selects the tab holding an element, so it can be measured.
REVEAL_JS = """
() => { window.__reveal = (el) => {
  for (let node = el.parentElement; node; node = node.parentElement) {
    if (node.tagName === "DETAILS") node.open = true;
    if (node.classList.contains("tabbed-block")) {
      const set = node.closest(".tabbed-set");
      const inputs = [...set.children].filter((c) => c.tagName === "INPUT");
      const input = inputs[[...node.parentElement.children].indexOf(node)];
      if (input) input.checked = true;
    }
  }
}; }
"""

# Every <img> on the page, and every diagram drawn as inline SVG in the content. Icons (SVG
# inside buttons, links' icons, emoji, nested SVG) are decoration, not diagrams.
MEDIA_JS = """
async () => {
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 &&
      el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  };
  const size = (el) => {
    const box = el.getBoundingClientRect();
    return [Math.round(box.width), Math.round(box.height)];
  };
  const found = [];
  for (const img of document.querySelectorAll("img")) {
    window.__reveal(img);
    img.loading = "eager";
    img.scrollIntoView({block: "center"});
    try { await img.decode(); } catch (error) { /* judged by naturalWidth below */ }
    found.push({
      what: `<img src="${img.getAttribute("src")}">`,
      loaded: img.complete && img.naturalWidth > 0,
      visible: shown(img),
      size: size(img),
      name: (img.getAttribute("alt") || "").trim(),
    });
  }
  const article = document.querySelector("article") || document.body;
  const icon = "svg svg, .twemoji svg, button svg, a.headerlink svg, .md-icon svg, " +
    "[aria-hidden='true'] svg, svg[aria-hidden='true']";
  let index = 0;
  for (const svg of article.querySelectorAll("svg")) {
    if (svg.matches(icon) && svg.getAttribute("role") !== "img") continue;
    index += 1;
    window.__reveal(svg);
    svg.scrollIntoView({block: "center"});
    const labelledby = (svg.getAttribute("aria-labelledby") || "").split(/\\s+/)
      .map((id) => document.getElementById(id)?.textContent || "").join(" ");
    const title = svg.querySelector(":scope > title")?.textContent || "";
    const name = (svg.getAttribute("aria-label") || labelledby || title).trim();
    found.push({
      what: `inline <svg> #${index} "${name.slice(0, 60)}"`,
      loaded: svg.childElementCount > 0,
      visible: shown(svg),
      size: size(svg),
      name: svg.getAttribute("role") === "img" ? name : "",
    });
  }
  return found;
}
"""

# Code blocks in the content that lack a copy button, as short descriptions.
MISSING_BUTTONS_JS = """
(selector) => [...document.querySelectorAll("article pre > code")]
  .filter((code) => !code.parentElement.querySelector(selector))
  .map((code) => code.textContent.trim().split("\\n")[0].slice(0, 60))
"""

# Text that still looks like TeX between dollars ($2u$, $\frac{a}{b}$): maths the build
# did not turn into MathML. Code, and the MathML itself, are left out; "$5 and $10" is not
# matched because the text between the dollars must not start or end with a space.
RAW_TEX_JS = """
() => {
  const skip = "code, pre, script, style, noscript, math, textarea, kbd, samp";
  const tex = /\\$(?=\\S)[^$\\n]{1,120}(?<=\\S)\\$/g;
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest(skip)) continue;
    for (const match of node.textContent.matchAll(tex)) found.push(match[0]);
  }
  return found;
}
"""

# The labels of D2 diagrams (coursekit/figures/d2.py), and those that leave their shape. D2
# sized each shape for its label in Source Sans Pro; the page draws it in its own font.
# A label must lie inside a box shape, and its two ends, at mid-height, inside an oval.
LABELS_JS = """
() => {
  const nodes = [...document.querySelectorAll("article svg.d2-svg g:has(> g.shape):has(> text)")];
  const size = (b) => `${Math.round(b.width)}×${Math.round(b.height)}`;
  const fits = (box, shape, oval) => {
    if (oval) {
      const rx = shape.width / 2, ry = shape.height / 2;
      const cx = shape.x + rx, cy = shape.y + ry, y = box.y + box.height / 2;
      const inside = (x) => ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
      return inside(box.x) && inside(box.x + box.width);
    }
    return box.x >= shape.x && box.y >= shape.y && box.x + box.width <= shape.x + shape.width &&
      box.y + box.height <= shape.y + shape.height;
  };
  const overflowing = nodes.flatMap((node) => {
    window.__reveal(node);
    const outline = node.querySelector(":scope > g.shape");
    const shape = outline.getBBox();
    const oval = outline.querySelector("ellipse") !== null;
    return [...node.querySelectorAll(":scope > text")].map((text) => {
      const box = text.getBBox();
      const lines = [...text.querySelectorAll("tspan")].map((line) => line.textContent);
      const label = lines.length ? lines.join(" ") : text.textContent;
      return fits(box, shape, oval) ? null :
        `"${label}": text ${size(box)} in ${oval ? "an oval" : "a shape"} ${size(shape)}`;
    });
  }).filter(Boolean);
  return {diagrams: document.querySelectorAll("article svg.d2-svg").length,
    labels: nodes.length, overflowing};
}
"""

DONE_SWITCHING_JS = """
() => !document.body.hasAttribute("data-md-color-switching") &&
  document.getAnimations().every((a) => a.playState !== "running" ||
    a.effect.getComputedTiming().iterations === Infinity)
"""


@dataclass
class PageAudit:
    """What one visit of one page saw."""

    path: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    media: list[dict[str, Any]] = field(default_factory=list)
    code_blocks_without_button: list[str] = field(default_factory=list)
    raw_tex: list[str] = field(default_factory=list)
    labels: dict[str, Any] = field(default_factory=dict)  # D2 labels checked, and misfits
    copied: tuple[str, str] | None = None  # (code in the block, text on the clipboard)
    axe: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    colours: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # by scheme
    empty_stops: list[str] = field(default_factory=list)  # at desktop size
    slate: dict[str, Any] = field(default_factory=dict)  # the dark scheme's: SCHEME_JS
    phone: dict[str, Any] = field(default_factory=dict)  # reader_view.READER_VIEW_JS
    errors: dict[str, str] = field(default_factory=dict)  # a step that could not run


def audit_page(new_context: Callable[..., BrowserContext], site_url: str, path: str) -> PageAudit:
    """Visit ``path`` once in a clean context and record everything the tests check."""
    origin = urlsplit(site_url)[:2]
    audit = PageAudit(path)
    context = new_context()
    context.set_default_timeout(10_000)
    page = context.new_page()

    def route(route: Route) -> None:
        url = route.request.url
        if is_own(url, origin):
            route.continue_()
        else:
            audit.foreign_requests.append(url)
            route.abort("blockedbyclient")

    def failed(request: Request) -> None:
        if request.url not in audit.foreign_requests:  # already reported as third-party
            audit.failed_requests.append(f"{request.url} ({request.failure})")

    context.route("**/*", route)
    page.on("requestfailed", failed)
    page.on(
        "response",
        lambda r: r.status >= 400 and audit.failed_requests.append(f"{r.url} (HTTP {r.status})"),
    )
    page.on(
        "console",
        lambda m: m.type == "error" and audit.console_errors.append(f"{m.text} {m.location}"),
    )
    page.on("pageerror", lambda e: audit.console_errors.append(f"uncaught: {e}"))
    try:
        _step(audit, "load", lambda: _load(page, path))
        if "load" not in audit.errors:
            _step(audit, "media", lambda: audit.media.extend(page.evaluate(MEDIA_JS)))
            _step(audit, "maths", lambda: audit.raw_tex.extend(page.evaluate(RAW_TEX_JS)))
            _step(audit, "labels", lambda: audit.labels.update(page.evaluate(LABELS_JS)))
            stops = audit.empty_stops
            _step(audit, "keyboard", lambda: stops.extend(page.evaluate(EMPTY_STOPS_JS)))
            _step(audit, "axe-light", lambda: _axe(page, audit, "light"))
            _step(audit, "dark", lambda: switch_to_dark(page))
        if not {"load", "dark"} & audit.errors.keys():
            _step(audit, "slate", lambda: audit.slate.update(page.evaluate(SCHEME_JS, True)))
            _step(audit, "axe-dark", lambda: _axe(page, audit, "dark"))
        if "load" not in audit.errors:
            # After axe: the "Copied to clipboard" toast it shows would be caught mid-fade.
            _step(audit, "copy", lambda: _check_copy(page, audit))
            # Last, as it changes the window's size: the page as a phone shows it.
            _step(audit, "phone", lambda: audit.phone.update(on_a_phone(page)))
        # Requests made late (after the checks) are recorded too.
        _step(audit, "load", lambda: page.wait_for_load_state("networkidle"))
    finally:
        context.close()
    return audit


@dataclass
class NoScriptView:
    """What a reader without JavaScript, on a phone whose system is dark, sees of a page."""

    path: str
    failed_requests: list[str] = field(default_factory=list)
    phone: dict[str, Any] = field(default_factory=dict)  # reader_view.READER_VIEW_JS
    scheme: dict[str, Any] = field(default_factory=dict)  # reader_view.SCHEME_JS
    colours: list[dict[str, Any]] = field(default_factory=list)  # TEXT_COLOURS_JS
    error: str | None = None


def view_without_js(page: Page, path: str) -> NoScriptView:
    """Load ``path`` in ``page``, whose context runs no script (conftest.py, no_js_views),
    and record what reader_view.py measures, the scheme's colours and those of code and
    maths (the test's own evaluations run; the page's scripts do not)."""
    view = NoScriptView(path)

    def failed(response: Response) -> None:
        if response.status >= 400:
            view.failed_requests.append(f"{response.url} (HTTP {response.status})")

    page.on("response", failed)
    try:
        response = page.goto(path)
        if response is None or not response.ok:
            raise AssertionError(f"the page itself did not load ({response and response.status})")
        view.phone = page.evaluate(READER_VIEW_JS)
        view.scheme = page.evaluate(SCHEME_JS, False)
        view.colours = page.evaluate(TEXT_COLOURS_JS)
    except Exception as error:  # reported by the tests that read the view
        view.error = f"{type(error).__name__}: {error}"
    finally:
        page.remove_listener("response", failed)
    return view


def on_a_phone(page: Page) -> dict[str, Any]:
    """The window narrowed to a phone's width (no second load): reader_view.py's record."""
    page.set_viewport_size(PHONE)
    # Two frames: Material's own resize handlers have run and the layout is settled.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return page.evaluate(READER_VIEW_JS)


def _load(page: Page, path: str) -> None:
    response = page.goto(path)
    if response is None or not response.ok:
        status = response.status if response else "no response"
        raise AssertionError(f"the page itself did not load ({status})")
    page.evaluate(REVEAL_JS)


def is_own(url: str, origin: tuple[str, str]) -> bool:
    """True for the site's own origin and for in-page data (data:, blob:, about:)."""
    parts = urlsplit(url)
    return parts.scheme in {"data", "blob", "about"} or parts[:2] == origin


def _step(audit: PageAudit, name: str, action: Callable[[], object]) -> None:
    try:
        action()
    except Exception as error:  # recorded and reported by the test that needs this step
        audit.errors[name] = f"{type(error).__name__}: {error}"


def _check_copy(page: Page, audit: PageAudit) -> None:
    audit.code_blocks_without_button = page.evaluate(MISSING_BUTTONS_JS, COPY_BUTTON)
    buttons = page.locator(f"article :is({COPY_BUTTON})")
    if buttons.count() == 0:
        return
    button = buttons.first
    code = page.evaluate(
        """(button) => {
          const target = button.getAttribute("data-clipboard-target");
          const pre = button.closest("pre");
          const code = target ? document.querySelector(target) : pre.querySelector("code");
          window.__reveal(code);
          return code.textContent;
        }""",
        button.element_handle(),
    )
    # A sentinel first, so a button that does nothing cannot pass on stale clipboard text.
    page.evaluate("() => navigator.clipboard.writeText('(nothing was copied)')")
    button.scroll_into_view_if_needed()
    button.hover()
    button.click()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    audit.copied = (code.rstrip("\n"), copied)


def _axe(page: Page, audit: PageAudit, scheme: str) -> None:
    # One run per scheme: in the light, every rule; in the dark only axe's colour rules
    # (those on by default: not the AAA color-contrast-enhanced), since switching the
    # scheme changes colours only. Both skip the text TEXT_COLOURS_JS checks instead.
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if scheme == "dark":
        options["runOnly"] = {"type": "rule", "values": COLOUR_RULES}
    violations = page.evaluate(AXE_RUN_JS, options)
    audit.colours[scheme] = page.evaluate(TEXT_COLOURS_JS)
    audit.axe[scheme] = [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            # Each element with the first line of axe's reason (e.g. the measured contrast).
            "nodes": [
                (" ".join(map(str, n["target"])), _first_reason(n.get("failureSummary", "")))
                for n in v["nodes"]
            ],
        }
        for v in violations
        if v["impact"] in SERIOUS
    ]


def _first_reason(summary: str) -> str:
    lines = [line.strip() for line in summary.splitlines()[1:] if line.strip()]
    return lines[0] if lines else ""


def switch_to_dark(page: Page) -> None:
    """Click the palette toggle (as a reader would) until the slate scheme is on."""
    for _ in range(4):  # a palette may have several entries; the toggle cycles through them
        if page.evaluate("() => document.body.dataset.mdColorScheme") == "slate":
            break
        page.locator("form[data-course-palette] label:visible").first.click()
        page.wait_for_function(DONE_SWITCHING_JS)
    else:
        raise AssertionError("the palette toggle never switched to the slate (dark) scheme")
    page.wait_for_function(DONE_SWITCHING_JS)


def describe_violations(violations: list[dict[str, Any]], limit: int = 8) -> str:
    lines = []
    for v in violations:
        lines.append(f"- {v['id']} ({v['impact']}, {len(v['nodes'])}×): {v['help']}")
        lines += [f"    {target}: {reason}" for target, reason in v["nodes"][:limit]]
        if len(v["nodes"]) > limit:
            lines.append(f"    … and {len(v['nodes']) - limit} more")
    return "\n".join(lines)
