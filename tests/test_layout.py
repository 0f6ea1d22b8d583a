"""The engine's shape, checked: the core never imports MkDocs, nothing mutable sits at
module level, and a page's code imports only the figures.

* Only coursekit/mkdocs_adapter/ (and the test plugins, which use it to read a project)
  may import MkDocs or Material: moving the site to another generator is then one new
  adapter (Material for MkDocs reaches end of life in May 2027).
* Build state lives on the plugin and on the build it makes; a module keeps constants
  only (tuples, frozensets, read-only mappings). The one exception is the context
  variable through which a build hands figures its diagram renderer.
* The executed blocks of the pages import from coursekit only its figures, the code the
  execution cache keys every output by.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from support import ROOT

PACKAGE = ROOT / "coursekit"
MAY_IMPORT_MKDOCS = ("mkdocs_adapter", "testing")
MUTABLE = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
MUTABLE_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "Counter"}
ALLOWED_GLOBALS = {("figures/d2.py", "_current")}  # a ContextVar: one value per context


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _imports(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_only_the_adapter_imports_mkdocs(module: Path) -> None:
    relative = module.relative_to(PACKAGE)
    if relative.parts[0] in MAY_IMPORT_MKDOCS or relative.name == "__main__.py":
        return
    found = {
        name
        for name in _imports(ast.parse(module.read_text(encoding="utf-8")))
        if name.split(".")[0] in {"mkdocs", "material"} or name.startswith("coursekit.mkdocs_")
    }
    assert not found, f"{relative} imports {sorted(found)}: only mkdocs_adapter/ may"


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_mutable_state_at_module_level(module: Path) -> None:
    relative = module.relative_to(PACKAGE).as_posix()
    found = []
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        name = ast.unparse(targets[0])
        call = isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1]
        if (isinstance(value, MUTABLE) or call in MUTABLE_CALLS | {"ContextVar"}) and (
            relative,
            name,
        ) not in ALLOWED_GLOBALS:
            found.append(f"line {node.lineno}: {name}")
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and any(
            re.search(r"\b(lru_)?cache\b", ast.unparse(d)) for d in node.decorator_list
        ):
            found.append(f"line {node.lineno}: a memo of {node.name}() that outlives builds")
    assert not found, f"{relative} keeps state at module level: {found}"


def test_page_code_imports_only_the_figures() -> None:
    imports = re.compile(r"^\s*(?:from|import)\s+(coursekit[\w.]*)", re.M)
    found = {
        (page.relative_to(ROOT).as_posix(), name)
        for folder in ("docs", "snippets")
        for page in (ROOT / folder).rglob("*.*")
        if page.suffix in {".md", ".py"}
        for name in imports.findall(page.read_text(encoding="utf-8"))
        if not name.startswith("coursekit.figures")
    }
    assert not found, f"pages import more of coursekit than its figures: {sorted(found)}"
