"""The external validation grid: public networks from torchvision and transformers, random weights,
no downloads. Each factory has the signature `diagnose --model package.module:factory` calls:

    factory(batch: int, seq: int | None, dtype: torch.dtype, device: str) -> (model, inputs)

    resnet18, mobilenet_v3_small, efficientnet_b0   torchvision, 3x224x224 images
    bert_base                                       transformers BertModel, BERT-base config, seq 128
    gpt2_prompt                                     GPT-2 small, a 32-token prompt (seq tokens)
    gpt2_decode                                     GPT-2 small, one decode step on a static KV cache
                                                    holding a 32-token prompt (what serving engines capture)

None of this is needed by `make run` or `make test`; requirements-validation.txt pins the libraries
for this CPU machine, and the GPU machine's image ships torchvision 0.26 and transformers 5.17.
"""
from __future__ import annotations

import torch

IMAGE = 224
BERT_SEQ = 128
PROMPT = 32
GRID = {  # the fixed grid: each factory at these batches, in fp32 and bf16
    "resnet18": None, "mobilenet_v3_small": None, "efficientnet_b0": None,
    "bert_base": BERT_SEQ, "gpt2_prompt": PROMPT, "gpt2_decode": PROMPT,
}
BATCHES = (1, 4, 16, 64)
DTYPES = ("fp32", "bf16")


def _vision(name: str, batch: int, dtype, device: str):
    import torchvision
    model = getattr(torchvision.models, name)(weights=None).to(device=device, dtype=dtype).eval()
    return model, (torch.randn(batch, 3, IMAGE, IMAGE, device=device, dtype=dtype),)


def resnet18(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """torchvision ResNet-18 (random weights), 3x224x224 images."""
    return _vision("resnet18", batch, dtype, device)


def mobilenet_v3_small(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """torchvision MobileNetV3-Small (random weights), 3x224x224 images."""
    return _vision("mobilenet_v3_small", batch, dtype, device)


def efficientnet_b0(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """torchvision EfficientNet-B0 (random weights), 3x224x224 images."""
    return _vision("efficientnet_b0", batch, dtype, device)


class _HiddenStates(torch.nn.Module):
    """A transformers model called with input ids, returning one tensor (graph capture wants tensors)."""

    def __init__(self, model, out: str):
        super().__init__()
        self.model, self.out = model, out

    def forward(self, ids):
        return getattr(self.model(input_ids=ids, use_cache=False), self.out)


def bert_base(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """transformers BertModel, BERT-base config (random weights), seq tokens (128)."""
    from transformers import BertConfig, BertModel
    cfg = BertConfig()
    model = BertModel(cfg).to(device=device, dtype=dtype).eval()
    ids = torch.randint(0, cfg.vocab_size, (batch, seq or BERT_SEQ), device=device)
    return _HiddenStates(model, "last_hidden_state"), (ids,)


def gpt2_prompt(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """transformers GPT-2 small (random weights), a prompt of seq tokens (32)."""
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config()
    model = GPT2LMHeadModel(cfg).to(device=device, dtype=dtype).eval()
    ids = torch.randint(0, cfg.vocab_size, (batch, seq or PROMPT), device=device)
    return _HiddenStates(model, "logits"), (ids,)


class _DecodeStep(torch.nn.Module):
    """One GPT-2 decode step at a fixed position of a static KV cache: the cache's tensors keep
    their addresses, so the step can be captured and replayed, as serving engines do.

    transformers 5's StaticCache writes at its own per-layer counter (cumulative_length, a GPU
    tensor it advances each step) rather than at cache_position, so the step first sets every
    counter to the position (one small copy per layer, captured with the rest): without it, the
    ninth repeat of the step writes past the cache's end."""

    def __init__(self, model, cache):
        super().__init__()
        self.model, self.cache = model, cache

    def forward(self, token, position):
        for layer in getattr(self.cache, "layers", ()):
            counter = getattr(layer, "cumulative_length", None)
            if isinstance(counter, torch.Tensor):
                counter.copy_(position.reshape(counter.shape))
        return self.model(input_ids=token, past_key_values=self.cache, cache_position=position,
                          use_cache=True).logits


def gpt2_decode(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """transformers GPT-2 small, one decode step on a static KV cache after a seq-token prompt."""
    from transformers import GPT2Config, GPT2LMHeadModel, StaticCache
    cfg = GPT2Config()
    model = GPT2LMHeadModel(cfg).to(device=device, dtype=dtype).eval()
    prompt = seq or PROMPT
    cache = StaticCache(config=cfg, max_cache_len=prompt + 8)
    with torch.no_grad():  # fill the cache with a prompt, so the step decodes the next position
        model(input_ids=torch.randint(0, cfg.vocab_size, (batch, prompt), device=device), past_key_values=cache,
              cache_position=torch.arange(prompt, device=device), use_cache=True)
    token = torch.randint(0, cfg.vocab_size, (batch, 1), device=device)
    return _DecodeStep(model, cache), (token, torch.tensor([prompt], device=device))


def grid() -> list[dict]:
    """The fixed external grid's points: {model, batch, seq, dtype}, 48 in all."""
    return [{"model": f"validation.external:{name}", "batch": b, "seq": seq, "dtype": dt}
            for name, seq in GRID.items() for dt in DTYPES for b in BATCHES]
