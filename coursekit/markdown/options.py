"""Fence options: ``exec="on" session="s"`` → ``{"exec": "on", "session": "s"}``.

One reader for every tool that looks at a fence (the build, the drift check, the
notebooks, the quizzes), so they all agree on which fences run and how.
"""

from __future__ import annotations

import re

_OPTION = re.compile(r'(?P<key>[\w-]+)="(?P<value>[^"]*)"')
# markdown-exec's own reading of an on/off option: anything but these is on.
_OFF = frozenset({"", "no", "off", "false", "0"})


def parse(info: str) -> dict[str, str]:
    """The ``key="value"`` options of a fence's info string, in order."""
    return {m["key"]: m["value"] for m in _OPTION.finditer(info)}


def is_on(value: str | None) -> bool:
    """``exec="on"``, ``html="yes"``...: read as markdown-exec reads them."""
    return (value or "").strip().lower() not in _OFF
