"""The engine's shape, checked: nothing mutable sits at module level, and a page's code
imports only the figures.

* Which layer of coursekit/ may import which, and that only the adapter imports MkDocs,
  is import-linter's job (pyproject.toml, [tool.importlinter]; tests/test_lint.py).
* Build state lives on the plugin and on the build it makes; a module keeps constants
  only (tuples, frozensets, read-only mappings) and changes nothing at import. The
  exceptions are listed with their reasons (ALLOWED_GLOBALS: the context variable through
  which a build hands figures its diagram renderer; ALLOWED_STATEMENTS).
* The executed blocks of the pages import from coursekit only its figures, the code the
  execution cache keys every output by.
* Every exception class of the engine derives from coursekit.errors.CourseError, the
  one base the adapter turns into MkDocs' error (coursekit/mkdocs_adapter/errors.py).
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ROOT

from coursekit.errors import CourseError

PACKAGE = ROOT / "coursekit"


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


# --- State at module level --------------------------------------------------------------
#
# Read from the syntax tree of each module (nothing is imported), with these rules:
#
# * A name bound at import holds a constant: no list, dict or set display or
#   comprehension (nor inside a tuple or a MappingProxyType), no generator, and a call
#   only if it is in IMMUTABLE_CALLS, or is a VALUE_METHODS method of such a value
#   (`Path(__file__).resolve()`, `PALETTE.count("\n")`). Any other call is refused:
#   `CACHE = make_cache()` may return anything.
# * A statement that only calls something (`REGISTRY.append(x)`, `ET.register_namespace(..)`)
#   or sets or deletes an item or attribute (`TABLE[k] = v`, `module.X = v`) changes state
#   at import: refused unless ALLOWED_STATEMENTS gives the reason it is harmless.
#   `if __name__ == "__main__":` blocks do not run at import and are not read.
# * No function rebinds a module's name (`global`); `nonlocal` stays within one call.
# * A class attribute is shared by every instance: a class body binds no mutable display
#   or MUTABLE_CALLS call either (a dataclass `field(default_factory=...)` is per instance).
# * functools.cache / lru_cache is a memo that outlives builds (under `mkdocs serve`,
#   across rebuilds, keyed by arguments only, so a changed file gives a stale answer):
#   refused on functions and methods alike. functools.cached_property lives on one
#   instance, so it is allowed.
#
# Decorators that register (pytest-markdown-docs' `@register_runner()`, used once by
# coursekit/testing/drift.py and checked by tests/test_private_apis.py) are not read.

MUTABLE_DISPLAYS = (
    ast.Dict,
    ast.List,
    ast.Set,
    ast.DictComp,
    ast.ListComp,
    ast.SetComp,
    ast.GeneratorExp,  # an iterator: consumed once, by whoever comes first
)
# Named for a clearer message; every call not in IMMUTABLE_CALLS is refused anyway.
MUTABLE_CALLS = frozenset(
    {
        "dict",
        "list",
        "set",
        "bytearray",
        "defaultdict",
        "OrderedDict",
        "deque",
        "Counter",
        "ChainMap",
        "SimpleNamespace",
        "WeakKeyDictionary",
        "WeakValueDictionary",
        "WeakSet",
        "ContextVar",
    }
)
# Calls whose result is a constant, by dotted name (`MappingProxyType` also matches
# `types.MappingProxyType`). A logger is process-wide and configured by MkDocs, not here.
IMMUTABLE_CALLS = frozenset(
    {
        "MappingProxyType",
        "frozenset",
        "tuple",
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "re.compile",
        "logging.getLogger",
        "Path",
        "PurePosixPath",
        "os.environ.get",
        "os.getenv",
        "TypeVar",
        "ParamSpec",
        "NewType",
        "NamedTuple",
        "TypedDict",
        "namedtuple",
        "cast",
        "StashKey",  # pytest's typed key for a config's stash; it holds nothing itself
    }
)
# Of IMMUTABLE_CALLS, those that keep (a copy of) their argument: what it holds must be
# constant too (`MappingProxyType({"a": []})` hands out a shared list).
WRAPPERS = frozenset({"MappingProxyType", "frozenset", "tuple"})
# Methods of a constant str or Path that return a new constant.
VALUE_METHODS = frozenset(
    {
        "count",
        "format",
        "join",
        "strip",
        "lower",
        "upper",
        "replace",
        "removeprefix",
        "removesuffix",
        "resolve",
        "absolute",
        "with_suffix",
        "with_name",
        "joinpath",
        "relative_to",
        "as_posix",
    }
)
# Methods that change their object: named in the message of a refused statement.
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "update",
        "setdefault",
        "add",
        "discard",
        "remove",
        "pop",
        "popitem",
        "clear",
        "sort",
        "reverse",
        "set",
        "__setitem__",
    }
)
ALLOWED_GLOBALS = frozenset({("figures/d2.py", "_current")})  # a ContextVar: one value per context
# Read by `import *` and linters only; a list by convention (changing it is still refused).
ALLOWED_NAMES = frozenset({"__all__"})
ALLOWED_STATEMENTS = frozenset(
    {
        # The module's own yaml.SafeDumper subclass, given its str representer once at
        # import; the same for every build, and no other dumper sees it.
        ("execution/record.py", "_LiteralDumper.add_representer"),
        # ElementTree's prefix registry is process-wide: every ElementTree user in the
        # process now writes these two namespaces with these prefixes. Idempotent and the
        # same for every build; a candidate for the serialiser's own `default_namespace`.
        ("figures/svg_cleanup.py", "ET.register_namespace"),
    }
)


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of names (`pytest.StashKey[X]` reads as `pytest.StashKey`)."""
    if isinstance(node, ast.Subscript):
        return _dotted(node.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return base and f"{base}.{node.attr}"
    return None


def _is(name: str | None, names: frozenset[str]) -> bool:
    return name is not None and any(name == n or name.endswith(f".{n}") for n in names)


def _mutable(node: ast.expr, bound: frozenset[str]) -> str | None:
    """Why the value of ``node``, made at import, is or holds a mutable object, or None.

    ``bound`` are the names the module itself binds at import (checked where bound).
    """
    if isinstance(node, MUTABLE_DISPLAYS):
        return f"{ast.unparse(node)[:40]!r} is mutable"
    if isinstance(node, ast.Lambda | ast.JoinedStr | ast.Compare):
        return None  # a function (its body runs later), a str, a bool
    if isinstance(node, ast.Call):
        return _mutable_call(node, bound)
    if isinstance(node, ast.Subscript):  # an index or a type's parameters: `Callable[[str], T]`
        return _mutable(node.value, bound)
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr) and (why := _mutable(child, bound)):
            return why
    return None


def _mutable_call(call: ast.Call, bound: frozenset[str]) -> str | None:
    name = _dotted(call.func)
    shown = ast.unparse(call.func)
    if _is(name, MUTABLE_CALLS):
        return f"{shown}() makes a mutable object"
    if _is(name, IMMUTABLE_CALLS):
        if not _is(name, WRAPPERS):
            return None  # what it was given is consumed, not kept
        for arg in call.args:
            held: list[ast.expr | None] = []
            if isinstance(arg, ast.Dict):
                held = [*arg.keys, *arg.values]
            elif isinstance(arg, ast.List | ast.Set | ast.Tuple):
                held = list(arg.elts)
            elif isinstance(arg, ast.ListComp | ast.SetComp | ast.GeneratorExp):
                held = [arg.elt]
            elif isinstance(arg, ast.DictComp):
                held = [arg.key, arg.value]
            for item in held:
                if item is not None and (why := _mutable(item, bound)):
                    return f"{shown}() holds a mutable value: {why}"
        return None
    func = call.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in VALUE_METHODS
        and _constant_receiver(func.value, bound)
    ):
        return None
    return f"{shown}() may return a mutable object (if it never does, list it in IMMUTABLE_CALLS)"


def _constant_receiver(node: ast.expr, bound: frozenset[str]) -> bool:
    """A str or Path constant whose value methods return constants (not an imported module:
    `itertools.count()` is an iterator)."""
    if isinstance(node, ast.Constant | ast.JoinedStr):
        return True
    if isinstance(node, ast.Name):
        return node.id in bound
    if isinstance(node, ast.Attribute):
        return _constant_receiver(node.value, bound)
    if isinstance(node, ast.Call):
        return (
            isinstance(node.func, ast.Name | ast.Attribute) and _mutable_call(node, bound) is None
        )
    return False


def _runs_at_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's statements that run at import, nested blocks included, not functions."""
    for node in body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'":
            continue
        yield node
        if isinstance(node, ast.If | ast.For | ast.While | ast.With | ast.Try):
            nested = [getattr(node, field, []) for field in ("body", "orelse", "finalbody")]
            nested += [handler.body for handler in getattr(node, "handlers", [])]
            for block in nested:
                yield from _runs_at_import(block)


def _bound_names(targets: list[ast.expr]) -> Iterator[ast.Name]:
    for target in targets:
        if isinstance(target, ast.Name):
            yield target
        elif isinstance(target, ast.Tuple | ast.List):
            yield from _bound_names(list(target.elts))


def _class_state(cls: ast.ClassDef) -> Iterator[str]:
    for node in cls.body:
        if isinstance(node, ast.ClassDef):
            yield from _class_state(node)
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if value is None:
            continue
        name = _dotted(value.func) if isinstance(value, ast.Call) else None
        if isinstance(value, MUTABLE_DISPLAYS) or _is(name, MUTABLE_CALLS):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            yield (
                f"line {node.lineno}: {cls.name}.{ast.unparse(target)} is shared by every "
                f"instance: {ast.unparse(value)[:40]!r} is mutable"
            )


def module_state(source: str, relative: str) -> list[str]:
    """Where a module keeps state at module level, one "line N: why" each (rules above)."""
    tree = ast.parse(source)
    statements = list(_runs_at_import(tree.body))
    bound = frozenset(
        name.id
        for node in statements
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        for name in _bound_names(node.targets if isinstance(node, ast.Assign) else [node.target])
    )
    found = []
    for node in statements:
        if isinstance(node, ast.ClassDef):
            found += _class_state(node)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            changed = [t for t in targets if isinstance(t, ast.Subscript | ast.Attribute)]
            names = [
                n.id
                for n in _bound_names(targets)
                if (relative, n.id) not in ALLOWED_GLOBALS and n.id not in ALLOWED_NAMES
            ]
            if changed:
                found.append(f"line {node.lineno}: sets {ast.unparse(changed[0])} at import")
            elif names and (why := _mutable(node.value, bound)):
                found.append(f"line {node.lineno}: {', '.join(names)}: {why}")
        elif isinstance(node, ast.Delete):
            found.append(f"line {node.lineno}: deletes {ast.unparse(node.targets[0])} at import")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            name = _dotted(func) or ast.unparse(func)
            if (relative, name) in ALLOWED_STATEMENTS:
                continue
            if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
                why = f"changes {ast.unparse(func.value)} at import"
            else:
                why = "is called for its effect at import"
            found.append(f"line {node.lineno}: {name}() {why}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append(f"line {node.lineno}: `global {', '.join(node.names)}` in a function")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if _is(_dotted(called), frozenset({"cache", "lru_cache"})):
                    found.append(
                        f"line {node.lineno}: a memo of {node.name}() that outlives builds"
                    )
    return found


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_mutable_state_at_module_level(module: Path) -> None:
    relative = module.relative_to(PACKAGE).as_posix()
    found = module_state(module.read_text(encoding="utf-8"), relative)
    assert not found, f"{relative} keeps state at module level: {found}"


@pytest.mark.parametrize(
    "source",
    [
        "SEEN = dict()",
        "CACHE = make_cache()",  # anything may come back from an unknown call
        "QUEUE = collections.deque()",
        "PAIRS = (1, [2])",
        "TABLE = MappingProxyType({'a': []})",
        "COUNTER = itertools.count()",
        "WORDS = 'a b'.split()",
        "REGISTRY.append(1)",
        "__all__.append('more')",
        "REGISTRY.update(a=1)",
        "REGISTRY.setdefault('a', 1)",
        "NAMES.add('a')",
        "TABLE['a'] = 1",
        "module.FLAG = True",
        "def f():\n    global SEEN\n    SEEN = 1",
        "@functools.lru_cache(maxsize=None)\ndef f(): ...",
        "class Plugin:\n    seen = []",
        "try:\n    import fast\nexcept ImportError:\n    SEEN = {}",
    ],
)
def test_the_state_check_refuses(source: str) -> None:
    assert module_state(source, "scratch.py")


@pytest.mark.parametrize(
    "source",
    [
        "TABLE = MappingProxyType({'a': frozenset({1, 2}), 'b': (1, 2)})",
        "__all__ = ['TABLE']",
        "WORDS = tuple(['a', 'b'])",
        "PATTERN = re.compile('x', re.S | re.I)",
        "log = logging.getLogger('mkdocs.plugins.x')",
        "T = TypeVar('T')",
        "PACKAGE = Path(__file__).resolve().parent",
        "TEXT = 'a\\nb'\nLINES = TEXT.count('\\n')",
        "Resolve = Callable[[str], str | None]",
        "@cached_property\ndef f(self): ...",
        "@dataclass\nclass Run:\n    seen: dict[str, int] = field(default_factory=dict)",
        "if __name__ == '__main__':\n    main()",
    ],
)
def test_the_state_check_allows_constants(source: str) -> None:
    assert module_state(source, "scratch.py") == []


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


# --- One error base ---------------------------------------------------------------------
#
# An error a course author must fix derives from CourseError, whose message names file
# and line; the adapter turns that base, and only it, into MkDocs' error. Not read here:
# testing/ (pytest's own failures, AssertionErrors) and mkdocs_adapter/ (MkDocs' errors).
NOT_ENGINE = ("testing", "mkdocs_adapter")


def _engine_errors() -> list[type[BaseException]]:
    """The exception classes defined at the top level of every engine module (imported)."""
    found = []
    for path in _modules():
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in NOT_ENGINE:
            continue
        name = ".".join(("coursekit", *relative.with_suffix("").parts)).removesuffix(".__init__")
        module = importlib.import_module(name)
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, BaseException)
            and value.__module__ == name
        ]
    return found


def test_every_engine_error_derives_from_course_error() -> None:
    errors = _engine_errors()
    # The scan sees the engine's errors at all (a base class of its own, a subclass of one).
    assert {"CourseError", "FenceError", "BlockTimeout"} <= {e.__name__ for e in errors}
    stray = [
        f"{e.__module__}.{e.__qualname__}({', '.join(b.__name__ for b in e.__bases__)})"
        for e in errors
        if not issubclass(e, CourseError)
    ]
    assert not stray, f"not CourseErrors, so the build would print a traceback: {stray}"


def test_no_control_character_in_a_page_or_snippet() -> None:
    """A control character in a source ("\\a" of "\\approx" written through a Python string)
    is invisible in an editor and invalid in the built HTML (W3C Nu: U+0007)."""
    control = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
    found = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}: "
        f"U+{ord(match[0]):04X}"
        for folder in ("docs", "snippets")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in {".md", ".py", ".ipynb", ".yml"}
        for text in [path.read_text(encoding="utf-8")]
        for match in control.finditer(text)
    ]
    assert not found, found
