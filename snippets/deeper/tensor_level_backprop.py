"""Examples for the page "Backprop at tensor level, generalised".

Each region is included by docs/deeper/tensor-level-backprop.md. Run the whole file with
`python snippets/deeper/tensor_level_backprop.py`. The hand-written backward rules
(`unbroadcast`, `embedding_backward`, the stable softmax and logsumexp, the softmax
Jacobian and its product, `layer_norm_forward` and `layer_norm_backward`) are functions
at the top level, so that a test can import them; the printing demos run only when the
file is run as a script.
"""

# --8<-- [start:imports]
from typing import Any

import torch
import torch.nn.functional as F

# --8<-- [end:imports]


# --8<-- [start:compare]
def compare(name: str, by_hand: torch.Tensor, by_autograd: torch.Tensor) -> None:
    """Fail loudly if the two differ in shape or beyond float rounding; else say so."""
    torch.testing.assert_close(by_hand, by_autograd)  # raises an error if they differ
    print(f"{name:<12} {tuple(by_hand.shape)!s:<10} matches autograd")


# --8<-- [end:compare]


# --8<-- [start:unbroadcast]
def unbroadcast(grad: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    """Sum `grad` (shaped like a broadcast result) down to `shape`, the input's shape."""
    shape = tuple(shape)
    # 1. Broadcasting put extra dimensions in front of the input: sum them away.
    extra = grad.dim() - len(shape)
    if extra > 0:  # guard: grad.sum(dim=()) would sum over every dimension
        grad = grad.sum(dim=tuple(range(extra)))
    # 2. Where the input had size 1 and the result has more, the input was copied:
    #    sum the copies, and keep the dimension (size 1) so the shape matches.
    copied = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if copied:
        grad = grad.sum(dim=copied, keepdim=True)
    return grad


# --8<-- [end:unbroadcast]


# --8<-- [start:embedding-backward]
def embedding_backward(tokens: torch.Tensor, dout: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """The gradient of the table E from the gradient of out = E[tokens]."""
    dim = dout.shape[-1]
    dE = torch.zeros(vocab_size, dim, dtype=dout.dtype)
    # Row tokens[i] of dE receives row i of dout, and repeated tokens ADD their rows.
    dE.index_add_(0, tokens.reshape(-1), dout.reshape(-1, dim))
    return dE


# --8<-- [end:embedding-backward]


# --8<-- [start:stable-softmax]
def stable_softmax(z: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """softmax(z) = softmax(z - max z): the largest exponent is e^0 = 1, never inf."""
    shifted = z - z.amax(dim=dim, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=dim, keepdim=True)


def stable_logsumexp(z: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """log sum exp(z) = m + log sum exp(z - m), with m = max z; the sum is at least 1."""
    m = z.amax(dim=dim, keepdim=True)
    return (m + (z - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim)


# --8<-- [end:stable-softmax]


# --8<-- [start:softmax-jacobian]
def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    """J[i, j] = dp_i / dz_j = p_i (delta_ij - p_j): diag(p) - p pᵀ, for one vector p."""
    return torch.diag(p) - torch.outer(p, p)


def softmax_backward(p: torch.Tensor, dp: torch.Tensor) -> torch.Tensor:
    """Jᵀ dp without building J: dz = p * (dp - sum(p * dp)), row by row."""
    return p * (dp - (p * dp).sum(dim=-1, keepdim=True))


# --8<-- [end:softmax-jacobian]


# --8<-- [start:layer-norm-forward]
def layer_norm_forward(
    x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, eps: float = 1e-5
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """Normalise each row of x over its last dimension, then scale and shift."""
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)  # the biased variance, as PyTorch
    sigma = (var + eps).sqrt()
    x_hat = (x - mu) / sigma  # every row: mean 0, variance close to 1
    y = gamma * x_hat + beta
    return y, (x_hat, sigma)  # what the backward pass needs


# --8<-- [end:layer-norm-forward]


# --8<-- [start:layer-norm-backward]
def layer_norm_backward(
    dy: torch.Tensor, x_hat: torch.Tensor, sigma: torch.Tensor, gamma: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """dx, dgamma, dbeta of y = gamma * x_hat + beta, with x_hat = (x - mean) / sigma."""
    rows = tuple(range(dy.dim() - 1))  # every dimension but the last: gamma was broadcast
    dgamma = (dy * x_hat).sum(dim=rows)
    dbeta = dy.sum(dim=rows)
    dx_hat = dy * gamma
    dx = (
        dx_hat
        - dx_hat.mean(dim=-1, keepdim=True)  # because the mean depends on x
        - x_hat * (dx_hat * x_hat).mean(dim=-1, keepdim=True)  # because sigma does
    ) / sigma
    return dx, dgamma, dbeta


# --8<-- [end:layer-norm-backward]


# --8<-- [start:layer-norm-function]
class LayerNormByHand(torch.autograd.Function):
    """layer_norm_forward with layer_norm_backward as its backward pass."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        y, (x_hat, sigma) = layer_norm_forward(x, gamma, beta)
        ctx.save_for_backward(x_hat, sigma, gamma)
        return y

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        x_hat, sigma, gamma = ctx.saved_tensors
        return layer_norm_backward(dy, x_hat, sigma, gamma)


# --8<-- [end:layer-norm-function]


if __name__ == "__main__":
    # --8<-- [start:broadcast-by-hand]
    a = torch.tensor([[1.0], [2.0]], requires_grad=True)  # shape (2, 1)
    b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)  # shape (3,)
    out = a + b  # shape (2, 3): a is copied along columns, b along rows
    print("out =", out)

    upstream = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # dL/d(out), some numbers
    out.backward(upstream)
    print("a.grad =", a.grad)
    print("b.grad =", b.grad)
    # --8<-- [end:broadcast-by-hand]

    # --8<-- [start:unbroadcast-check]
    torch.manual_seed(0)
    cases = [  # (shape of a, shape of b): each a is broadcast to the shape of a * b
        ((3,), (4, 3)),  # a new leading dimension
        ((4, 1), (4, 3)),  # a dimension of size 1, copied
        ((1, 3), (2, 4, 3)),  # both at once
        ((2, 1, 3), (2, 4, 1)),  # both inputs are broadcast
        ((), (2, 3)),  # a scalar: every dimension is new
        ((5, 1, 1), (4, 3)),  # broadcast the other way too: a's result is (5, 4, 3)
    ]
    for shape_a, shape_b in cases:
        a = torch.randn(shape_a, requires_grad=True)
        b = torch.randn(shape_b)
        out = a * b
        upstream = torch.randn(out.shape)
        out.backward(upstream)
        # By hand: d(a * b)/da = b, elementwise, in the shape of out; then sum it down.
        da = unbroadcast(upstream * b, a.shape)
        torch.testing.assert_close(da, a.grad)
        print(
            f"a {shape_a!s:<10} b {shape_b!s:<10} out {tuple(out.shape)!s:<10}"
            f" unbroadcast gives {tuple(da.shape)!s:<10} = a.grad"
        )
    # --8<-- [end:unbroadcast-check]

    # --8<-- [start:empty-dims]
    grad = torch.ones(2, 3)
    print("grad.sum(dim=())  =", grad.sum(dim=()))  # no dimension listed: sums them all
    print("unbroadcast(grad, (2, 3)) has shape", tuple(unbroadcast(grad, (2, 3)).shape))
    # --8<-- [end:empty-dims]

    # --8<-- [start:wrong-sums]
    torch.manual_seed(0)
    grad = torch.randn(4, 3)  # the gradient of a (4, 3) result; the input had shape (4, 1)
    print("right:             ", tuple(unbroadcast(grad, (4, 1)).shape))
    print("without keepdim:   ", tuple(grad.sum(dim=1).shape))
    print("the wrong axis:    ", tuple(grad.sum(dim=0, keepdim=True).shape))
    param = torch.zeros(4, 1)
    print(
        "param - 0.1 * (the gradient without keepdim) has shape",
        tuple((param - 0.1 * grad.sum(dim=1)).shape),
    )
    # --8<-- [end:wrong-sums]

    # --8<-- [start:sum-to-size]
    torch.manual_seed(0)
    for shape_a, shape_b in cases:
        out_shape = torch.broadcast_shapes(shape_a, shape_b)
        grad = torch.randn(out_shape)
        same = torch.equal(unbroadcast(grad, shape_a), grad.sum_to_size(shape_a))
        print(f"{shape_a!s:<10} from {tuple(out_shape)!s:<10} same as sum_to_size: {same}")
    # --8<-- [end:sum-to-size]

    # --8<-- [start:engine-reduces]
    class AddNoReduce(torch.autograd.Function):
        """a + b, whose backward hands back the full-size gradient to both inputs."""

        @staticmethod
        def forward(ctx: Any, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return a + b

        @staticmethod
        def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            print("backward returns shapes", tuple(grad_out.shape), "and", tuple(grad_out.shape))
            return grad_out, grad_out  # not summed down

    a = torch.tensor([[1.0], [2.0]], requires_grad=True)  # (2, 1)
    b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)  # (3,)
    upstream = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # the numbers used above
    AddNoReduce.apply(a, b).backward(upstream)
    print("a.grad =", a.grad)
    print("b.grad =", b.grad)
    # --8<-- [end:engine-reduces]

    # --8<-- [start:engine-refuses]
    class AddWrongAxis(torch.autograd.Function):
        """a + b, whose backward sums a's gradient over the wrong dimension."""

        @staticmethod
        def forward(ctx: Any, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return a + b

        @staticmethod
        def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return grad_out.sum(dim=0, keepdim=True), grad_out  # (1, 3), but a is (2, 1)

    # --8<-- [end:engine-refuses]

    # --8<-- [start:embedding-forward]
    torch.manual_seed(0)
    vocab_size, dim = 5, 3
    E = torch.randn(vocab_size, dim, requires_grad=True)  # one row (embedding) per token
    tokens = torch.tensor([2, 0, 2, 3])  # token 2 appears twice
    out = F.embedding(tokens, E)  # the same as E[tokens]: row tokens[i] of E, for each i
    print("out has shape", tuple(out.shape), "made by", out.grad_fn.name())
    print("E[tokens] is the same:", torch.equal(out, E[tokens]))

    one_hot = F.one_hot(tokens, vocab_size).to(E.dtype)  # (4, 5): a 1 in column tokens[i]
    print("one_hot @ E is the same:", torch.equal(out, one_hot @ E))
    # --8<-- [end:embedding-forward]

    # --8<-- [start:embedding-check]
    dout = torch.arange(12.0).reshape(4, 3)  # dL/d(out): easy numbers, one row per lookup
    out.backward(dout)

    dE = embedding_backward(tokens, dout, vocab_size)
    compare("dE", dE, E.grad)
    print("dE =", dE)
    print("row 2 = dout[0] + dout[2]:", torch.equal(dE[2], dout[0] + dout[2]))
    print("dE = one_hotᵀ @ dout:", torch.equal(dE, one_hot.T @ dout))
    # --8<-- [end:embedding-check]

    # --8<-- [start:embedding-pitfall]
    overwritten = torch.zeros(vocab_size, dim)
    overwritten[tokens] += dout  # looks like a scatter-add, but is a read, add, then write
    print("dE[tokens] += dout gives row 2 =", overwritten[2])

    accumulated = torch.zeros(vocab_size, dim)
    accumulated.index_put_((tokens,), dout, accumulate=True)  # adds repeated rows
    print("index_put_(accumulate=True) gives row 2 =", accumulated[2])
    # --8<-- [end:embedding-pitfall]

    # --8<-- [start:embedding-batch]
    batch = torch.tensor([[2, 0, 2], [4, 2, 1]])  # (B, T) = (2, 3): token 2 three times
    E.grad = None
    out = F.embedding(batch, E)  # (2, 3, 3)
    dout = torch.randn(out.shape)
    out.backward(dout)
    compare("dE (B, T)", embedding_backward(batch, dout, vocab_size), E.grad)
    # --8<-- [end:embedding-batch]

    # --8<-- [start:embedding-options]
    tokens = torch.tensor([2, 0, 2, 3, 0])  # token 2 twice, token 0 (the padding) twice
    # --8<-- [start:embedding-options-maths]
    torch.manual_seed(0)
    E = torch.randn(vocab_size, dim, requires_grad=True)
    dout = torch.arange(float(tokens.numel() * dim)).reshape(-1, dim)  # easy numbers
    grads = {}
    for name, options in [
        ("plain", {}),
        ("padding_idx=0", {"padding_idx": 0}),
        ("scale_grad_by_freq", {"scale_grad_by_freq": True}),
        ("sparse", {"sparse": True}),
    ]:
        E.grad = None
        F.embedding(tokens, E, **options).backward(dout)
        grads[name] = E.grad

    by_hand = embedding_backward(tokens, dout, vocab_size)  # the scatter-add
    compare("plain", by_hand, grads["plain"])
    print("dE =", grads["plain"])
    padded = by_hand.clone()
    padded[0] = 0.0  # the padding row gets no gradient
    compare("padding_idx", padded, grads["padding_idx=0"])
    print("padding_idx=0: row 0 =", grads["padding_idx=0"][0])
    counts = torch.bincount(tokens, minlength=vocab_size)  # lookups of each token
    compare("by freq", by_hand / counts.clamp(min=1).unsqueeze(1), grads["scale_grad_by_freq"])
    print("scale_grad_by_freq: rows 0 and 2 =", grads["scale_grad_by_freq"][[0, 2]])

    sparse = grads["sparse"]  # _nnz and _indices: the entries, before any summing
    rows = sparse._indices()[0].tolist()
    print("sparse:", sparse.layout, "with", sparse._nnz(), "entries, rows", rows)
    summed = sparse.coalesce()  # adds the entries that share a row
    print("coalesce():", summed._nnz(), "entries, rows", summed.indices()[0].tolist())
    compare("coalesced", summed.to_dense(), grads["plain"])

    E.grad = None  # two options together: sparse with padding_idx, then with scale_grad_by_freq
    F.embedding(tokens, E, padding_idx=0, sparse=True).backward(dout)
    padded_rows = E.grad._indices()[0].tolist()  # the lookups of token 0 leave no entry
    print("sparse with padding_idx=0:", E.grad._nnz(), "entries, rows", padded_rows)
    E.grad = None
    out = F.embedding(tokens, E, scale_grad_by_freq=True, sparse=True)  # the forward pass runs
    try:
        out.backward(dout)
        freq_refused = None
    except RuntimeError as error:
        freq_refused = str(error)
    print("sparse with scale_grad_by_freq:", freq_refused)
    # --8<-- [end:embedding-options-maths]
    # --8<-- [end:embedding-options]

    # --8<-- [start:softmax-overflow]
    z = torch.tensor([1000.0, 1001.0, 1002.0])  # large logits, float32
    print("exp(88), exp(89):", torch.tensor([88.0, 89.0]).exp())
    e = z.exp()
    print("naive softmax:   ", e / e.sum())  # inf / inf
    print("naive logsumexp: ", e.sum().log())

    z_small = torch.tensor([-1000.0, -1001.0, -1002.0])
    e = z_small.exp()
    print("naive softmax of very negative logits:  ", e / e.sum())  # 0 / 0
    print("naive logsumexp of very negative logits:", e.sum().log())  # log 0
    # --8<-- [end:softmax-overflow]

    # --8<-- [start:softmax-stable-check]
    torch.manual_seed(0)
    for name, logits in [
        ("large", z),
        ("very negative", z_small),
        ("ordinary", torch.randn(3)),
    ]:
        p, lse = stable_softmax(logits), stable_logsumexp(logits)
        torch.testing.assert_close(p, torch.softmax(logits, dim=-1))
        torch.testing.assert_close(lse, torch.logsumexp(logits, dim=-1))
        print(f"{name:<13} softmax {p}  logsumexp {lse.item():.4f}")
    # --8<-- [end:softmax-stable-check]

    # --8<-- [start:softmax-naive-gradient]
    z_leaf = z.clone().requires_grad_()
    e = z_leaf.exp()
    (e / e.sum())[0].backward()  # the naive softmax, and a gradient through it
    print("through the naive softmax: ", z_leaf.grad)

    z_leaf.grad = None
    stable_softmax(z_leaf)[0].backward()
    print("through the stable softmax:", z_leaf.grad)

    reference = z.clone().requires_grad_()
    torch.softmax(reference, dim=0)[0].backward()
    compare("stable", z_leaf.grad, reference.grad)
    # --8<-- [end:softmax-naive-gradient]

    # --8<-- [start:logsumexp-gradient]
    torch.manual_seed(0)
    z = torch.randn(4, requires_grad=True)
    torch.logsumexp(z, dim=0).backward()
    compare("d lse / dz", stable_softmax(z.detach()), z.grad)
    # --8<-- [end:logsumexp-gradient]

    # --8<-- [start:jacobian]
    torch.manual_seed(0)
    z = torch.randn(3)
    p = torch.softmax(z, dim=0)
    J = softmax_jacobian(p)
    print("p =", p)
    print("J =", J)

    J_autograd = torch.func.jacrev(lambda v: torch.softmax(v, dim=0))(z)
    compare("J", J, J_autograd)
    print("symmetric:", torch.equal(J, J.T))
    print("every row sums to 0 (to 1e-6):", bool(J.sum(dim=1).abs().max() < 1e-6))
    # --8<-- [end:jacobian]

    # --8<-- [start:softmax-vjp]
    torch.manual_seed(0)
    z = torch.randn(4, 5, requires_grad=True)  # a batch: softmax of each row
    p = torch.softmax(z, dim=1)
    dp = torch.randn(4, 5)  # some upstream gradient dL/dp
    p.backward(dp)

    dz = softmax_backward(p.detach(), dp)
    compare("dz", dz, z.grad)
    print(
        "row 0 with the full matrix:",
        torch.allclose(softmax_jacobian(p[0].detach()).T @ dp[0], dz[0]),
    )
    # --8<-- [end:softmax-vjp]

    # --8<-- [start:cross-entropy]
    torch.manual_seed(0)
    N, C = 4, 3
    logits = torch.randn(N, C, requires_grad=True)
    targets = torch.tensor([0, 2, 1, 2])
    F.cross_entropy(logits, targets).backward()  # the mean of -log p[i, targets[i]]

    with torch.no_grad():
        p = torch.softmax(logits, dim=1)
        T = F.one_hot(targets, C).to(p.dtype)
        dp = -T / p / N  # d/dp of the mean of -log p_t: only the true class, -1/(N p_t)
        dz_chain = softmax_backward(p, dp)  # through the softmax's Jacobian
        dz_formula = (p - T) / N

    compare("via J", dz_chain, logits.grad)
    compare("(p - T)/N", dz_formula, logits.grad)
    # --8<-- [end:cross-entropy]

    # --8<-- [start:cross-entropy-nodes]
    z = torch.tensor([[0.0, 200.0]], requires_grad=True)  # p of class 0 is e^-200: 0 in float32
    true_class = torch.tensor([0])
    loss = F.cross_entropy(z, true_class)
    loss.backward()
    print("loss:", loss.item(), " nodes:", loss.grad_fn.name(), end=" <- ")
    print(loss.grad_fn.next_functions[0][0].name())
    print("z.grad:", z.grad)

    with torch.no_grad():
        p = torch.softmax(z, dim=1)
        dp = -F.one_hot(true_class, 2) / p  # -1/p_t: -inf, since p_t underflowed to 0
        print("p:", p, " through the Jacobian:", softmax_backward(p, dp))
    # --8<-- [end:cross-entropy-nodes]

    # --8<-- [start:layer-norm-forward-check]
    torch.manual_seed(0)
    N, D = 4, 5
    x = torch.randn(N, D, requires_grad=True)
    gamma = torch.randn(D, requires_grad=True)
    beta = torch.randn(D, requires_grad=True)

    y, (x_hat, sigma) = layer_norm_forward(x, gamma, beta)
    y_torch = F.layer_norm(x, (D,), gamma, beta, eps=1e-5)
    compare("y", y, y_torch)
    print("made by", y_torch.grad_fn.name())
    print("every row of x_hat has mean 0 (to 1e-6):", bool(x_hat.mean(dim=1).abs().max() < 1e-6))
    print("row variances of x_hat:", x_hat.var(dim=1, unbiased=False).detach())
    # --8<-- [end:layer-norm-forward-check]

    # --8<-- [start:layer-norm-check]
    dy = torch.randn(N, D)  # some upstream gradient dL/dy
    y_torch.backward(dy)

    with torch.no_grad():
        dx, dgamma, dbeta = layer_norm_backward(dy, x_hat, sigma, gamma)
    compare("dx", dx, x.grad)
    compare("dgamma", dgamma, gamma.grad)
    compare("dbeta", dbeta, beta.grad)
    print("every row of dx sums to 0 (to 1e-6):", bool(dx.sum(dim=1).abs().max() < 1e-6))
    # --8<-- [end:layer-norm-check]

    # --8<-- [start:layer-norm-eps]
    x3 = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64, requires_grad=True)
    for eps in (0.0, 1.0):
        # --8<-- [start:layer-norm-eps-maths]
        mu = x3.mean()
        sigma3 = (((x3 - mu) ** 2).mean() + eps).sqrt()  # sigma, with this eps
        (dsigma,) = torch.autograd.grad(sigma3, x3)
        x_hat3 = (x3 - mu) / sigma3  # x_hat, with the same eps
        formula = x_hat3.detach() / 3  # x_hat_j / D
        # --8<-- [end:layer-norm-eps-maths]
        shown = " ".join(f"{d:+.4f}" for d in dsigma.tolist())
        equal = torch.allclose(dsigma, formula)
        print(f"eps = {eps}: dsigma/dx = {shown}, equal to x_hat / D: {equal}")
    # --8<-- [end:layer-norm-eps]

    # --8<-- [start:layer-norm-gradcheck]
    torch.manual_seed(0)
    x64 = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    gamma64 = torch.randn(4, dtype=torch.float64, requires_grad=True)
    beta64 = torch.randn(4, dtype=torch.float64, requires_grad=True)
    print("grad_fn:", LayerNormByHand.apply(x64, gamma64, beta64).grad_fn.name())
    print("gradcheck:", torch.autograd.gradcheck(LayerNormByHand.apply, (x64, gamma64, beta64)))
    # --8<-- [end:layer-norm-gradcheck]

    # --8<-- [start:layer-norm-wrong]
    class LayerNormSigmaConstant(torch.autograd.Function):
        """A classic slip: the backward treats sigma as a constant (no x_hat term)."""

        @staticmethod
        def forward(
            ctx: Any, x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor
        ) -> torch.Tensor:
            y, (x_hat, sigma) = layer_norm_forward(x, gamma, beta)
            ctx.save_for_backward(x_hat, sigma, gamma)
            return y

        @staticmethod
        def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
            x_hat, sigma, gamma = ctx.saved_tensors
            _, dgamma, dbeta = layer_norm_backward(dy, x_hat, sigma, gamma)
            dx_hat = dy * gamma
            dx = (dx_hat - dx_hat.mean(dim=-1, keepdim=True)) / sigma  # the x_hat term is missing
            return dx, dgamma, dbeta

    try:
        torch.autograd.gradcheck(LayerNormSigmaConstant.apply, (x64, gamma64, beta64))
    except RuntimeError as error:  # gradcheck's GradcheckError is a RuntimeError
        print(type(error).__name__ + ":", str(error).splitlines()[0].rstrip(","))
    # --8<-- [end:layer-norm-wrong]
