"""The plugin's options (``plugins: - coursekit: ...`` in mkdocs.yml), one docstring each.

Folders are relative to ``docs_dir`` unless said otherwise. Every default is what this
site uses, so ``- coursekit`` alone builds it; the fixture sites of the tests set less.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class VersionNote(base.Config):
    """A change of PyTorch's behaviour that a page teaches (``version_notes:``)."""

    since = c.Type(str)
    """The first release that behaves as the page teaches ("2.14.0")."""

    before = c.Type(str)
    """The older release whose outputs are kept, in ``<older_records>/torch-<before>.yml``."""

    change = c.Type(str)
    """What changed, one sentence (inline `code` allowed)."""

    reference = c.Type(str)
    """The upstream source: the pull request or the release notes."""


class CourseConfig(base.Config):
    chapters = c.ListOfItems(c.Type(str), default=["chapters"])
    """Folders of chapter pages: each page there gets a notebook in ``<folder>/notebooks/``."""

    exercises = c.Type(str, default="practice/exercises")
    """Folder of the exercise pages; their order is the navigation's."""

    exercise_snippets = c.Type(str, default="snippets/practice")
    """Folder of the exercises' snippets (``starter``, ``solution``, ``check``), relative
    to the folder of mkdocs.yml."""

    exercise_notebooks = c.Type(str, default="practice/notebooks")
    """Folder of the exercise notebooks, generated from the pages and snippets."""

    quizzes = c.Type(str, default="practice/quizzes")
    """Folder of the quiz pages; a ``quiz-index`` fence lists them in navigation order."""

    interview = c.Type(str, default="interview")
    """Folder of the interview questions; its ``index.md`` and ``summary.md`` list them."""

    cache_dir = c.Type(str, default=".cache")
    """Where executed outputs, executed notebooks and diagrams are kept between builds,
    relative to the folder of mkdocs.yml (``make clean`` empties it)."""

    exec_cache = c.Type(bool, default=True)
    """Reuse the outputs of a page whose code did not change. Off: every block runs."""

    block_timeout = c.Type((int, float), default=60)
    """Seconds a block may run before it is stopped (a fence's ``timeout="5"`` overrides)."""

    repo_branch = c.Type(str, default="main")
    """The branch that Open in Colab and edit links open (the deploy sets REPO_BRANCH);
    the repository itself is MkDocs' own ``repo_url``."""

    record = c.Type(str, default="tests/recorded_outputs.yml")
    """The record of every block's expected output, relative to the folder of mkdocs.yml.
    A build fails when a block prints something else (beyond the last digits of floats);
    ``mkdocs serve`` shows the new output with a warning. ``""``: the site keeps no record
    (fixture sites that test something else)."""

    older_records = c.Type(str, default="tests/older_outputs")
    """Folder of the records of older PyTorch releases (``torch-2.13.0.yml``): the outputs
    of the blocks marked ``changed="<note>"``, shown under them as that release printed
    them. Relative to the folder of mkdocs.yml."""

    version_notes = c.DictOfItems(c.SubConfig(VersionNote), default={})
    """Changes of PyTorch's behaviour, by name; a fence's ``changed="<name>"`` shows its
    block's older output under it (see :mod:`coursekit.execution.older`)."""
