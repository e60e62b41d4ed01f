"""A held-out set of public networks: none of them is in the external grid (validation/external.py),
and none was looked at while the prediction's rules and constants were made. Random weights, no
downloads; each factory has the signature `diagnose --model package.module:factory` calls.

    resnet50, mobilenet_v2, shufflenet_v2_x1_0,     torchvision, 3x224x224 images
    regnet_y_400mf, densenet121, convnext_tiny,
    vit_b_16
    distilbert                                      transformers DistilBertModel, its default config
                                                    (distilbert-base), seq 128
    t5_encoder                                      transformers T5EncoderModel, its default config
                                                    (t5-small), seq 128
    smollm_prompt                                   transformers LlamaForCausalLM with SmolLM-135M's
                                                    published config, a 32-token prompt

Each network is diagnosed at two settings, fp32 at batch 1 and bf16 at batch 16: 20 points,
listed setting by setting, so that a recording cut short still spans every network. It is
recorded one fresh `diagnose` process per point (`diagnose --set heldout --fresh-processes`) and
judged by the external grid's targets (`accuracy --recording FILE`).
"""
from __future__ import annotations

import torch

from .external import PROMPT, _HiddenStates, _vision

SEQ = 128
VISION = ("resnet50", "mobilenet_v2", "shufflenet_v2_x1_0", "regnet_y_400mf", "densenet121", "convnext_tiny",
          "vit_b_16")
TEXT = {"distilbert": SEQ, "t5_encoder": SEQ, "smollm_prompt": PROMPT}
SETTINGS = (("fp32", 1), ("bf16", 16))


def _vision_factory(name: str):
    def factory(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
        return _vision(name, batch, dtype, device)
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = f"torchvision {name} (random weights), 3x224x224 images."
    return factory


for _name in VISION:
    globals()[_name] = _vision_factory(_name)


class _Encoder(torch.nn.Module):
    """A transformers encoder called with input ids only, returning its last hidden state."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids).last_hidden_state


def _ids(cfg, batch: int, seq: int, device: str):
    return torch.randint(0, cfg.vocab_size, (batch, seq), device=device)


def distilbert(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """transformers DistilBertModel, its default (distilbert-base) config, random weights, seq tokens (128)."""
    from transformers import DistilBertConfig, DistilBertModel
    cfg = DistilBertConfig()
    model = DistilBertModel(cfg).to(device=device, dtype=dtype).eval()
    return _Encoder(model), (_ids(cfg, batch, seq or SEQ, device),)


def t5_encoder(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """transformers T5EncoderModel, its default (t5-small) config, random weights, seq tokens (128)."""
    from transformers import T5Config, T5EncoderModel
    cfg = T5Config()
    model = T5EncoderModel(cfg).to(device=device, dtype=dtype).eval()
    return _Encoder(model), (_ids(cfg, batch, seq or SEQ, device),)


SMOLLM_135M = dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                   num_key_value_heads=3, vocab_size=49152, max_position_embeddings=2048, rms_norm_eps=1e-5,
                   rope_theta=10000.0, tie_word_embeddings=True)  # HuggingFaceTB/SmolLM-135M's config.json


def smollm_prompt(batch: int, seq=None, dtype=torch.float32, device: str = "cuda"):
    """transformers LlamaForCausalLM with SmolLM-135M's config (random weights), a prompt of seq tokens (32)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(**SMOLLM_135M)
    model = LlamaForCausalLM(cfg).to(device=device, dtype=dtype).eval()
    return _HiddenStates(model, "logits"), (_ids(cfg, batch, seq or PROMPT, device),)


def grid() -> list[dict]:
    """The held-out points: {model, batch, seq, dtype}, setting by setting, 20 in all."""
    names = [(n, None) for n in VISION] + list(TEXT.items())
    return [{"model": f"validation.heldout:{name}", "batch": b, "seq": seq, "dtype": dt}
            for dt, b in SETTINGS for name, seq in names]
