"""What a block prints: PyTorch's warnings as a learner would read them."""

from __future__ import annotations

from pathlib import Path

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


def test_an_error_in_included_code_names_the_snippets_file_and_line(tmp_path: Path) -> None:
    from coursekit.execution.page_run import run_page
    from coursekit.markdown.includes import Includes
    from coursekit.markdown.page import read_page

    snippet = tmp_path / "snippets" / "part" / "page.py"
    snippet.parent.mkdir(parents=True)
    snippet.write_text(
        "import math\n"  # line 1
        "# --8<-- [start:work]\n"
        "x = 1\n"
        "# --8<-- [start:work-maths]\n"  # a nested marker: not shown, not counted
        "y = x + 1\n"
        "# --8<-- [end:work-maths]\n"
        "print(y / (x - 1))\n"  # line 7: the error
        "# --8<-- [end:work]\n",
        encoding="utf-8",
    )
    page = '# Page\n\n```python exec="on"\n--8<-- "part/page.py:work"\n```\n'
    includes = Includes({"base_path": ["snippets"]}, tmp_path)
    source = read_page(page, "docs/page.md", includes)
    failure = run_page(list(source.blocks))[0].failure
    assert failure is not None
    assert failure.headline.startswith(
        "snippets/part/page.py:7 (included by docs/page.md:3): ZeroDivisionError"
    ), failure.headline
    assert 'File "snippets/part/page.py", line 7' in failure.report()
