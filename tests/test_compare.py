"""The comparison with the record: only the last digits of floats may differ.

Both sides: what another CPU does to a float32 result passes as numerical; a changed
word, integer or a float beyond the tolerance is a real difference.
"""

from __future__ import annotations

import pytest

from coursekit.execution.compare import Verdict, compare, floats_match

NUMERICAL = [
    # The last digits of a float32 loss, printed in full by .item().
    ("loss 0.6931471824645996", "loss 0.6931471228599548"),
    # torch.tanh(0.5) in float64 with MKL's AVX-512 and AVX2 code paths.
    ("0.46211715726000974", "0.4621171572600098"),
    # A rounding flip in the 4th digit of a tensor print, and its column padding.
    ("tensor([ 0.9886, -2.0000])", "tensor([ 0.9887, -2.0000])"),
    ("tensor([0.1000,  1.0000])", "tensor([0.1000, 1.0000])"),
    ("z.grad = tensor([1.8155e-04, 4.7684e-07])", "z.grad = tensor([1.8156e-04, 4.7684e-07])"),
    ("9.999", "10.00"),
]
REAL = [
    ("tensor(60.)", "tensor(61.)"),  # an exact gradient that changed
    ("tensor(0.9886)", "tensor(0.9891)"),  # 5 units in the 4th digit: not rounding
    ("clamp at 0: [1.0]", "clamp at 0: [0.0]"),
    ("3 blocks", "4 blocks"),  # an integer
    ("60", "60.0"),  # an integer became a float
    ("torch 2.13.0", "torch 2.15.0"),  # a version is text, not a float
    ("requires_grad=True", "requires_grad=False"),
    ("a\nb", "a\nb\nc"),  # a line more
    ("tensor(0.5000)", "tensor(-0.5000)"),  # the sign
    ("tensor(nan)", "tensor(inf)"),
    ("1e-07", "0."),  # a tiny float that became zero is not a last digit
]


@pytest.mark.parametrize(("recorded", "now"), NUMERICAL)
def test_the_last_digits_of_a_float_are_numerical(recorded: str, now: str) -> None:
    assert compare(recorded, now) is Verdict.NUMERICAL


@pytest.mark.parametrize(("recorded", "now"), REAL)
def test_anything_else_is_a_real_difference(recorded: str, now: str) -> None:
    assert compare(recorded, now) is Verdict.REAL


def test_the_same_output_is_the_same() -> None:
    assert compare("tensor(60.)\n", "tensor(60.)\n") is Verdict.SAME


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [(1.0, 1.001, True), (1.0, 1.0011, False), (0.05, 0.05001, True), (0.05, 0.0501, False)],
)
def test_one_unit_in_the_fourth_significant_digit(a: float, b: float, match: bool) -> None:
    assert floats_match(a, b) is match
