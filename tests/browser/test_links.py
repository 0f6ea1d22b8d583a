"""Every internal link and #anchor in the built site resolves (no browser needed).

Each HTML file of the build is parsed; every <a href>, and every resource the page loads
(<img src>, <script src>, <link href>, <source src>), that points into the site must
name a file that exists, and a #fragment must name an id (or name) in that file.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

# Links that are not requests or in-site targets: the canonical URL is the public address.
NOT_CHECKED_REL = {"canonical", "alternate", "me", "author"}
RESOURCE_ATTRS = {"img": "src", "script": "src", "source": "src", "link": "href"}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, url)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name in ("id", "name"):
            if values.get(name):
                self.ids.add(values[name])
        if tag == "a" and "href" in values:
            self.links.append((tag, values["href"]))
        elif tag in RESOURCE_ATTRS and RESOURCE_ATTRS[tag] in values:
            rel = set(values.get("rel", "").split())
            if tag == "link" and rel & NOT_CHECKED_REL:
                return
            self.links.append((tag, values[RESOURCE_ATTRS[tag]]))


def _parse(path: Path, cache: dict[Path, _Page]) -> _Page:
    if path not in cache:
        parser = _Page()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = parser
    return cache[path]


def _target(site: Path, page: Path, url: str) -> tuple[Path, str] | None:
    """The file and fragment ``url`` names inside the site, or None if it leaves the site."""
    base = "/" + page.relative_to(site).as_posix()
    parts = urlsplit(urljoin(base, url))
    if parts.scheme not in {"", "http", "https"} or parts.netloc:
        return None  # another site, mailto:, data: ...
    path = PurePosixPath(unquote(parts.path))
    target = site.joinpath(*path.parts[1:])
    if parts.path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target, unquote(parts.fragment)


def broken_links(site: Path) -> list[str]:
    cache: dict[Path, _Page] = {}
    broken = []
    for page in sorted(site.rglob("*.html")):
        for tag, url in _parse(page, cache).links:
            if not url or url.startswith(("javascript:", "data:", "blob:")):
                continue
            found = _target(site, page, url)
            if found is None:
                continue
            target, fragment = found
            where = f"{page.relative_to(site)}: <{tag}> {url}"
            if not target.is_file():
                broken.append(f"{where} -> no file {target.relative_to(site)}")
            elif (
                fragment and target.suffix == ".html" and fragment not in _parse(target, cache).ids
            ):
                broken.append(f"{where} -> no id {fragment!r} in {target.relative_to(site)}")
    return broken


def test_every_internal_link_and_anchor_resolves(site_dir: Path) -> None:
    broken = broken_links(site_dir)
    assert not broken, f"{len(broken)} broken link(s):\n" + "\n".join(f"- {b}" for b in broken)


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    """A dead page link, a dead anchor and a missing image are each reported."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h1 id="top">A</h1>', encoding="utf-8")
    (tmp_path / "index.html").write_text(
        '<a href="a/">ok</a> <a href="a/#top">ok</a> <a href="https://example.org/x">ok</a>'
        '<a href="b/">dead</a> <a href="a/#nowhere">dead</a> <img src="pic.png" alt="x">',
        encoding="utf-8",
    )
    broken = broken_links(tmp_path)
    assert [b.split(": ", 1)[1] for b in broken] == [
        "<a> b/ -> no file b/index.html",
        "<a> a/#nowhere -> no id 'nowhere' in a/index.html",
        "<img> pic.png -> no file pic.png",
    ]
