"""What a block prints: PyTorch's warnings as a learner would read them."""

from __future__ import annotations

from coursekit.execution import run_block

NON_LEAF_GRAD = """\
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3
print(y.grad)
"""


def test_pytorch_warnings_lose_pytorchs_own_build_path() -> None:
    chunks: list[str] = []
    run_block(NON_LEAF_GRAD, {"__name__": "__course__"}, chunks.append, filename="docs/x.md")
    output = "".join(chunks)
    assert output.startswith("UserWarning: The .grad attribute of a Tensor that is not a leaf")
    assert "Triggered internally" not in output and "/__w/" not in output
    assert output.endswith("for more information.\nNone\n")
