# --8<-- [start:composite]
import torch

x = torch.tensor(2.0, requires_grad=True)
u = 3 * x + 4
y = u**2
y.backward()
print(x.grad)
# --8<-- [end:composite]
