"""Compare an output with its record, knowing which differences are only numerical.

Another CPU or another BLAS rounds floating-point sums in another order, and the last
digits of a float change with it. Those differences are reported apart and do not fail;
everything else does. An output is split into its numbers and the text between them
(:func:`tokens`), and two outputs are compared token by token:

* the text between numbers must be the same, up to runs of spaces (a tensor pads its
  columns to the widest number, so one more digit moves the spaces);
* an integer (no ``.`` and no exponent) must be the same integer;
* two floats match when they differ by at most one unit in their 4th significant digit
  (:func:`floats_match`): ``0.9886`` and ``0.9887``, or the last digit of a float32 loss,
  are numerical; ``0.9886`` and ``0.9891``, or ``tensor(60.)`` and ``tensor(61.)``, are not.

So a page may print a float to any precision, but its prose quotes at most three
significant digits of any float that is not exact.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum

# A number standing on its own: not part of a word ("float32", "x1"), of a version
# ("2.15.0") or of a longer dotted name.
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.]|\.\d)")
_SPACES = re.compile(r"[ \t]+")
SIGNIFICANT_DIGITS = 4
TOLERANCE = (
    f"floats may differ by one unit in their {SIGNIFICANT_DIGITS}th significant digit; "
    "words, integers and the layout may not differ at all"
)


class Verdict(Enum):
    SAME = "same"  # byte for byte
    NUMERICAL = "numerical"  # only the last digits of floats differ (within tolerance)
    REAL = "real"  # anything else: a word, an integer, a float beyond the tolerance


@dataclass(frozen=True)
class Number:
    text: str

    @property
    def is_float(self) -> bool:
        return any(c in self.text for c in ".eE")

    @property
    def value(self) -> float:
        return float(self.text)


def tokens(output: str) -> tuple[list[str], list[Number]]:
    """The text around the numbers (spaces collapsed; one more piece than numbers), and
    the numbers."""
    numbers = [Number(m[0]) for m in _NUMBER.finditer(output)]
    text = [_SPACES.sub(" ", piece) for piece in _NUMBER.split(output)]
    return text, numbers


def floats_match(a: float, b: float) -> bool:
    """At most one unit apart in the 4th significant digit of the larger of the two."""
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    largest = max(abs(a), abs(b))
    unit = 10.0 ** (math.floor(math.log10(largest)) - (SIGNIFICANT_DIGITS - 1))
    # A hair of slack: "0.9887" - "0.9886" is not exactly 1e-4 in binary.
    return abs(a - b) <= unit * (1 + 1e-9)


def _numbers_match(a: Number, b: Number) -> bool:
    if a.is_float != b.is_float:
        return False  # "60" and "60.0" are different things to print
    if not a.is_float:
        return int(a.text) == int(b.text)
    return floats_match(a.value, b.value)


def compare(expected: str, actual: str) -> Verdict:
    """How ``actual`` differs from the recorded ``expected`` output."""
    if expected == actual:
        return Verdict.SAME
    text_a, numbers_a = tokens(expected)
    text_b, numbers_b = tokens(actual)
    if text_a != text_b or len(numbers_a) != len(numbers_b):
        return Verdict.REAL
    if all(_numbers_match(a, b) for a, b in zip(numbers_a, numbers_b, strict=True)):
        return Verdict.NUMERICAL
    return Verdict.REAL
