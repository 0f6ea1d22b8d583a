"""Plausible wrong answers to Exercise D.4 (snippets/practice/embedding_backward.py).

Each region replaces the starter cell; the check must answer "Not quite" with the right
diagnosis.
"""
# ruff: noqa: E402, F811

# --8<-- [start:plus-equals]
# dE[tokens] += dout looks like a scatter-add, but a repeated id keeps only one write.
import torch


def embedding_backward(tokens, dout, vocab_size):
    dim = dout.shape[-1]
    dE = torch.zeros(vocab_size, dim, dtype=dout.dtype)
    dE[tokens.reshape(-1)] += dout.reshape(-1, dim)
    return dE


# --8<-- [end:plus-equals]

# --8<-- [start:overwrite]
# Assigns the rows instead of adding them: a repeated token keeps one of its rows.
import torch


def embedding_backward(tokens, dout, vocab_size):
    dE = torch.zeros(vocab_size, dout.shape[-1], dtype=dout.dtype)
    dE[tokens] = dout
    return dE


# --8<-- [end:overwrite]

# --8<-- [start:no-flatten]
# index_add_ with the (B, T) ids as they are: it needs one id per row of a 2-D source.
import torch


def embedding_backward(tokens, dout, vocab_size):
    dE = torch.zeros(vocab_size, dout.shape[-1], dtype=dout.dtype)
    dE.index_add_(0, tokens, dout)
    return dE


# --8<-- [end:no-flatten]

# --8<-- [start:mean]
# Averages the rows of a repeated token instead of adding them.
import torch


def embedding_backward(tokens, dout, vocab_size):
    dim = dout.shape[-1]
    ids, rows = tokens.reshape(-1), dout.reshape(-1, dim)
    dE = torch.zeros(vocab_size, dim, dtype=dout.dtype).index_add_(0, ids, rows)
    counts = torch.bincount(ids, minlength=vocab_size).clamp(min=1)
    return dE / counts[:, None].to(dE.dtype)


# --8<-- [end:mean]

# --8<-- [start:empty-start]
# Starts from torch.empty: the rows of tokens that never appear hold leftover memory.
import torch


def embedding_backward(tokens, dout, vocab_size):
    dim = dout.shape[-1]
    dE = torch.full((vocab_size, dim), 1.0, dtype=dout.dtype)  # stands in for torch.empty
    dE[tokens.reshape(-1)] = 0.0
    dE.index_add_(0, tokens.reshape(-1), dout.reshape(-1, dim))
    return dE


# --8<-- [end:empty-start]
