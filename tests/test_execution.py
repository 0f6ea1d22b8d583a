"""What a block prints: PyTorch's warnings as a learner would read them."""

from __future__ import annotations

from coursekit.execution.runner import run_block

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


def test_a_page_cannot_change_torchs_switches_for_the_next_one() -> None:
    import torch

    from coursekit.execution.page_run import run_page
    from coursekit.markdown.blocks import Block

    code = (
        "import torch\n"
        "torch.set_grad_enabled(False)\n"
        "torch.set_default_dtype(torch.float64)\n"
        "print(torch.is_grad_enabled(), torch.get_default_dtype())\n"
    )
    block = Block(page="docs/p.md", line=1, number=1, key="k", code=code)
    assert run_page([block])[0].output == "False torch.float64\n"
    assert torch.is_grad_enabled() and torch.get_default_dtype() == torch.float32
