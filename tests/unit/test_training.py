"""The shared training loop: against a plain PyTorch loop, exact resume, seeds, checkpoints, evaluation."""

from __future__ import annotations

import copy

import pytest
import torch

from probekit.errors import InvalidParameterError
from probekit.training import TrainingConfig, latest_checkpoint, shuffled_batches, train

#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


class _Regression(torch.nn.Module):
    """A small MLP with dropout, so that resume and seeds have randomness to get wrong."""

    def __init__(self, dropout: float = 0.2):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(4, 16), torch.nn.GELU(), torch.nn.Dropout(dropout), torch.nn.LayerNorm(16), torch.nn.Linear(16, 1)
        )

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.mse_loss(self.net(x).squeeze(-1), y)


def _data(n: int = 40) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(123)
    x = torch.randn(n, 4, generator=g)
    y = x @ torch.tensor([1.0, -2.0, 0.5, 3.0]) + 0.1 * torch.randn(n, generator=g)
    return [(x[i], y[i]) for i in range(n)]


def _collate(examples, generator):
    x = torch.stack([e[0] for e in examples])
    # Random input noise from the step's generator: resume must reproduce it.
    noise = 0.01 * torch.randn(x.shape, generator=generator)
    return {"x": x + noise, "y": torch.stack([e[1] for e in examples])}


def _model(seed: int = 0, dropout: float = 0.2) -> _Regression:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return _Regression(dropout)


def _config(**overrides) -> TrainingConfig:
    settings = dict(learning_rate=1e-2, max_steps=12, batch_size=8, warmup_ratio=0.25, device="cpu", seed=7, log_every=1000)
    settings.update(overrides)
    return TrainingConfig(**settings)


def _weights(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def _assert_same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key


def test_matches_a_plain_pytorch_loop():
    """Same batches, no dropout: the loop equals AdamW + the linear schedule + clipping written out by hand."""
    from transformers import get_linear_schedule_with_warmup

    data = _data()
    fixed_order = [list(range(i, i + 8)) for i in range(0, 40, 8)]
    config = _config(max_steps=10, max_grad_norm=0.5, weight_decay=0.1)

    model = _model(dropout=0.0)
    reference = copy.deepcopy(model)
    result = train(model, data, config, collate_fn=lambda ex, g: _collate(ex, torch.Generator().manual_seed(0)),
                   batch_order=lambda g: fixed_order, progress=False)

    decay = [p for p in reference.parameters() if p.ndim >= 2]
    no_decay = [p for p in reference.parameters() if p.ndim < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-2)
    scheduler = get_linear_schedule_with_warmup(optimizer, 2, 10)
    expected_losses = []
    for step in range(10):
        batch = _collate([data[i] for i in fixed_order[step % 5]], torch.Generator().manual_seed(0))
        loss = reference(**batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(reference.parameters(), 0.5)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        expected_losses.append(loss.item())

    for key, value in reference.state_dict().items():
        torch.testing.assert_close(model.state_dict()[key], value, rtol=0, atol=1e-6)
    assert result.losses == pytest.approx(expected_losses, rel=1e-6)
    assert result.steps == 10 and result.num_processes == 1 and result.mixed_precision == "no"


def test_loss_falls():
    model = _model(dropout=0.0)
    result = train(model, _data(), _config(max_steps=60, learning_rate=3e-2), collate_fn=_collate, progress=False)
    assert sum(result.losses[-10:]) < 0.3 * sum(result.losses[:10])


def test_resume_after_interruption_gives_the_same_weights(tmp_path):
    data = _data()
    config = _config(max_steps=13, checkpoint_every=3)

    uninterrupted = _model()
    full = train(uninterrupted, data, config, collate_fn=_collate, progress=False)

    class Interrupt(Exception):
        pass

    def stop_at_8(step, values):
        if step == 8:
            raise Interrupt

    interrupted = _model()
    with pytest.raises(Interrupt):
        train(interrupted, data, config, collate_fn=_collate, checkpoint_dir=tmp_path, callback=stop_at_8, progress=False)
    assert latest_checkpoint(tmp_path).name == "step-00000006"

    resumed = _model(seed=99)  # whatever the starting weights: the checkpoint replaces them
    result = train(resumed, data, config, collate_fn=_collate, checkpoint_dir=tmp_path, resume=True, progress=False)
    assert result.resumed_from == 6
    _assert_same(_weights(resumed), _weights(uninterrupted))
    assert result.losses == full.losses

    # Calling again on a finished run returns at once with the final weights.
    again = _model(seed=5)
    train(again, data, config, collate_fn=_collate, checkpoint_dir=tmp_path, resume=True, progress=False)
    _assert_same(_weights(again), _weights(uninterrupted))
    # Nothing pickled: safetensors and JSON only.
    suffixes = {p.suffix for p in tmp_path.rglob("*") if p.is_file()}
    assert suffixes <= {".safetensors", ".json"}


def test_checkpoint_refused_without_resume_and_with_other_settings(tmp_path):
    data = _data()
    train(_model(), data, _config(max_steps=4), collate_fn=_collate, checkpoint_dir=tmp_path, progress=False)
    with pytest.raises(InvalidParameterError, match="resume"):
        train(_model(), data, _config(max_steps=4), collate_fn=_collate, checkpoint_dir=tmp_path, progress=False)
    with pytest.raises(InvalidParameterError, match="learning_rate"):
        train(_model(), data, _config(max_steps=4, learning_rate=0.5), collate_fn=_collate, checkpoint_dir=tmp_path,
              resume=True, progress=False)


def test_seeds_and_generators_decide_the_result():
    data = _data()
    runs = []
    for seed in (7, 7, 8):
        model = _model()
        train(model, data, _config(seed=seed), collate_fn=_collate, progress=False)
        runs.append(_weights(model))
    _assert_same(runs[0], runs[1])
    assert not torch.equal(runs[0]["net.0.weight"], runs[2]["net.0.weight"])

    by_generator = []
    for _ in range(2):
        model = _model()
        result = train(model, data, _config(), collate_fn=_collate, generator=torch.Generator().manual_seed(3), progress=False)
        by_generator.append(_weights(model))
    _assert_same(*by_generator)
    assert result.base_seed != 7


def test_global_random_state_is_left_alone():
    before = torch.get_rng_state()
    train(_model(), _data(), _config(max_steps=3), collate_fn=_collate, progress=False)
    assert torch.equal(torch.get_rng_state(), before)


def test_best_evaluation_is_restored():
    data = _data()
    snapshots = {}
    model = _model()
    values = iter([5.0, 1.0, 3.0, 2.0])  # evaluations at steps 3, 6, 9, 12: the best is step 6

    result = train(
        model, data, _config(eval_every=3), collate_fn=_collate, eval_fn=lambda m: next(values),
        callback=lambda step, _: snapshots.__setitem__(step, _weights(model)), progress=False,
    )
    assert result.best_step == 6 and result.best_value == 1.0
    assert [s for s, _ in result.eval_history] == [3, 6, 9, 12]
    _assert_same(_weights(model), snapshots[6])


def test_epochs_and_batch_order():
    plan = shuffled_batches(10, 4)(torch.Generator().manual_seed(0))
    assert [len(b) for b in plan] == [4, 4, 2] and sorted(i for b in plan for i in b) == list(range(10))
    assert [len(b) for b in shuffled_batches(10, 4, drop_last=True)(torch.Generator().manual_seed(0))] == [4, 4]
    result = train(_model(), _data(), _config(max_steps=None, epochs=2), collate_fn=_collate, progress=False)
    assert result.steps == 10  # 2 epochs of 40 examples in batches of 8


@pytest.mark.parametrize(
    "overrides, parameter",
    [
        (dict(max_steps=None), "max_steps/epochs"),
        (dict(epochs=2), "max_steps/epochs"),
        (dict(batch_size=0), "batch_size"),
        (dict(learning_rate=-1.0), "learning_rate"),
        (dict(mixed_precision="fp8"), "mixed_precision"),
        (dict(warmup_ratio=1.5), "warmup_ratio"),
    ],
)
def test_invalid_settings(overrides, parameter):
    with pytest.raises(InvalidParameterError, match=parameter.replace("/", ".")):
        _config(**overrides)
