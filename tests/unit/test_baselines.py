"""Task-time baselines: balanced training (instance reweighting) and adversarial removal
through gradient reversal, on the full and the frozen fine-tuning paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from probekit.errors import InvalidParameterError
from probekit.finetune import (
    DATA_SETTINGS,
    OBJECTIVES,
    SETTING_TABLE,
    EncoderClassifier,
    FinetuneConfig,
    GenderAdversary,
    apply_setting,
    balanced_weights,
    fit_adversarial_projection,
    grad_reverse,
    make_synthetic_bios,
    objective_inputs,
    pad_batch,
    run_finetune,
    tokenize_texts,
    train_classifier,
)

#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def bios():
    return make_synthetic_bios(40, 8, professions=["nurse", "surgeon", "dietitian", "software_engineer"],
                               cue_strength=1.0, random_state=0)["train"]


def _cell_totals(weights, labels, groups):
    totals = {}
    for w, y, g in zip(weights, labels, groups):
        totals[(y, g)] = totals.get((y, g), 0.0) + w
    return totals


# ------------------------------------------------------------------------------------ the table


def test_the_new_settings_are_in_the_table_with_their_objectives():
    assert DATA_SETTINGS[:3] == ("original", "scrubbed", "swapped")
    assert {"balanced", "adversarial"} <= set(DATA_SETTINGS)
    assert SETTING_TABLE["balanced"].objective == "balanced"
    assert SETTING_TABLE["adversarial"].objective == "adversarial"
    assert all(s.objective in OBJECTIVES for s in SETTING_TABLE.values())


def test_balanced_and_adversarial_keep_the_training_data(bios):
    for setting in ("balanced", "adversarial"):
        assert apply_setting(bios, setting)["text"] == bios["text"]


# ------------------------------------------------------------------------------------ balanced


def test_every_label_gender_cell_has_the_same_total_weight():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, 300)
    groups = np.where(rng.random(300) < np.where(labels < 2, 0.9, 0.2), "female", "male")
    weights = balanced_weights(labels, groups)
    totals = _cell_totals(weights, labels.tolist(), groups.tolist())
    n_cells = len({(y, g) for y, g in zip(labels, groups)})
    assert len(totals) == n_cells
    np.testing.assert_allclose(list(totals.values()), 300 / n_cells)
    assert weights.mean() == pytest.approx(1.0)
    # brute force: w_i = N / (C * n_cell(i))
    for i in range(0, 300, 37):
        n_cell = int(np.sum((labels == labels[i]) & (groups == groups[i])))
        assert weights[i] == pytest.approx(300 / (n_cells * n_cell))


def test_balanced_weights_checks_its_input():
    with pytest.raises(InvalidParameterError, match="groups"):
        balanced_weights([0, 1], ["female"])
    with pytest.raises(InvalidParameterError, match="labels"):
        balanced_weights([], [])


def test_the_loss_weights_of_a_fold_balance_its_cells(bios, tiny_encoder):
    inputs = objective_inputs(bios, "balanced")
    weights = inputs["sample_weight"]
    totals = _cell_totals(weights, bios["label"], bios["gender"])
    np.testing.assert_allclose(list(totals.values()), len(bios) / len(totals))
    assert objective_inputs(bios, "original") == {} and set(objective_inputs(bios, "adversarial")) == {"protected"}
    # the weights reach the loss of the full path: mean over the batch of w_i * cross-entropy_i
    examples = tokenize_texts(tiny_encoder.tokenizer, bios["text"][:6], 32)
    for example, label, w in zip(examples, bios["label"][:6], weights[:6]):
        example["label"], example["weight"] = label, w
    batch = pad_batch(examples, tiny_encoder.tokenizer.pad_token_id)
    torch.testing.assert_close(batch["weights"], torch.as_tensor(weights[:6], dtype=torch.float32))
    module = EncoderClassifier(tiny_encoder.model, 4).eval()
    with torch.no_grad():
        out = module(**batch)
        each = torch.nn.functional.cross_entropy(out.logits, batch["labels"], reduction="none")
    assert float(out.loss) == pytest.approx(float((each * batch["weights"]).mean()), rel=1e-5)


def test_the_frozen_path_passes_the_weights_to_the_logistic_regression(bios):
    rng = np.random.default_rng(1)
    features = rng.normal(size=(len(bios), 8))
    weights = objective_inputs(bios, "balanced")["sample_weight"]
    config = FinetuneConfig(frozen=True, device="cpu")
    clf = train_classifier(None, bios["text"], bios["label"], 4, config, embed=lambda t: features[: len(t)],
                           sample_weight=weights, progress=False)
    expected = LogisticRegression(C=1.0, max_iter=2000).fit(features, bios["label"], sample_weight=weights)
    np.testing.assert_allclose(clf.head.coef_, expected.coef_, atol=1e-6)
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        train_classifier(None, bios["text"], bios["label"], 4, config, embed=lambda t: features[: len(t)],
                         sample_weight=weights[:3], progress=False)


# ------------------------------------------------------------------------------------ adversarial


@pytest.mark.parametrize("strength", [0.0, 0.5, 2.0])
def test_gradient_reversal_is_the_identity_forward_and_minus_lambda_backward(strength):
    x = torch.randn(5, 3, requires_grad=True)
    upstream = torch.randn(5, 3)
    y = grad_reverse(x, strength)
    torch.testing.assert_close(y, x)
    (y * upstream).sum().backward()
    torch.testing.assert_close(x.grad, -strength * upstream)
    # the sign: a step along -grad increases the downstream objective (x maximizes what follows)
    if strength > 0:
        assert float((x.grad * upstream).sum()) < 0


def test_the_adversary_learns_gender_while_the_encoder_gets_the_reversed_gradient():
    torch.manual_seed(0)
    x = torch.randn(8, 4, requires_grad=True)
    adversary = GenderAdversary(4, 1.0, hidden=6)
    loss = torch.nn.functional.cross_entropy(adversary(x), torch.tensor([0, 1] * 4))
    loss.backward()
    adversary_grad = [p.grad.clone() for p in adversary.parameters()]
    x_plain = x.detach().clone().requires_grad_(True)
    torch.nn.functional.cross_entropy(adversary.net(x_plain), torch.tensor([0, 1] * 4)).backward()
    torch.testing.assert_close(x.grad, -x_plain.grad)
    assert all(torch.isfinite(g).all() and g.abs().sum() > 0 for g in adversary_grad)


def _planted(n=600, dim=16, seed=0):
    """Labels from a task direction; gender planted strongly on two other directions and in the task
    (70% of label 1 are female)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    gender = (rng.random(n) < np.where(labels == 1, 0.7, 0.3)).astype(np.int64)
    x = rng.normal(size=(n, dim))
    x[:, 0] += 2.0 * (2 * labels - 1)
    x[:, 1] += 3.0 * (2 * gender - 1)
    x[:, 2] += 1.5 * (2 * gender - 1) * x[:, 3]  # a non-linear cue too
    return x, labels, gender


def _leakage(z, gender, seed=0):
    """Balanced accuracy of a logistic-regression gender probe in each of 5 folds."""
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    scores = []
    for train, test in folds.split(z, gender):
        probe = LogisticRegression(max_iter=2000).fit(z[train], gender[train])
        scores.append(balanced_accuracy_score(gender[test], probe.predict(z[test])))
    return np.asarray(scores)


def test_adversarial_training_leaks_less_gender_than_plain_training():
    x, labels, gender = _planted()
    leak, accuracy = {}, {}
    for name, strength in (("plain", 0.0), ("adversarial", 1.0)):
        config = FinetuneConfig(frozen=True, device="cpu", adversarial_lambda=strength, seed=0)
        (w, b), info = fit_adversarial_projection(x, labels, gender, 2, config, epochs=30)
        z = np.tanh(x @ w.T + b)
        leak[name] = _leakage(z, gender)
        head = LogisticRegression(max_iter=2000)
        accuracy[name] = balanced_accuracy_score(labels, cross_val_predict(head, z, labels, cv=5))
    print(f"gender leakage (probe balanced accuracy, 5 folds) plain {leak['plain'].mean():.3f} "
          f"[{leak['plain'].min():.3f}, {leak['plain'].max():.3f}], adversarial {leak['adversarial'].mean():.3f} "
          f"[{leak['adversarial'].min():.3f}, {leak['adversarial'].max():.3f}]; "
          f"task accuracy plain {accuracy['plain']:.3f}, adversarial {accuracy['adversarial']:.3f}")
    assert leak["plain"].mean() > 0.9
    # beyond fold noise: every fold of the adversarial representation leaks less than every plain fold
    assert leak["adversarial"].max() < leak["plain"].min()
    assert leak["adversarial"].mean() < leak["plain"].mean() - 0.1
    assert accuracy["adversarial"] > 0.75


def test_adversarial_run_on_the_frozen_path_records_its_projection(bios, tiny_encoder, tmp_path):
    config = FinetuneConfig(frozen=True, max_length=32, device="cpu", adversarial_lambda=0.5, seed=1)
    for setting in ("balanced", "adversarial"):
        result = run_finetune(tiny_encoder, bios, setting=setting, folds=2, config=config, out_dir=tmp_path / setting,
                              progress=False, data_name="synthetic", report=lambda line: None)
        assert result.settings["setting"] == setting and len(result.folds) == 2
        assert np.isfinite(result.summary["metrics"]["accuracy"]["mean"])
    assert result.folds[0]["training"]["adversarial_lambda"] == 0.5
    assert result.settings["config"]["adversarial_lambda"] == 0.5


def test_full_fine_tuning_with_an_adversary_logs_both_losses(bios, tiny_encoder):
    config = FinetuneConfig(epochs=1, batch_size=8, learning_rate=1e-3, max_length=32, device="cpu",
                            adversarial_lambda=1.0, seed=0)
    data = bios.select(range(16))
    protected = objective_inputs(data, "adversarial")["protected"]
    clf = train_classifier(tiny_encoder, data["text"], data["label"], 4, config, protected=protected, progress=False)
    assert clf.module.adversary is not None and clf.module.adversary.strength == 1.0
    assert clf.training["adversarial_lambda"] == 1.0 and clf.training["steps"] == 2
    assert np.isfinite(clf.training["task_loss"]) and np.isfinite(clf.training["adversary_loss"])
    reps = clf.representations(data["text"][:3])
    assert reps.shape == (3, tiny_encoder.model.config.hidden_size)
    assert clf.predict_proba(data["text"][:3]).shape == (3, 4)
    with pytest.raises(InvalidParameterError, match="protected"):
        train_classifier(tiny_encoder, data["text"], data["label"], 4, config, protected=[2] * 16, progress=False)


def test_adversarial_lambda_is_checked():
    with pytest.raises(InvalidParameterError, match="adversarial_lambda"):
        FinetuneConfig(adversarial_lambda=-1.0)
    with pytest.raises(InvalidParameterError, match="adversarial_lambda"):
        FinetuneConfig(adversarial_lambda=float("nan"))


def test_objective_inputs_rejects_an_unknown_setting(bios):
    with pytest.raises(InvalidParameterError, match="setting"):
        objective_inputs(bios, "reweighted")


def test_the_cli_takes_the_new_settings_and_lambda():
    from probekit.cli.main import build_parser

    args = build_parser().parse_args(["finetune", "--setting", "adversarial", "--adversarial-lambda", "0.5",
                                      "--out", "x"])
    assert args.setting == "adversarial" and args.adversarial_lambda == 0.5
    assert build_parser().parse_args(["finetune", "--setting", "balanced", "--out", "x"]).adversarial_lambda == 1.0


def test_the_adversary_trains_at_its_own_learning_rate_and_everything_else_at_the_loops():
    """The loop's optimizer groups: the discriminator's parameters at ``learning_rate`` of the
    adversary (with and without weight decay like every group), every other parameter at the loop's."""
    from probekit.training._loop import _parameter_groups

    encoder = torch.nn.Linear(4, 4)
    adversary = GenderAdversary(4, 1.0, learning_rate=1e-3)
    groups = _parameter_groups(torch.nn.ModuleDict({"encoder": encoder, "adversary": adversary}), 0.01)
    rates = {id(p): g.get("lr") for g in groups for p in g["params"]}
    decays = {id(p): g["weight_decay"] for g in groups for p in g["params"]}
    assert all(rates[id(p)] == 1e-3 for p in adversary.parameters())
    assert all(rates[id(p)] is None for p in encoder.parameters())  # None: the loop's learning_rate
    assert decays[id(adversary.net[0].weight)] == 0.01 and decays[id(adversary.net[0].bias)] == 0.0
    assert decays[id(encoder.weight)] == 0.01 and decays[id(encoder.bias)] == 0.0
    assert len(rates) == 6
    plain = _parameter_groups(torch.nn.ModuleDict({"encoder": encoder, "adversary": GenderAdversary(4, 1.0)}), 0.01)
    assert len(plain) == 2 and all("lr" not in g for g in plain)


def test_full_fine_tuning_gives_the_adversary_its_learning_rate(bios, tiny_encoder):
    config = FinetuneConfig(epochs=1, batch_size=8, learning_rate=1e-4, max_length=32, device="cpu",
                            adversary_learning_rate=5e-3, seed=0)
    data = bios.select(range(16))
    before = GenderAdversary(tiny_encoder.model.config.hidden_size, 1.0, seed=0)
    clf = train_classifier(tiny_encoder, data["text"], data["label"], 4, config,
                           protected=objective_inputs(data, "adversarial")["protected"], progress=False)
    assert clf.module.adversary.learning_rate == 5e-3
    moved = max(float((a.detach() - b.detach()).abs().max()) for a, b in zip(clf.module.adversary.parameters(), before.parameters()))
    assert moved > 1e-3  # two steps at 5e-3 (at 1e-4 it could move 2e-4 at most)
    with pytest.raises(InvalidParameterError, match="adversary_learning_rate"):
        FinetuneConfig(adversary_learning_rate=0.0)
