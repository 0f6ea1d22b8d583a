"""Interview: How do the Hessian, the Gauss-Newton matrix and the Fisher differ?
(docs/interview/gauss-newton-vs-hessian-vs-fisher.md)"""

# --8<-- [start:setup]
import warnings

import torch
import torch.nn.functional as F
from torch.func import grad, hessian, jacrev, vmap

# The first forward-mode call (inside hessian) makes PyTorch warn about its own use of
# torch.jit.script (FutureWarning since 2.14, DeprecationWarning before): hide exactly that.
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
N, C = 8, 3  # 8 examples, 3 classes
X = torch.randn(N, 2, dtype=torch.float64)
T = torch.randint(0, C, (N,))  # the data's labels
w0 = torch.randn(21, dtype=torch.float64)  # all 21 weights of a 2-3-3 network, flat


def net(w, X):
    """The logits f(w): a tanh layer of 3 units, then 3 outputs."""
    W1, b1, W2, b2 = w[:6].view(3, 2), w[6:9], w[9:18].view(3, 3), w[18:]
    return torch.tanh(X @ W1.T + b1) @ W2.T + b2


def loss(w):
    return F.cross_entropy(net(w, X), T)  # the mean over the N examples


P = w0.numel()
H = hessian(loss)(w0)  # P x P
J = jacrev(net)(w0, X).reshape(N * C, P)  # d logits / d w, one row per logit
p = torch.softmax(net(w0, X), dim=1)
H_L = torch.block_diag(*[(torch.diag(q) - torch.outer(q, q)) / N for q in p])  # d2 L / d f2
G = J.T @ H_L @ J  # the Gauss-Newton matrix

r = (p - F.one_hot(T, C)) / N  # dL/df, held constant below
second = hessian(lambda w: (r * net(w, X)).sum())(w0)  # sum_i (dL/df_i) * hessian of f_i
print("H equals G + sum_i (dL/df_i) hessian(f_i):", torch.allclose(H, G + second))
# --8<-- [end:setup]

# --8<-- [start:eigenvalues]
eigenvalues_H = torch.linalg.eigvalsh(H)  # in increasing order
eigenvalues_G = torch.linalg.eigvalsh(G)
tolerance = 1e-10  # far below every eigenvalue that is not 0 up to rounding
negative_H = int((eigenvalues_H < -tolerance).sum())
negative_G = int((eigenvalues_G < -tolerance).sum())
print(f"H: {negative_H} eigenvalues below -1e-10, the smallest {eigenvalues_H[0]:.3g}")
print(f"G: {negative_G} eigenvalues below -1e-10")
print(f"G: {int((eigenvalues_G.abs() <= tolerance).sum())} eigenvalues that are 0 up to rounding")
# --8<-- [end:eigenvalues]


# --8<-- [start:fisher]
def log_prob(w, x, c):
    """log p(c | x, w) for one example x."""
    return torch.log_softmax(net(w, x.unsqueeze(0)), dim=1)[0, c]


# g[n, c] = gradient by w of log p(c | x_n): one vmap over the examples per class
g = torch.stack([vmap(grad(log_prob), in_dims=(None, 0, None))(w0, X, c) for c in range(C)], 1)

# The Fisher: labels drawn from the model, p(c | x_n); exact by summing over the classes.
fisher = torch.einsum("nc,ncp,ncq->pq", p, g, g) / N
print("exact Fisher equals G:", torch.allclose(fisher, G))


def distance(M):
    return ((M - G).norm() / G.norm()).item()  # relative distance to G


generator = torch.Generator().manual_seed(0)
print("labels drawn from the model, S per example (mean distance over 5 draws):")
for S in (10, 100, 1000, 10000):
    distances = []
    for _ in range(5):
        sampled = torch.multinomial(p, S, replacement=True, generator=generator)  # (N, S)
        gs = g[torch.arange(N).unsqueeze(1), sampled]  # (N, S, P)
        distances.append(distance(torch.einsum("nsp,nsq->pq", gs, gs) / (N * S)))
    print(f"  S = {S:5}: relative distance to G {sum(distances) / 5:.3g}")

g_data = g[torch.arange(N), T]  # the data's labels: the gradients of the loss itself
empirical = g_data.T @ g_data / N
print(f"empirical Fisher (the data's labels): relative distance to G {distance(empirical):.3g}")
# --8<-- [end:fisher]

# --8<-- [start:squared-error]
targets = torch.randn(N, C, dtype=torch.float64)
J_f = J  # the same network and Jacobian; now L = (1 / 2N) sum_n |f_n - t_n|^2


def squared_error(w):
    return 0.5 * ((net(w, X) - targets) ** 2).sum() / N


G_se = J_f.T @ J_f / N  # H_L = I / N
H_se = hessian(squared_error)(w0)
print("squared error: H equals G?", torch.allclose(H_se, G_se))

# Fisher of a Gaussian with mean f and variance 1: grad log p(t) = J^T (t - f), t ~ N(f, I).
noise = torch.randn(N, 10000, C, dtype=torch.float64, generator=generator)  # t - f
J_n = J_f.view(N, C, P)
gs = torch.einsum("nsc,ncp->nsp", noise, J_n)
estimate = torch.einsum("nsp,nsq->pq", gs, gs) / (N * 10000)
gap = ((estimate - G_se).norm() / G_se.norm()).item()
print(f"Gaussian Fisher, 10000 samples: relative distance to G {gap:.3g}")
# --8<-- [end:squared-error]
