"""The repository the site is built from, and the notebook links under a page's title.

The repository's address (``REPO_URL``, e.g. ``https://github.com/owner/course``) and
branch (``REPO_BRANCH``, default ``main``) are set by the deploy workflow and read in
``mkdocs.yml``. From them come the edit-this-page links (``edit_uri``) and the **Open
in Colab** links, which open a notebook committed on that branch. Without an address
there is no Colab link and no edit link; the download links need nothing but the site.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from urllib.parse import urlsplit

COLAB = "https://colab.research.google.com/github"


@dataclass(frozen=True)
class Repository:
    url: str  # without a trailing slash
    branch: str

    @property
    def edit_uri(self) -> str:
        """MkDocs' ``edit_uri``: relative to ``repo_url``, ends in the docs folder."""
        return f"edit/{self.branch}/docs/"

    def colab_url(self, path: str) -> str | None:
        """Colab's address of ``path`` (relative to the repository root), GitHub only."""
        parts = urlsplit(self.url)
        if parts.netloc.lower() != "github.com":
            return None  # Colab opens notebooks from github.com only
        owner_name = parts.path.strip("/").removesuffix(".git")
        return f"{COLAB}/{owner_name}/blob/{self.branch}/{path}"


def repository(repo_url: str | None, branch: str | None = None) -> Repository | None:
    """The repository, or None when the site is built without an address."""
    if not repo_url:
        return None
    return Repository(repo_url.rstrip("/"), branch or "main")


def links_html(download: str | None, colab: str | None) -> str:
    """The paragraph of notebook links; empty when there is neither."""
    links = []
    if download:
        name = download.rsplit("/", 1)[-1]
        links.append(
            f'<a class="md-button" href="{html.escape(download)}" download="{html.escape(name)}">'
            "Download notebook</a>"
        )
    if colab:
        links.append(f'<a class="md-button" href="{html.escape(colab)}">Open in Colab</a>')
    if not links:
        return ""
    return f'<p class="notebook-links">{" ".join(links)}</p>'


# Paragraphs that belong under the title, before the notebook links.
_UNDER_TITLE = ('<p class="run-stamp">', '<p class="notebook-download">')


def insert_under_title(page_html: str, block: str) -> str:
    """Put ``block`` right under the page's title and its run stamp or download note."""
    if not block:
        return page_html
    head, found, rest = page_html.partition("</h1>")
    if not found:
        return block + page_html
    keep = 0
    while rest[keep:].lstrip().startswith(_UNDER_TITLE):
        keep = rest.index("</p>", keep) + len("</p>")
    return f"{head}{found}{rest[:keep]}\n{block}{rest[keep:]}"
