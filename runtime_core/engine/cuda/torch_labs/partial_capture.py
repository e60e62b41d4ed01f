"""partial_capture on a GPU: torch.cuda.make_graphed_callables on a network's static parts, its
dynamic middle left eager.

The network (Net, device-agnostic): a head and a tail of Linear+ReLU layers (fixed shapes, no
host reads: capturable) around a middle that reads one number to the host (`.item()`, the
CPU-side step) and picks one of two small blocks in Python (data-dependent control flow). A
capture of the whole forward fails at the `.item()`; a capture with the branch fixed succeeds and
replays that branch for every input, right or wrong.
"""
from __future__ import annotations

import copy

import torch
from torch import nn

from .common import attempt, environment, launch_counts, need_cuda, step_us, try_capture

WIDTH, BATCH, LAYERS = 512, 16, 10   # per static part: LAYERS × (Linear + ReLU)
SCALES = (0.5, 0.8, 1.25, 2.0)       # one request per scale: the gate sends half of them each way


def _linear(width: int) -> nn.Linear:
    """He-initialised, so activations keep their size through the layers and the branch shows."""
    lin = nn.Linear(width, width)
    nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
    nn.init.zeros_(lin.bias)
    return lin


def _mlp(layers: int, width: int) -> nn.Sequential:
    return nn.Sequential(*[m for _ in range(layers) for m in (_linear(width), nn.ReLU())])


def rel_err(got: torch.Tensor, ref: torch.Tensor) -> float:
    """max |got - ref| / max |ref|."""
    return float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30))


class Net(nn.Module):
    """head → gate (host decides) → branch A or B → tail."""

    def __init__(self, width: int = WIDTH, layers: int = LAYERS):
        super().__init__()
        self.head, self.tail = _mlp(layers, width), _mlp(layers, width)
        self.branch_a = nn.Sequential(_linear(width), nn.Tanh())
        self.branch_b = nn.Sequential(_linear(width), nn.GELU())
        self.threshold = 0.0

    def gate_value(self, h: torch.Tensor) -> float:
        return h.abs().mean().item()     # the CPU-side step: one value copied to the host, a sync

    def middle(self, h: torch.Tensor) -> torch.Tensor:
        return self.branch_a(h) if self.gate_value(h) > self.threshold else self.branch_b(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.tail(self.middle(self.head(x)))

    def forward_fixed(self, x: torch.Tensor, take_a: bool) -> torch.Tensor:
        """The forward with the branch decided beforehand: no host read, so it can be captured."""
        h = self.head(x)
        return self.tail(self.branch_a(h) if take_a else self.branch_b(h))


def build(device: str, seed: int = 0, width: int = WIDTH, layers: int = LAYERS, batch: int = BATCH):
    """The network in eval mode without grads, and one request per scale; the gate's threshold is
    set between the requests' gate values so that half go each way (device-agnostic)."""
    torch.manual_seed(seed)
    net = Net(width, layers).to(device).eval().requires_grad_(False)
    base = torch.randn(batch, width, device=device)
    xs = [base * s for s in SCALES]
    with torch.no_grad():
        values = sorted(net.gate_value(net.head(x)) for x in xs)
    net.threshold = (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
    return net, xs


def branches(net: Net, xs) -> list[bool]:
    with torch.no_grad():
        return [net.gate_value(net.head(x)) > net.threshold for x in xs]


def measure() -> dict:
    need_cuda()
    net, xs = build("cuda")
    eager = copy.deepcopy(net)              # the same weights, never graphed
    taken = branches(net, xs)
    out = {"env": environment(), "width": WIDTH, "batch": BATCH, "layers_per_part": LAYERS,
           "inputs": len(xs), "branch_a_taken": taken}
    i = [0]

    def next_x():
        i[0] = (i[0] + 1) % len(xs)
        return xs[i[0]]

    with torch.no_grad():
        ref = [eager(x).clone() for x in xs]
        out["eager_us"] = step_us(lambda: eager(next_x()))
        out["eager_launches"] = attempt(lambda: launch_counts(lambda: eager(next_x())))

        # the whole forward: the .item() in the middle cannot be captured
        static_x = xs[0].clone()
        _, _, err = try_capture(lambda: eager(static_x))
        out["whole_capture_error"] = err

        # the whole forward with the branch fixed beforehand: captures, replays one branch for all
        def fixed():
            return eager.forward_fixed(static_x, taken[0])
        graph, static_y, ferr = try_capture(fixed)
        if graph is not None:
            errs = []
            for x, r in zip(xs, ref):
                static_x.copy_(x)
                graph.replay()
                errs.append(rel_err(static_y, r))
            out["fixed_branch_rel_errs"] = errs

            def fixed_step():
                static_x.copy_(next_x())
                graph.replay()
            out["whole_fixed_us"] = step_us(fixed_step)
            out["whole_fixed_launches"] = attempt(lambda: launch_counts(fixed_step))
        else:
            out["fixed_branch_capture_error"] = ferr

        # partial: the head and the tail graphed, the middle eager
        sample_h = torch.zeros(BATCH, WIDTH, device="cuda")
        net.head, net.tail = torch.cuda.make_graphed_callables((net.head, net.tail), ((xs[0].clone(),), (sample_h,)))
        got = [net(x).clone() for x in xs]
        out["partial_rel_errs"] = [rel_err(g, r) for g, r in zip(got, ref)]
        out["partial_us"] = step_us(lambda: net(next_x()))
        out["partial_launches"] = attempt(lambda: launch_counts(lambda: net(next_x())))
    return out
