"""What a reader sees on a phone, with JavaScript on and off: measured in one pass.

``READER_VIEW_JS`` is evaluated on every page at 390 px twice: in the per-page visit
(audit_page.py, JavaScript on, after its checks at desktop size), and in a visit without
JavaScript, in the dark scheme of the system (``NoScriptView``, conftest.py). Each list
it returns holds what a reader would trip on; test_pages.py turns each into a failure
that names the page and the kind of problem:

* ``width``: the page's width and the screen's (a page never scrolls sideways);
* ``empty_stops``: controls in the Tab order with an empty box (focus lands on nothing
  visible); ``EMPTY_STOPS_JS`` is the same check, run at desktop size too;
* ``broken_code``: inline code in a table cell broken inside a name (only a space or a
  dot may end a line of it: "t.detach().c" / "lone()" may not);
* ``lone_punctuation``: a full stop, comma or bracket on another line than the inline
  maths it belongs to;
* ``lone_permalinks``: a heading whose (invisible) permalink took a line of its own;
* ``hidden_blanks``: a quiz's blank not wholly inside its code box's visible part;
* ``quiz``: whether the page tells the reader to press "Check answer", and whether
  such a button is shown, and the line for readers without JavaScript.
"""

from __future__ import annotations

PHONE = {"width": 390, "height": 844}

EMPTY_STOPS_JS = """
() => {
  const describe = (el) => {
    const cls = typeof el.className === "string" && el.className.trim()
      ? "." + el.className.trim().split(/\\s+/).join(".") : "";
    const text = (el.textContent || el.getAttribute("aria-label") || "").trim()
      .replace(/\\s+/g, " ");
    return `<${el.tagName.toLowerCase()}${cls}> "${text.slice(0, 40)}"`;
  };
  const focusable = "a[href], area[href], button, input:not([type=hidden]), select, " +
    "textarea, summary, iframe, [tabindex], [contenteditable]";
  const empty = [];
  for (const el of document.querySelectorAll(focusable)) {
    if (el.tabIndex < 0 || el.disabled || el.closest("[inert]")) continue;
    if (el.type === "radio" && el.name) {
      // A group of radios is one Tab stop: the checked one, else the first.
      const group = [...document.getElementsByName(el.name)].filter((r) => r.form === el.form);
      if ((group.find((r) => r.checked) || group[0]) !== el) continue;
    }
    if (!el.checkVisibility({visibilityProperty: true})) continue;  // not in the Tab order
    const box = el.getBoundingClientRect();
    if (box.width < 1 || box.height < 1) {
      empty.push(`${describe(el)} ${Math.round(box.width)}×${Math.round(box.height)}`);
    }
  }
  return empty;
}
"""

READER_VIEW_JS = (
    """
() => {
  const emptyStops = """
    + EMPTY_STOPS_JS.strip()
    + """;
  const article = document.querySelector("article") || document.body;
  const charBox = (node, i) => {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    return range.getClientRects()[0] || null;
  };

  const brokenCode = [];
  for (const code of article.querySelectorAll("table code")) {
    if (!code.checkVisibility()) continue;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let text = "", top = null;
    const breaks = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const box = charBox(node, i);
        if (box && box.width > 0) {
          if (top !== null && box.top > top + 2) breaks.push(text.length);
          top = box.top;
        }
        text += node.data[i];
      }
    }
    for (const at of breaks) {
      const [start, rest] = [text.slice(0, at), text.slice(at)];
      if (!/[\\s.]$/.test(start) && !/^\\s/.test(rest)) brokenCode.push(`${start} / ${rest}`);
    }
  }

  const lonePunctuation = [];
  for (const math of article.querySelectorAll("math:not([display=block])")) {
    const lines = math.getClientRects();
    if (!lines.length || !math.checkVisibility()) continue;
    const tex = math.getAttribute("alttext");
    const next = math.nextSibling, previous = math.previousSibling;
    if (next && next.nodeType === 3 && /^[.,;:!?)]/.test(next.data)) {
      const box = charBox(next, 0);
      if (box && box.top >= lines[lines.length - 1].bottom - 2) {
        lonePunctuation.push(`$${tex}$ / ${next.data.trim().slice(0, 20)}`);
      }
    }
    if (previous && previous.nodeType === 3 && /[("]$/.test(previous.data)) {
      const box = charBox(previous, previous.length - 1);
      if (box && box.bottom <= lines[0].top + 2) {
        lonePunctuation.push(`${previous.data.trim().slice(-20)} / $${tex}$`);
      }
    }
  }

  const lonePermalinks = [];
  for (const link of article.querySelectorAll(":is(h1, h2, h3, h4, h5, h6) > a.headerlink")) {
    const heading = link.parentElement;
    if (!heading.checkVisibility()) continue;
    const range = document.createRange();
    range.setStart(heading, 0);
    range.setEndBefore(link);
    const lines = [...range.getClientRects()].filter((r) => r.width > 0);
    if (!lines.length) continue;
    const last = lines.reduce((a, b) => (b.top > a.top ? b : a));
    const box = link.getBoundingClientRect();
    // Something shown after it on its line (an interview page's Copy link button)?
    const rest = document.createRange();
    rest.setStartAfter(link);
    rest.setEnd(heading, heading.childNodes.length);
    const company = [...rest.getClientRects()]
      .some((r) => r.width > 0 && r.top < box.bottom && r.bottom > box.top);
    if (box.top >= last.bottom - 2 && !company) {
      lonePermalinks.push(`<${heading.tagName.toLowerCase()}> "${heading.textContent.trim()}"`);
    }
  }

  const hiddenBlanks = [];
  for (const blank of article.querySelectorAll(".quiz-blank")) {
    const code = blank.closest(".quiz-code").firstElementChild;
    const outer = code.getBoundingClientRect();
    const left = outer.left + code.clientLeft, top = outer.top + code.clientTop;
    const right = left + code.clientWidth, bottom = top + code.clientHeight;
    const box = blank.getBoundingClientRect();
    if (box.left < left - 0.5 || box.right > right + 0.5 || box.top < top - 0.5 ||
        box.bottom > bottom + 0.5) {
      hiddenBlanks.push(`#${blank.id} spans x ${Math.round(box.left)}–${Math.round(box.right)}` +
        `, its code box shows x ${Math.round(left)}–${Math.round(right)}`);
    }
  }

  const shown = (selector) => [...article.querySelectorAll(selector)]
    .filter((el) => el.checkVisibility({visibilityProperty: true}));
  const quiz = article.querySelector(".quiz") && {
    says_check_answer: article.innerText.includes("Check answer"),
    check_buttons: shown(".quiz-check").length,
    // <noscript> content is a text node when scripts run, an element when they do not.
    noscript_line: shown(".quiz-noscript").length,
  };

  return {
    width: [document.documentElement.scrollWidth, window.innerWidth],
    empty_stops: emptyStops(),
    broken_code: brokenCode,
    lone_punctuation: lonePunctuation,
    lone_permalinks: lonePermalinks,
    hidden_blanks: hiddenBlanks,
    quiz,
  };
}
"""
)

# The colours of the scheme on show: every custom property of <body> (Material's palette
# and the site's own), and the colours of the content, element by element: for each kind
# of element (tag and classes) in <article>, the colours (text, background, SVG fill and
# stroke) its elements have: the visible ones, or all of them (with JavaScript, where
# some that show without it are hidden: a step-through's list). The slate scheme with
# JavaScript and the dark scheme without it must give the same (test_pages.py); a
# diagram or a notebook whose own styles stayed light would not.
SCHEME_JS = """
(all) => {
  const style = getComputedStyle(document.body);
  const body = {};
  for (const name of style) {
    if (name.startsWith("--")) body[name] = style.getPropertyValue(name).trim();
  }
  body["color-scheme"] = style.colorScheme;
  body["color"] = style.color;
  body["background-color"] = style.backgroundColor;
  const content = {};
  const article = document.querySelector("article") || document.body;
  for (const el of [article, ...article.querySelectorAll("*")]) {
    if (!all && !el.checkVisibility()) continue;
    const own = getComputedStyle(el);
    const kind = el.tagName.toLowerCase() + [...el.classList].sort().map((c) => "." + c).join("");
    const colours = [own.color, own.backgroundColor, own.fill, own.stroke].join(" / ");
    (content[kind] ??= []).includes(colours) || content[kind].push(colours);
  }
  return {body, content};
}
"""
