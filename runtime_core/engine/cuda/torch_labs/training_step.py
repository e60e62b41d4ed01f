"""training_step on a GPU: forward, backward and optimizer.step() captured in one graph (the
recipe of PyTorch's CUDA-graphs notes: Adam(capturable=True), static input and target buffers,
grads set to None before capture so backward allocates them from the graph's pool).

Measured: the step time eager vs replayed; the capture with capturable=False (it raises); and a
replay loop that copies each new input into the static input but *rebinds* the target instead of
copying it (`static_target = target`): the graph keeps reading the first target. First the signal
(the loss the graph reports against the loss on the real target, step by step), then the fix
(`static_target.copy_(target)`), both against eager training from the same weights.

`TrainStep` is device-agnostic: on a CPU its call is what a replay computes, the step as a closure
over its static buffers (the CPU test uses it that way; the capture itself needs CUDA).
"""
from __future__ import annotations

import torch
from torch import nn

from .common import attempt, environment, need_cuda, step_us, try_capture

WIDTH, BATCH, LAYERS, STEPS, LR = 256, 64, 6, 12, 1e-3


def make_model(device: str, seed: int = 0, width: int = WIDTH, layers: int = LAYERS) -> nn.Module:
    torch.manual_seed(seed)
    mods = [m for _ in range(layers - 1) for m in (nn.Linear(width, width), nn.ReLU())]
    return nn.Sequential(*mods, nn.Linear(width, width)).to(device)


SHIFTS = (-1.5, -0.5, 0.5, 1.5)   # each batch's targets sit around one of these


def batches(device: str, steps: int = STEPS, batch: int = BATCH, width: int = WIDTH, seed: int = 1):
    """(input, target) per step; the targets' mean moves from batch to batch, so a stale target
    is a plainly different problem (drawn on the CPU generator: the same batches on any device)."""
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(batch, width, generator=g).to(device),
             (0.1 * torch.randn(batch, width, generator=g) + SHIFTS[k % len(SHIFTS)]).to(device))
            for k in range(steps)]


class TrainStep:
    """One training step over static buffers: forward, MSE loss, backward, optimizer step. Not
    zero_grad: captured after grads were set to None, the graph's backward writes fresh grads on
    every replay (called eagerly, set them to None before each call to compute the same)."""

    def __init__(self, model, opt, static_x, static_y):
        self.model, self.opt, self.static_x, self.static_y = model, opt, static_x, static_y
        self.loss = self.pred = None

    def __call__(self):
        self.pred = self.model(self.static_x)
        self.loss = nn.functional.mse_loss(self.pred, self.static_y)
        self.loss.backward()
        self.opt.step()
        return self.loss


def reset(model, opt, init: list) -> None:
    """Back to the initial weights and a fresh optimizer state, in place (the graph keeps its
    addresses): the warm-up's real steps leave no trace in the comparison."""
    with torch.no_grad():
        for p, p0 in zip(model.parameters(), init):
            p.copy_(p0)
            if p.grad is not None:
                p.grad.zero_()
        for st in opt.state.values():
            for v in st.values():
                if torch.is_tensor(v):
                    v.zero_()


def eager_losses(device: str, data) -> list[float]:
    model = make_model(device)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    out = []
    for x, y in data:
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def replay_losses(run, step: TrainStep, data, copy_target: bool) -> tuple[list[float], list[float]]:
    """(the loss the step reports, the loss of its prediction on the real target) per batch. With
    copy_target False the target is rebound, not copied: the step never sees it."""
    reported, true = [], []
    static_y = step.static_y
    for x, y in data:
        step.static_x.copy_(x)
        if copy_target:
            static_y.copy_(y)
        else:
            static_y = y                 # the bug: a new Python name, the step's buffer unchanged
        run()
        reported.append(step.loss.item())
        with torch.no_grad():
            true.append(nn.functional.mse_loss(step.pred, y).item())
    return reported, true


def _graphed(data, capturable: bool = True):
    model = make_model("cuda")
    init = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.Adam(model.parameters(), lr=LR, capturable=capturable)
    static_x, static_y = data[0][0].clone(), data[0][1].clone()
    step = TrainStep(model, opt, static_x, static_y)

    def warm():
        opt.zero_grad(set_to_none=True)
        step()
    # grads set to None just before capture: backward inside the graph allocates them from its
    # pool and writes (not accumulates) them on every replay
    graph, _, err = try_capture(step, warmups=3, warm=warm, before=lambda: opt.zero_grad(set_to_none=True))
    if graph is not None:
        reset(model, opt, init)
    return graph, step, err


def measure() -> dict:
    need_cuda()
    data = batches("cuda")
    out = {"env": environment(), "width": WIDTH, "batch": BATCH, "layers": LAYERS, "steps": STEPS, "lr": LR,
           "optimizer": "Adam"}
    out["eager_losses"] = eager_losses("cuda", data)

    model = make_model("cuda")
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    x0, y0 = data[0]

    def eager_step():
        opt.zero_grad(set_to_none=True)
        nn.functional.mse_loss(model(x0), y0).backward()
        opt.step()
    out["eager_step_us"] = step_us(eager_step, steps=30)

    graph, step, err = _graphed(data)
    out["capture_error"] = err
    if graph is not None:
        out["graph_losses"], _ = replay_losses(graph.replay, step, data, copy_target=True)

        def graph_step():
            step.static_x.copy_(x0)
            step.static_y.copy_(y0)
            graph.replay()
        out["graph_step_us"] = step_us(graph_step, steps=30)

    bug = attempt(lambda: _stale_target(data))
    out["stale_target"] = bug
    nc = attempt(lambda: _without_capturable(data))
    out["without_capturable"] = nc
    return out


def _stale_target(data) -> dict:
    graph, step, err = _graphed(data)
    if graph is None:
        return {"error": err}
    reported, true = replay_losses(graph.replay, step, data, copy_target=False)
    return {"reported_losses": reported, "true_losses": true}


def _without_capturable(data) -> dict:
    graph, _, err = _graphed(data, capturable=False)
    return {"raised": graph is None, "error": err}
