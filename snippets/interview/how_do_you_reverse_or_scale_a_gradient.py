"""Interview: How do you reverse or scale a gradient?
(docs/interview/how-do-you-reverse-or-scale-a-gradient.md)"""

# --8<-- [start:function]
import torch


class GradReverse(torch.autograd.Function):
    """The identity forward; backward multiplies the gradient by -lam."""

    @staticmethod
    def forward(x, lam):
        return x.view_as(x)  # the same values; `return x` works too (autograd makes this view)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.lam = inputs[1]

    @staticmethod
    def backward(ctx, grad):
        return -ctx.lam * grad, None  # no gradient for lam, a plain number


lam = 0.5
x = torch.tensor([0.1, 1.0, -3.0, 7.5], requires_grad=True)
upstream = torch.tensor([1.0, 2.0, 3.0, 4.0])  # the gradient arriving from above

y = GradReverse.apply(x, lam)
y.backward(upstream)
print("forward unchanged:", torch.equal(y, x))
print("x.grad:           ", x.grad)
print("equals -lam * upstream:", torch.equal(x.grad, -lam * upstream))
# --8<-- [end:function]

# --8<-- [start:hook]
x.grad = None
y = x.view_as(x)  # a new tensor with x's values, for the hook to sit on
y.register_hook(lambda grad: -lam * grad)  # replaces the gradient that passes through y
y.backward(upstream)
print("with a hook: forward unchanged:", torch.equal(y, x), " x.grad:", x.grad)
# --8<-- [end:hook]

# --8<-- [start:detach-trick]
s = 0.1  # keep 10 % of the gradient
# --8<-- [start:detach-trick-maths]
x.grad = None
scaled = x * s + (x * (1 - s)).detach()  # value x * s + x * (1 - s), gradient s
scaled.backward(upstream)
print("x * s + (x * (1 - s)).detach():")
print("  forward equals x exactly:", torch.equal(scaled, x), " differences:", (scaled - x).detach())
print("  x.grad equals s * upstream:", torch.equal(x.grad, s * upstream))

x.grad = None
exact = x.detach() + s * (x - x.detach())  # value x + s * 0, gradient s
exact.backward(upstream)
print("x.detach() + s * (x - x.detach()):")
print("  forward equals x exactly:", torch.equal(exact, x))
print("  x.grad equals s * upstream:", torch.equal(x.grad, s * upstream))
# --8<-- [end:detach-trick-maths]
# --8<-- [end:detach-trick]

# --8<-- [start:dann]
torch.manual_seed(0)
features = torch.nn.Linear(3, 4)  # shared by both heads
label_head = torch.nn.Linear(4, 2)  # trained to predict the label
domain_head = torch.nn.Linear(4, 1)  # trained to tell the two domains apart
inputs = torch.randn(6, 3)
labels = torch.tensor([0, 1, 1, 0, 1, 0])
domains = torch.tensor([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
loss_fn = torch.nn.functional


def losses(rev):
    """The label loss and the domain loss; rev is applied to the domain head's input."""
    h = torch.tanh(features(inputs))
    label_loss = loss_fn.cross_entropy(label_head(h), labels)
    domain_logits = domain_head(rev(h)).squeeze(1)
    domain_loss = loss_fn.binary_cross_entropy_with_logits(domain_logits, domains)
    return label_loss, domain_loss


label_loss, domain_loss = losses(lambda h: h)  # no reversal: each gradient on its own
shared, head = list(features.parameters()), list(domain_head.parameters())
d_label = torch.autograd.grad(label_loss, shared, retain_graph=True)
d_domain = torch.autograd.grad(domain_loss, shared + head)
d_domain_shared, d_domain_head = d_domain[:2], d_domain[2:]

label_loss, domain_loss = losses(lambda h: GradReverse.apply(h, lam))
(label_loss + domain_loss).backward()  # one backward pass through the reversal
reversed_ok = [
    torch.allclose(p.grad, dl - lam * dd)
    for p, dl, dd in zip(shared, d_label, d_domain_shared, strict=True)
]
head_ok = [torch.allclose(p.grad, dd) for p, dd in zip(head, d_domain_head, strict=True)]
print("features (weight, bias): grad = d label - lam * d domain:", reversed_ok)
print("domain head (weight, bias): grad = + d domain:          ", head_ok)
# --8<-- [end:dann]

# --8<-- [start:hook-pitfall]
for module in (features, label_head, domain_head):
    module.zero_grad()
h = torch.tanh(features(inputs))
h.register_hook(lambda grad: -lam * grad)  # on the tensor BOTH heads read
label_loss = loss_fn.cross_entropy(label_head(h), labels)
domain_loss = loss_fn.binary_cross_entropy_with_logits(domain_head(h).squeeze(1), domains)
(label_loss + domain_loss).backward()
weight = features.weight
print(
    "hook on the shared h: grad = -lam * (d label + d domain):",
    torch.allclose(weight.grad, -lam * (d_label[0] + d_domain[0])),
)
print(
    "                      grad = d label - lam * d domain:   ",
    torch.allclose(weight.grad, d_label[0] - lam * d_domain[0]),
)
# --8<-- [end:hook-pitfall]
