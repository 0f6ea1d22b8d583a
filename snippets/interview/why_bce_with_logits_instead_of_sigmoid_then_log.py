"""Interview: Why BCE with logits instead of sigmoid, then log?
(docs/interview/why-bce-with-logits-instead-of-sigmoid-then-log.md)"""

# --8<-- [start:naive]
import torch
import torch.nn.functional as F

z = torch.tensor([-100.0, -20.0, 0.0, 20.0, 100.0], requires_grad=True)  # float32 logits
y = torch.ones(5)  # every label is 1


def fmt(t):
    """A tensor's entries to 4 significant digits."""
    return "[" + ", ".join(f"{v:.4g}" for v in t.tolist()) + "]"


def show(name, loss):
    z.grad = None
    loss.sum().backward()  # one loss per logit: z.grad[i] is d loss[i] / d z[i]
    print(f"{name:24} loss {fmt(loss)}")
    print(f"{'':24} grad {fmt(z.grad)}")


p = torch.sigmoid(z)
print(f"{'sigmoid(z):':29}{fmt(p)}")
show("sigmoid, then log:", -(y * torch.log(p) + (1 - y) * torch.log(1 - p)))
show("F.binary_cross_entropy:", F.binary_cross_entropy(torch.sigmoid(z), y, reduction="none"))
show("with logits:", F.binary_cross_entropy_with_logits(z, y, reduction="none"))
# --8<-- [end:naive]

# --8<-- [start:bceloss-fade]
zf = torch.tensor([-20.0, -27.0, -28.0, -30.0, -40.0, -88.0, -100.0], requires_grad=True)
# --8<-- [start:bceloss-fade-maths]
pf = torch.sigmoid(zf)
pf.retain_grad()  # keep d loss / d p, to print it
loss = F.binary_cross_entropy(pf, torch.ones_like(zf), reduction="none")  # every label is 1
loss.sum().backward()
# --8<-- [end:bceloss-fade-maths]
print("z:              ", fmt(zf))
print("loss:           ", fmt(loss))
print("d loss / d p:   ", fmt(pf.grad))
print("p (1 - p):      ", fmt(pf * (1 - pf)))
print("d loss / d z:   ", fmt(zf.grad))
print("sigmoid(z) - 1: ", fmt(torch.sigmoid(zf.detach()) - 1), "(the right gradient)")
# --8<-- [end:bceloss-fade]

# --8<-- [start:nan]
z.grad = None
p = torch.sigmoid(z)
p.retain_grad()
loss = -torch.log(p)  # y = 1
loss.sum().backward()
print("d loss / d p = -1/p:         ", fmt(p.grad))
print("d p / d z = p (1 - p):       ", fmt(p * (1 - p)))
print("their product, d loss / d z: ", fmt(z.grad))
# --8<-- [end:nan]


# --8<-- [start:stable]
def bce_from_logits(z, y):
    """max(z, 0) - z y + log(1 + exp(-|z|)): nothing overflows, nothing is log(0)."""
    return torch.relu(z) - z * y + torch.log1p(torch.exp(-z.abs()))


for label in (1.0, 0.0):
    y = torch.full((5,), label)
    z.grad = None
    by_hand = bce_from_logits(z, y)
    by_hand.sum().backward()
    fused = F.binary_cross_entropy_with_logits(z, y, reduction="none")
    print(f"y = {label:g}: loss by hand equals the fused loss:", torch.allclose(by_hand, fused))
    print("        autograd through it:", fmt(z.grad))
    print("        sigmoid(z) - y:     ", fmt(torch.sigmoid(z.detach()) - y))
# --8<-- [end:stable]

# --8<-- [start:mean]
y = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0])
z.grad = None
F.binary_cross_entropy_with_logits(z, y).backward()  # the mean over N = 5 logits
print("grad of the mean:    ", fmt(z.grad))
print("(sigmoid(z) - y) / N:", fmt((torch.sigmoid(z.detach()) - y) / 5))
# --8<-- [end:mean]

# --8<-- [start:logsumexp]
y = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0])
two_logits = torch.stack([torch.zeros(5), z.detach()], dim=1)  # class 0 scores 0, class 1 z
zd = z.detach()
print("z:                          ", fmt(zd))
print("log(1 + exp(z)):            ", fmt(torch.log(1 + torch.exp(zd))))
print("logsumexp([0, z]):          ", fmt(torch.logsumexp(two_logits, dim=1)))
print("max(z, 0) + log1p(e^-|z|):  ", fmt(torch.relu(zd) + torch.log1p(torch.exp(-zd.abs()))))
ce = F.cross_entropy(two_logits, y.long(), reduction="none")
bce = F.binary_cross_entropy_with_logits(z.detach(), y, reduction="none")
print("cross_entropy([0, z], y) equals BCE with logits:", torch.allclose(ce, bce))
# --8<-- [end:logsumexp]


# --8<-- [start:building-blocks]
def bce_logsigmoid(z, y):
    """-(y log sigmoid(z) + (1 - y) log sigmoid(-z)), from F.logsigmoid."""
    return -(y * F.logsigmoid(z) + (1 - y) * F.logsigmoid(-z))


def bce_softplus(z, y):
    """softplus(z) - z y, with softplus(z) = log(1 + e^z)."""
    return F.softplus(z) - z * y


y = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0])
fused = F.binary_cross_entropy_with_logits(z.detach(), y, reduction="none")
for name, loss_of in [
    ("-(y logsigmoid(z) + (1 - y) logsigmoid(-z))", bce_logsigmoid),
    ("softplus(z) - z y", bce_softplus),
]:
    z.grad = None
    by_blocks = loss_of(z, y)
    by_blocks.sum().backward()
    print(name)
    print("  equals the fused loss:", torch.allclose(by_blocks, fused), " gradient:", fmt(z.grad))
print("sigmoid(z) - y:", fmt(torch.sigmoid(z.detach()) - y))
# --8<-- [end:building-blocks]

# --8<-- [start:pos-weight]
y = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0])
w = torch.tensor(3.0)  # pos_weight: each positive label counts 3 times
z.grad = None
# --8<-- [start:pos-weight-maths]
weighted = F.binary_cross_entropy_with_logits(z, y, pos_weight=w, reduction="none")
weighted.sum().backward()
# --8<-- [end:pos-weight-maths]
by_hand = -(w * y * F.logsigmoid(z.detach()) + (1 - y) * F.logsigmoid(-z.detach()))
s = torch.sigmoid(z.detach())
for label, t in [
    ("z:", z),
    ("y:", y),
    ("loss:", weighted),
    ("-(w y log s + (1 - y) log(1 - s)):", by_hand),
    ("gradient:", z.grad),
    ("w y (s - 1) + (1 - y) s:", w * y * (s - 1) + (1 - y) * s),
]:
    print(f"{label:35} {fmt(t)}")
# --8<-- [end:pos-weight]

# --8<-- [start:float64]
z64 = torch.tensor([20.0, 40.0, -700.0, -800.0], dtype=torch.float64)
p64 = torch.sigmoid(z64)
print("z:                           ", fmt(z64))
print("float64 sigmoid(z):          ", fmt(p64))
print("-log(1 - p) for y = 0:       ", fmt(-torch.log(1 - p64[:2])), "(the first two z)")
print("-log(p) for y = 1:           ", fmt(-torch.log(p64[2:])), "(the last two z)")
# --8<-- [end:float64]
