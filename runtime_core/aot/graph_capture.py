"""Capture a decoder step as a CUDA graph with runtime_core's device: static buffers + private pool.

A graph replays fixed addresses, so the step is captured reading from *static input buffers*
and writing a *static output*; each new token is copied into the buffers before the replay.
The captured region allocates from a private pool (`dev.new_pool()`), so its intermediates keep
their addresses from one replay to the next.
"""
from __future__ import annotations

import torch

from ..engine.capture import warm_up_and_capture


class StaticGraphStep:
    """A captured decoder step: `step(token, pos)` copies the inputs in, replays, returns logits.

    Args:
        model: the decoder step (on the GPU, eval mode).
        token, pos: example inputs; their shapes and dtypes are frozen into the graph.
        dev: a runtime_core CudaDevice (defaults to the shared one).
        warmup: eager runs on a side stream before capture.
    """

    def __init__(self, model, token: torch.Tensor, pos: torch.Tensor, dev=None, warmup: int = 3):
        from ..engine.cuda.device import CudaDevice
        self.dev = dev or CudaDevice.shared()
        self.model = model
        self.static_token, self.static_pos = token.clone(), pos.clone()
        self.pool = self.dev.new_pool()

        def region():
            with torch.no_grad():
                return model(self.static_token, self.static_pos)
        # Warm-up and capture on one side stream that waits for the clones above (engine/capture.py).
        self.graph, self.static_out = warm_up_and_capture(self.dev, region, pool=self.pool, warmups=warmup)

    def step(self, token: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """Copy the new inputs into the captured buffers, replay, return the static output.

        The returned tensor is overwritten by the next replay: clone it to keep it.
        """
        self.static_token.copy_(token)
        self.static_pos.copy_(pos)
        self.graph.replay()
        return self.static_out

    def replay_as_is(self) -> torch.Tensor:
        """Replay without copying anything in (what happens if you forget the copy)."""
        self.graph.replay()
        return self.static_out


class RawGraphStep:
    """The same step captured the textbook way: torch.cuda.graph directly, as PyTorch documents.

    This is the baseline our capture is compared with (decoder_bench: our speedup / raw speedup),
    so it is written out in plain torch on purpose and shares no code with engine/capture.py.
    """

    def __init__(self, model, token: torch.Tensor, pos: torch.Tensor, warmup: int = 3):
        self.static_token, self.static_pos = token.clone(), pos.clone()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side), torch.no_grad():
            for _ in range(warmup):
                model(self.static_token, self.static_pos)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph), torch.no_grad():
            self.static_out = model(self.static_token, self.static_pos)

    def step(self, token: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.static_token.copy_(token)
        self.static_pos.copy_(pos)
        self.graph.replay()
        return self.static_out
