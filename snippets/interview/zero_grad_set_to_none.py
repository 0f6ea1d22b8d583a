"""Interview: What does zero_grad(set_to_none=True) do?
(docs/interview/zero-grad-set-to-none.md)"""

# --8<-- [start:both]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(4, 2)

model(inputs).sum().backward()
optimizer.zero_grad(set_to_none=False)
print("set_to_none=False:", model.weight.grad)

model(inputs).sum().backward()
optimizer.zero_grad()  # set_to_none=True, the default
print("set_to_none=True: ", model.weight.grad)
# --8<-- [end:both]

# --8<-- [start:next-backward]
model(inputs).sum().backward()  # starts from None: stores the new gradient
from_none = model.weight.grad.clone()

optimizer.zero_grad(set_to_none=False)
model(inputs).sum().backward()  # starts from zeros: adds the new gradient to 0
print("same gradient either way:", torch.equal(from_none, model.weight.grad))
# --8<-- [end:next-backward]

# --8<-- [start:momentum]
for set_to_none in (False, True):
    w = nn.Parameter(torch.tensor([1.0]))
    optimizer = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    (2 * w).sum().backward()  # dloss/dw = 2
    optimizer.step()  # w = 1 - 0.1 * 2 = 0.8
    optimizer.zero_grad(set_to_none=set_to_none)
    optimizer.step()  # a step with no new gradient
    print(f"set_to_none={set_to_none!s:5}: w after the second step = {w.item():.2f}")
# --8<-- [end:momentum]
