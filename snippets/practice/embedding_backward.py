"""Exercise D.4: the embedding backward. Run it: python snippets/practice/embedding_backward.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch


def embedding_backward(tokens: torch.Tensor, dout: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """The gradient of the table E, from the gradient dout of out = E[tokens].

    tokens: integer ids of any shape, such as (N,) or (B, T).
    dout:   the shape of tokens, plus one last dimension D.
    Returns a (vocab_size, D) tensor.
    """
    dE = ...  # replace ...: start from zeros of shape (vocab_size, D)
    ...  # replace ...: add row i of dout into row tokens[i] of dE, for every i
    return dE


# When it works, try it: token 2 appears twice, so its row gets two rows of dout.
# tokens = torch.tensor([2, 0, 2])
# dout = torch.arange(9.0).reshape(3, 3)
# print(embedding_backward(tokens, dout, vocab_size=4))
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch
import torch.nn.functional as F


def embedding_backward(tokens: torch.Tensor, dout: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """The gradient of the table E, from the gradient dout of out = E[tokens]."""
    dim = dout.shape[-1]
    dE = torch.zeros(vocab_size, dim, dtype=dout.dtype)
    # One id per row: flatten (B, T) to (B * T,) and dout to (B * T, D), then scatter-add.
    dE.index_add_(0, tokens.reshape(-1), dout.reshape(-1, dim))
    return dE


tokens = torch.tensor([2, 0, 2])
dout = torch.arange(9.0).reshape(3, 3)
print(embedding_backward(tokens, dout, vocab_size=4))

# The same as autograd, on a (B, T) = (2, 3) batch:
torch.manual_seed(0)
E = torch.randn(4, 3, requires_grad=True)
batch = torch.tensor([[2, 0, 2], [3, 2, 1]])
upstream = torch.randn(2, 3, 3)
F.embedding(batch, E).backward(upstream)
print("equal to E.grad:", torch.allclose(embedding_backward(batch, upstream, 4), E.grad))
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks embedding_backward against autograd's gradient of F.embedding, on a list of
# tokens with repeats, and on a (B, T) batch.
from collections import Counter

import torch
import torch.nn.functional as F


def expected_gradient(tokens: torch.Tensor, dout: torch.Tensor, vocab_size: int) -> torch.Tensor:
    E = torch.zeros(vocab_size, dout.shape[-1], dtype=dout.dtype, requires_grad=True)
    F.embedding(tokens, E).backward(dout)
    return E.grad


def rows(t: torch.Tensor, ids: list[int]) -> str:
    return "; ".join(f"row {i}: {[round(v, 3) for v in t[i].tolist()]}" for i in ids)


def check() -> str:
    function = globals().get("embedding_backward")
    if not callable(function):
        return "Not done yet: run the cell above first; it defines embedding_backward."
    generator = torch.Generator().manual_seed(0)
    vocab_size, dim = 6, 3
    cases = [
        torch.tensor([2, 0, 2, 3]),  # token 2 twice
        torch.tensor([[2, 0, 2], [5, 2, 1]]),  # a (B, T) batch: token 2 three times
    ]
    for tokens in cases:
        dout = torch.randn(*tokens.shape, dim, generator=generator, dtype=torch.float64)
        expected = expected_gradient(tokens, dout, vocab_size)
        what = f"for tokens of shape {tuple(tokens.shape)}, {tokens.tolist()}"
        try:
            got = function(tokens.clone(), dout.clone(), vocab_size)
        except Exception as error:  # the learner's function may raise anything
            hint = ""
            if tokens.dim() > 1:
                hint = (
                    " It works on a flat list but not on a (B, T) batch: flatten the ids"
                    " with tokens.reshape(-1) and dout with dout.reshape(-1, D)."
                )
            return (
                f"Not quite: {what}, expected a ({vocab_size}, {dim}) gradient, got an"
                f" error: {type(error).__name__}: {error}.{hint}"
            )
        if got is Ellipsis or got is None:
            return "Not done yet: embedding_backward returns nothing yet; replace the ... in it."
        if not isinstance(got, torch.Tensor):
            return f"Not quite: {what}, expected a tensor, got {type(got).__name__}."
        if tuple(got.shape) != (vocab_size, dim):
            return (
                f"Not quite: {what}, expected a gradient of shape ({vocab_size}, {dim}),"
                f" one row per token of the vocabulary, got shape {tuple(got.shape)}."
            )
        got = got.detach().to(expected.dtype)
        if torch.allclose(got, expected):
            continue
        counts = Counter(tokens.flatten().tolist())
        wrong = [v for v in range(vocab_size) if not torch.allclose(got[v], expected[v])]
        repeated = [v for v in wrong if counts[v] > 1]
        unused = [v for v in wrong if counts[v] == 0]
        if wrong == repeated:
            ids, flat = tokens.reshape(-1), dout.reshape(-1, dim)
            one_row = all(any(torch.allclose(got[v], r) for r in flat[ids == v]) for v in repeated)
            averaged = all(torch.allclose(got[v] * counts[v], expected[v]) for v in repeated)
            if one_row:
                why = (
                    "only one of their rows: repeated ids must ADD their rows."
                    " dE[tokens] = dout and dE[tokens] += dout keep one write per row; use"
                    " dE.index_add_(0, ids, rows) or index_put_ with accumulate=True."
                )
            elif averaged:
                why = "the mean of their rows instead of the sum."
            else:
                why = "something other than the sum of their rows of dout."
            return (
                f"Not quite: {what}, the tokens that appear more than once are wrong:"
                f" expected {rows(expected, repeated)}, got {rows(got, repeated)}."
                f" They got {why}"
            )
        if unused and wrong == unused:
            return (
                f"Not quite: {what}, expected zero rows for tokens that never appear,"
                f" got {rows(got, unused)}. Start dE from zeros."
            )
        return (
            f"Not quite: {what}, expected {rows(expected, wrong[:2])},"
            f" got {rows(got, wrong[:2])}. Row v of dE is the sum of the rows of dout"
            " at the positions where token v was looked up."
        )
    return "Correct: embedding_backward matches autograd, repeated tokens and batches included."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]
