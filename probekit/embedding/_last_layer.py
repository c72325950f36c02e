"""The hand-written last encoder layer: computed for the pooled tokens only.

When only the last layer's states of a few tokens are read, the engine runs the model without its
last layer and computes that layer itself for those tokens (:func:`_last_layer_rows`), where
:func:`_last_layer_shortcut` says this gives the layer's own arithmetic.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import torch

_POST_LN_LAYERS = {"BertLayer", "RobertaLayer", "XLMRobertaLayer", "CamembertLayer", "ElectraLayer"}


def _last_layer_shortcut(model: Any) -> Any | None:
    """The last encoder layer when the engine may compute it for selected tokens only, else None.

    Only the states of the pooled tokens are read from the last layer, and in a post-LN BERT-style
    layer everything after attention (output projection, feed-forward, both layer norms) is
    per-token: it can be skipped for every other token. Keys and values still come from all tokens.
    Applies to the BERT family with absolute positions and no decoder parts; other models run the
    full forward.
    """
    config = getattr(model, "config", None)
    layers = getattr(getattr(model, "encoder", None), "layer", None)
    if config is None or not isinstance(layers, torch.nn.ModuleList) or len(layers) < 1:
        return None
    if _has_forward_hooks(model):
        return None  # a hook (e.g. a debiasing wrapper) must see the real forward of every module
    last = layers[-1]
    if (
        type(last).__name__ not in _POST_LN_LAYERS
        or getattr(config, "is_decoder", False)
        or getattr(config, "add_cross_attention", False)
        or getattr(config, "position_embedding_type", "absolute") != "absolute"
        or not hasattr(last, "attention")
        or not all(hasattr(last.attention.self, name) for name in ("query", "key", "value", "num_attention_heads"))
    ):
        return None
    return last


def _has_forward_hooks(model: torch.nn.Module) -> bool:
    """Whether any user hook watches the model's forward. transformers' own output-capturing hooks
    (installed once ``output_hidden_states`` is used) only record outputs and are not counted.
    """
    from torch.nn.modules import module as torch_module

    def foreign(hooks: Any) -> bool:
        return any(not getattr(h, "__module__", "").startswith("transformers.") for h in hooks.values())

    for name in ("_global_forward_hooks", "_global_forward_pre_hooks"):
        hooks = getattr(torch_module, name, None)
        if hooks and foreign(hooks):
            return True
    return any(foreign(m._forward_hooks) or foreign(m._forward_pre_hooks) for m in model.modules())


@contextlib.contextmanager
def _without_last_layer(model: Any) -> Iterator[None]:
    """Temporarily drop the model's last encoder layer; always restored."""
    layers = model.encoder.layer
    model.encoder.layer = torch.nn.ModuleList(list(layers)[:-1])
    try:
        yield
    finally:
        model.encoder.layer = layers


def _last_layer_rows(last: Any, hidden: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """Output of ``last`` at the flat positions ``rows`` of ``hidden`` (batch x length x width).

    Same arithmetic as the layer's own forward in eval mode: scaled dot-product attention of every
    token (queries at all positions keep one kernel call), then the per-token output projection,
    feed-forward and layer norms only at ``rows``.
    """
    attention = last.attention.self
    batch, length, width = hidden.shape
    heads = attention.num_attention_heads

    def split(x: torch.Tensor) -> torch.Tensor:
        return x.view(batch, length, heads, width // heads).transpose(1, 2)

    q, k, v = (split(layer(hidden)) for layer in (attention.query, attention.key, attention.value))
    context = torch.nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(batch * length, width)
    residual = hidden.reshape(batch * length, width)
    attended = last.attention.output(context.index_select(0, rows), residual.index_select(0, rows))
    return last.output(last.intermediate(attended), attended)
