"""Downstream fine-tuning end to end on a tiny random encoder with a tiny tokenizer (CPU, seconds).

Training runs and the loss falls; predictions, fold and metric files are written; an interrupted
run resumes to the uninterrupted predictions; the same seed gives the same predictions; the units
(run_fold, collect_run) give what run_finetune gives; every fold metric equals what ``probekit
metrics`` computes from the saved predictions; the frozen path equals scikit-learn's logistic
regression on embeddings from a raw transformers forward pass; a projection-wrapped encoder's
projection is applied to the pooled vector; a class without one gender in a fold is NaN with a
warning; bad CLI input is a one-line error.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import shutil

import numpy as np
import pandas as pd
import pytest
import torch

from probekit import load_encoder
from probekit.cli.main import main
from probekit.errors import InputFileError, InvalidParameterError
from probekit.extrinsic import UndefinedMetricWarning
from probekit.finetune import (
    METRICS,
    FinetuneConfig,
    aggregate_folds,
    apply_setting,
    collect_run,
    counterfactual_dataset,
    make_synthetic_bios,
    run_finetune,
    run_fold,
    stratified_folds,
    train_classifier,
)
from probekit.finetune._train import _new_module, pad_batch, tokenize_texts

PROFESSIONS = ["nurse", "dietitian", "surgeon", "software_engineer"]
CONFIG = FinetuneConfig(epochs=3, batch_size=8, learning_rate=3e-3, max_length=48, device="cpu", seed=1)
STEPS_PER_EPOCH = 3  # 24 training examples per fold, batches of 8


# ------------------------------------------------------------------------------------------ fixtures


#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def bios():
    return make_synthetic_bios(48, 16, professions=PROFESSIONS, cue_strength=1.0, random_state=0)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory, bios):
    """A random 2-layer BERT (hidden size 32) and a word-level tokenizer over the bios' words."""
    from transformers import BertConfig, BertModel, BertTokenizer

    texts = []
    for split in bios.values():
        texts += list(split["text"]) + list(counterfactual_dataset(split)["text"])
    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = BertTokenizer(vocab={w: i for i, w in enumerate(specials + words)})
    config = BertConfig(vocab_size=len(specials) + len(words), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = BertModel(config)  # dropout 0.1: the runs below also check that dropout is reproducible
    path = tmp_path_factory.mktemp("tiny-bert")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def encoder(tiny_dir):
    return load_encoder(str(tiny_dir), device="cpu")


@pytest.fixture(scope="module")
def reference(encoder, bios, tmp_path_factory):
    """One uninterrupted run: original setting, 2 folds, 3 epochs."""
    out = tmp_path_factory.mktemp("reference") / "run"
    lines = []
    result = run_finetune(encoder, bios["train"], setting="original", folds=2, config=CONFIG, out_dir=out,
                          progress=False, data_name="synthetic", report=lines.append)
    return out, result, lines


def _csv(path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False)


def _prob_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c.startswith("prob_")]


# ------------------------------------------------------------------------------------------ full runs


def test_run_writes_predictions_and_metrics_and_the_loss_falls(reference, bios):
    out, result, lines = reference
    assert any(line.startswith("estimate: 2 fold(s), 18 training steps of 8") for line in lines)
    for name in ("run.json", "metrics.json", "results.md", "results.png"):
        assert (out / name).is_file()
    assert not (out / "checkpoints").exists()
    assert not [p for p in out.rglob("*") if p.name.startswith(".")]  # no temporary files left

    n_test = 0
    for k, fold in enumerate(result.folds):
        losses = fold["training"]["epoch_losses"]
        assert len(losses) == 3 and losses[-1] < losses[0] - 0.05
        assert fold["training"]["steps"] == 3 * STEPS_PER_EPOCH and fold["n_train"] == 24
        original = _csv(out / f"folds/fold-{k:02d}/original.csv")
        augmented = _csv(out / f"folds/fold-{k:02d}/augmented.csv")
        probs = original[_prob_columns(original)].to_numpy()
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-6)
        classes = [c[len("prob_"):] for c in _prob_columns(original)]
        assert list(original["prediction"]) == [classes[i] for i in probs.argmax(axis=1)]
        assert len(augmented) == 2 * len(original) == 2 * fold["n_test"]
        cf = augmented[augmented["variant"] == "counterfactual"].set_index("source").loc[original["source"]]
        assert (cf["group"].to_numpy() != original["group"].to_numpy()).all()
        assert (cf["label"].to_numpy() == original["label"].to_numpy()).all()
        assert (cf["text"].to_numpy() != original["text"].to_numpy()).all()
        n_test += len(original)
    assert n_test == len(bios["train"])  # every example tested exactly once

    saved = json.loads((out / "metrics.json").read_text())
    assert set(saved["summary"]["metrics"]) == set(METRICS)
    assert saved["provenance"]["model"]["fingerprint"] == saved["settings"]["model_fingerprint"]
    tprd = [f["metrics"]["tprd"] for f in saved["folds"]]
    stats = saved["summary"]["metrics"]["tprd"]
    from scipy import stats as scipy_stats

    assert stats["mean"] == pytest.approx(np.mean(tprd))
    assert stats["margin"] == pytest.approx(scipy_stats.t.ppf(0.975, 1) * np.std(tprd, ddof=1) / math.sqrt(2))
    table = (out / "results.md").read_text()
    assert "| TPRD |" in table.replace(" | ", " | ") or "TPRD" in table
    assert "| original |" in table


def test_every_fold_metric_equals_probekit_metrics_on_the_saved_predictions(reference, tmp_path, monkeypatch, capsys):
    out, result, _ = reference
    monkeypatch.chdir(out)
    names = {"original": {"tprd": "tprd", "fprd": "fprd", "accuracy": "accuracy", "macro_f1": "f1"},
             "augmented": {"cf": "cf", "cf_tprd": "tprd", "cf_fprd": "fprd"}}
    for fold in result.folds:
        for variant, mapping in names.items():
            argv = shlex.split(fold["metrics_commands"][variant])[1:]  # the recorded command, without "probekit"
            target = tmp_path / f"{fold['fold']}-{variant}.json"
            assert main([*argv, "--out", str(target)]) == 0
            report = json.loads(target.read_text())
            for ours, theirs in mapping.items():
                assert fold["metrics"][ours] == pytest.approx(report["metrics"][theirs], abs=1e-12), (variant, ours)
            for cls, value in fold["per_class"]["tprd" if variant == "original" else "cf_tprd"].items():
                assert value == pytest.approx(report["metrics"][f"tprd[{cls}]"], abs=1e-12)
        # ACC-F / ACC-M: accuracy within each gender, counted by hand
        frame = _csv(out / fold["files"]["original"])
        for group, key in (("female", "acc_f"), ("male", "acc_m")):
            rows = frame[frame["group"] == group]
            assert fold["metrics"][key] == pytest.approx((rows["label"] == rows["prediction"]).mean())
        # CF by hand: mean over test examples of |P(y|x) - P(y|x_cf)|
        augmented = _csv(out / fold["files"]["augmented"])
        p = {v: augmented[augmented["variant"] == v].set_index("source").sort_index() for v in ("original", "counterfactual")}
        true_prob = {v: np.array([row[f"prob_{row['label']}"] for _, row in p[v].iterrows()]) for v in p}
        assert fold["metrics"]["cf"] == pytest.approx(np.abs(true_prob["original"] - true_prob["counterfactual"]).mean())
    capsys.readouterr()


def test_an_interrupted_run_resumes_to_the_same_predictions(reference, encoder, bios, tmp_path):
    ref_out, ref_result, _ = reference
    out = tmp_path / "run"

    class Stop(Exception):
        pass

    calls = []

    def stop_in_fold_1_epoch_2(step, values):
        calls.append(step)
        if len(calls) == 3 * STEPS_PER_EPOCH + STEPS_PER_EPOCH + 1:  # fold 0 done, fold 1 one step into epoch 2
            raise Stop

    with pytest.raises(Stop):
        run_finetune(encoder, bios["train"], setting="original", folds=2, config=CONFIG, out_dir=out, progress=False,
                     data_name="synthetic", callback=stop_in_fold_1_epoch_2)
    assert (out / "folds/fold-00/fold.json").is_file() and not (out / "folds/fold-01").exists()
    assert [p.name for p in (out / "checkpoints/fold-01").iterdir()] == [f"step-{STEPS_PER_EPOCH:08d}"]
    assert not (out / "metrics.json").exists()
    # fold 0 ran uninterrupted with the same seed: the same predictions as the reference run
    for name in ("original.csv", "augmented.csv"):
        assert (out / "folds/fold-00" / name).read_bytes() == (ref_out / "folds/fold-00" / name).read_bytes()

    with pytest.raises(InvalidParameterError, match="resume"):  # not without resume
        run_finetune(encoder, bios["train"], folds=2, config=CONFIG, out_dir=out, progress=False, data_name="synthetic")
    with pytest.raises(InvalidParameterError, match="config"):  # nor with other settings
        run_finetune(encoder, bios["train"], folds=2, config=FinetuneConfig(**{**CONFIG.to_dict(), "seed": 2}),
                     out_dir=out, resume=True, progress=False, data_name="synthetic")

    lines = []
    result = run_finetune(encoder, bios["train"], setting="original", folds=2, config=CONFIG, out_dir=out, resume=True,
                          progress=False, data_name="synthetic", report=lines.append)
    assert "resuming: 1 of 2 fold(s) already finished" in lines
    assert result.folds[1]["training"]["resumed_from"] == STEPS_PER_EPOCH
    for k in range(2):
        for name in ("original.csv", "augmented.csv"):
            assert (out / f"folds/fold-{k:02d}" / name).read_bytes() == (ref_out / f"folds/fold-{k:02d}" / name).read_bytes()
        assert result.folds[k]["metrics"] == pytest.approx(ref_result.folds[k]["metrics"], nan_ok=True)
    assert result.folds[1]["training"]["epoch_losses"] == ref_result.folds[1]["training"]["epoch_losses"]
    assert not (out / "checkpoints").exists()


def test_units_run_fold_and_collect_run_give_the_runs_result(reference, encoder, bios, tmp_path):
    ref_out, ref_result, _ = reference
    out = tmp_path / "units"
    entry = run_fold(encoder, bios["train"], 1, setting="original", folds=2, config=CONFIG, out_dir=out,
                     progress=False, data_name="synthetic")
    saved = json.loads((ref_out / "folds/fold-01/fold.json").read_text())
    assert entry["metrics"] == saved["metrics"] and entry["per_class"] == saved["per_class"]
    assert (out / "folds/fold-01/augmented.csv").read_bytes() == (ref_out / "folds/fold-01/augmented.csv").read_bytes()

    # a finished unit is returned as saved with resume, refused without; another setting is refused
    assert run_fold(encoder, bios["train"], 1, folds=2, config=CONFIG, out_dir=out, resume=True, progress=False,
                    data_name="synthetic") == json.loads((out / "folds/fold-01/fold.json").read_text())
    with pytest.raises(InvalidParameterError, match="already finished"):
        run_fold(encoder, bios["train"], 1, folds=2, config=CONFIG, out_dir=out, progress=False, data_name="synthetic")
    with pytest.raises(InvalidParameterError, match="setting"):
        run_fold(encoder, bios["train"], 0, setting="swapped", folds=2, config=CONFIG, out_dir=out, progress=False,
                 data_name="synthetic")
    with pytest.raises(InvalidParameterError, match="fold"):
        run_fold(encoder, bios["train"], 2, folds=2, config=CONFIG, out_dir=out, progress=False, data_name="synthetic")
    with pytest.raises(InputFileError, match=r"fold\(s\) \[0\]"):
        collect_run(out)

    # fold 0 done elsewhere (another process or machine sharing the directory)
    shutil.copytree(ref_out / "folds/fold-00", out / "folds/fold-00")
    result = collect_run(out)
    assert (out / "metrics.json").is_file() and (out / "results.md").is_file()
    for name in METRICS:
        a, b = result.summary["metrics"][name], ref_result.summary["metrics"][name]
        assert a["mean"] == pytest.approx(b["mean"], nan_ok=True) and a["margin"] == pytest.approx(b["margin"], nan_ok=True)
    # the pure aggregation of fold dicts
    again = aggregate_folds([entry, json.loads((ref_out / "folds/fold-00/fold.json").read_text())], result.settings)
    assert again.summary["metrics"]["tprd"]["mean"] == pytest.approx(result.summary["metrics"]["tprd"]["mean"])
    with pytest.raises(InvalidParameterError, match="folds"):
        aggregate_folds([entry], result.settings)


# ------------------------------------------------------------------------------------------ frozen path


def _raw_mean_pooled(encoder, texts, max_length):
    """Masked mean of the last hidden states over non-special tokens, straight from transformers."""
    tok = encoder.tokenizer(list(texts), truncation=True, max_length=max_length, padding=True,
                            return_special_tokens_mask=True, return_tensors="pt")
    special = tok.pop("special_tokens_mask")
    with torch.no_grad():
        hidden = encoder.model(input_ids=tok["input_ids"], attention_mask=tok["attention_mask"]).last_hidden_state
    mask = (tok["attention_mask"] * (1 - special)).unsqueeze(-1).float()
    return ((hidden * mask).sum(1) / mask.sum(1)).double().numpy()


def test_frozen_path_is_logistic_regression_on_the_encoders_embeddings(encoder, bios, tmp_path):
    from sklearn.linear_model import LogisticRegression

    config = FinetuneConfig(frozen=True, max_length=48, device="cpu", seed=1)
    data = bios["train"]
    lines = []
    result = run_finetune(encoder, data, setting="scrubbed", folds=2, config=config, out_dir=tmp_path / "frozen",
                          progress=False, data_name="synthetic", report=lines.append)
    assert any("frozen encoder: embedding" in line for line in lines)
    assert "scrubbed (frozen)" in (tmp_path / "frozen/results.md").read_text()
    train_idx, test_idx = stratified_folds(data["label"], data["gender"], 2, 1)[0]
    train = apply_setting(data.select(train_idx), "scrubbed")
    head = LogisticRegression(C=1.0, max_iter=2000).fit(_raw_mean_pooled(encoder, train["text"], 48), train["label"])
    test = data.select(test_idx)
    expected = head.predict_proba(_raw_mean_pooled(encoder, test["text"], 48))
    saved = _csv(tmp_path / "frozen/folds/fold-00/original.csv")
    assert list(saved["source"]) == list(test["example_id"])
    np.testing.assert_allclose(saved[_prob_columns(saved)].to_numpy(), expected, atol=2e-4)
    assert result.folds[0]["training"]["frozen"] is True
    # leakage's scrubbed-text control, by hand: scrub the test texts, embed them, run the probe in scikit-learn
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from debias import scrub_texts

    scrubbed_texts = scrub_texts(list(test["text"]))
    assert sum(a != b for a, b in zip(scrubbed_texts, test["text"])) > len(test) // 2
    arrays = np.load(tmp_path / "frozen/folds/fold-00/representations.npz")
    np.testing.assert_allclose(arrays["scrubbed_pooled"], _raw_mean_pooled(encoder, scrubbed_texts, 48), atol=2e-4)
    np.testing.assert_allclose(arrays["scrubbed_probabilities"], head.predict_proba(_raw_mean_pooled(encoder, scrubbed_texts, 48)),
                               atol=2e-4)
    control = result.folds[0]["leakage"]["scrubbed_representation"]
    y = (np.asarray(test["gender"]) == "female").astype(int)
    fit, held = train_test_split(np.arange(y.size), test_size=0.5, stratify=y, random_state=1)
    X = arrays["scrubbed_pooled"].astype(np.float64)
    probe = make_pipeline(StandardScaler(), LogisticRegression(C=control["C"], class_weight="balanced", max_iter=1000))
    predicted = probe.fit(X[fit], y[fit]).predict(X[held])
    by_hand = np.mean([np.mean(predicted[y[held] == g] == g) for g in (0, 1)])
    assert control["balanced_accuracy"] == pytest.approx(by_hand, abs=0.05)  # one held-out flip at most
    assert control["n_held_out"] == held.size and math.isnan(control.get("mdl_compression", math.nan))
    summary = json.loads((tmp_path / "frozen/metrics.json").read_text())["summary"]["leakage"]
    assert summary["scrubbed_representation"]["balanced_accuracy"]["n"] == 2
    assert "Leakage, scrubbed text (repr.)" in (tmp_path / "frozen/results.md").read_text()


def test_frozen_runs_share_embeddings_through_the_cache(encoder, bios, tmp_path, monkeypatch):
    import probekit.embedding._extraction

    config = FinetuneConfig(frozen=True, max_length=48, device="cpu", seed=1)
    data, cache = bios["train"], tmp_path / "cache"
    plain = run_finetune(encoder, data, setting="original", folds=2, config=config, out_dir=tmp_path / "plain",
                         progress=False)
    run_finetune(encoder, data, setting="scrubbed", folds=2, config=config, out_dir=tmp_path / "scrubbed",
                 progress=False, embedding_cache=cache)
    # a unit with embeddings given by the caller (a study sharing them between units)
    from probekit.finetune import default_embedder

    calls, base = [], default_embedder(encoder, config)

    def shared(texts):
        calls.append(len(texts))
        return base(texts)

    given = run_fold(encoder, data, 0, folds=2, config=config, out_dir=tmp_path / "given", progress=False, embed=shared)
    assert calls and given["metrics"] == pytest.approx(plain.folds[0]["metrics"], nan_ok=True)

    def no_encoding(*args, **kwargs):
        raise AssertionError("embedded again instead of read from the cache")

    monkeypatch.setattr(probekit.embedding._extraction, "_encode_units", no_encoding)
    cached = run_finetune(encoder, data, setting="original", folds=2, config=config, out_dir=tmp_path / "cached",
                          progress=False, embedding_cache=cache)
    entry = run_fold(encoder, data, 1, setting="swapped", folds=2, config=config, out_dir=tmp_path / "unit",
                     progress=False, embedding_cache=cache)
    for a, b in zip(cached.folds, plain.folds):
        assert a["metrics"] == pytest.approx(b["metrics"], nan_ok=True)
    assert entry["n_train"] == 2 * plain.folds[1]["n_train"]


# ------------------------------------------------------------------------------------------ projections


def test_a_projected_encoders_projection_is_applied_to_the_pooled_vector(encoder, bios):
    from probekit.encoders import OutputProjection

    rng = np.random.default_rng(0)
    v = rng.normal(size=32)
    v /= np.linalg.norm(v)
    offset = rng.normal(size=32) * 0.1
    projection = OutputProjection(np.eye(32) - np.outer(v, v), offset)  # remove direction v, then shift
    projected = encoder.with_output_projection(projection)
    texts, labels = list(bios["train"]["text"][:16]), list(bios["train"]["label"][:16])

    module = _new_module(projected, 4, CONFIG).eval()
    batch = pad_batch(tokenize_texts(projected.tokenizer, texts, 48), projected.tokenizer.pad_token_id)
    with torch.no_grad():
        pooled = module.pooled(batch["input_ids"], batch["attention_mask"], batch["pool_mask"]).double().numpy()
    raw = _raw_mean_pooled(encoder, texts, 48)
    np.testing.assert_allclose(pooled, projection.apply(raw), atol=1e-5)
    np.testing.assert_allclose((pooled - offset) @ v, 0.0, atol=1e-5)

    # trained through the shared loop: the projection stays fixed and sits in every forward pass
    clf = train_classifier(projected, texts, labels, 4, FinetuneConfig(**{**CONFIG.to_dict(), "epochs": 1}), progress=False)
    trained = clf.module
    np.testing.assert_allclose(trained.projection_matrix_t.numpy(), projection.matrix.T, atol=1e-7)
    tok = projected.tokenizer(texts, truncation=True, max_length=48, padding=True, return_special_tokens_mask=True,
                              return_tensors="pt")
    special = tok.pop("special_tokens_mask")
    with torch.no_grad():
        hidden = trained.encoder(input_ids=tok["input_ids"], attention_mask=tok["attention_mask"]).last_hidden_state
        mask = (tok["attention_mask"] * (1 - special)).unsqueeze(-1).float()
        mean = (hidden * mask).sum(1) / mask.sum(1)
        logits = trained.classifier(mean @ torch.tensor(projection.matrix.T, dtype=torch.float32)
                                    + torch.tensor(offset, dtype=torch.float32))
    np.testing.assert_allclose(clf.predict_proba(texts), torch.softmax(logits, -1).double().numpy(), atol=1e-5)
    assert not any(p is q for p in trained.encoder.parameters() for q in encoder.model.parameters())  # a copy


# ------------------------------------------------------------------------------------------ undefined cells


def test_a_class_without_one_gender_in_a_fold_is_nan_with_a_warning(encoder, tmp_path):
    skews = {"nurse": 0.75, "dietitian": 0.75, "surgeon": 1.0, "software_engineer": 0.75}  # no female surgeon
    data = make_synthetic_bios(32, 4, professions=PROFESSIONS, train_gender_skew=skews, random_state=1)["train"]
    config = FinetuneConfig(frozen=True, max_length=48, device="cpu")
    with pytest.warns(UndefinedMetricWarning, match=r"fold \d: test set: tpr is undefined .*'female' class 'surgeon'"):
        result = run_finetune(encoder, data, folds=2, config=config, out_dir=tmp_path / "nan", progress=False)
    for fold in result.folds:
        assert math.isnan(fold["per_class"]["tprd"]["surgeon"]) and math.isfinite(fold["metrics"]["tprd"])
        assert any("surgeon" in w for w in fold["warnings"])
        assert math.isfinite(fold["per_class"]["cf_tprd"]["surgeon"])  # the counterfactuals hold female surgeons
    assert result.summary["per_class"]["tprd"]["surgeon"]["n_missing"] == 2
    saved = json.loads((tmp_path / "nan/metrics.json").read_text())
    assert saved["folds"][0]["per_class"]["tprd"]["surgeon"] is None
    assert "undefined per-class cell" in (tmp_path / "nan/results.md").read_text()


# ------------------------------------------------------------------------------------------ CLI


@pytest.mark.filterwarnings("ignore::probekit.extrinsic.UndefinedMetricWarning")  # 2 bios per class: cells without a gender
def test_cli_runs_prints_an_estimate_and_writes_the_run(tiny_dir, tmp_path, capsys):
    out = tmp_path / "cli"
    rc = main(["finetune", "--model", str(tiny_dir), "--data", "synthetic", "--n-examples", "56", "--folds", "2",
               "--frozen", "--max-length", "48", "--device", "cpu", "--no-progress", "--out", str(out), "--reader", "mlp"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "probekit finetune: estimate: 2 fold(s), frozen encoder" in captured.err
    assert "| original (frozen) |" in captured.out
    # --reader mlp: the leakage is also read by the MLP reader, shown beside the linear probe's
    assert "| Leakage (repr.) | Leakage (repr., MLP) | Leakage MDL |" in captured.out
    folds = json.loads((out / "metrics.json").read_text())["folds"]
    assert all(f["leakage"]["representation_mlp"]["reader"] == "mlp" for f in folds)
    assert all(0.0 <= f["leakage"]["representation_mlp"]["balanced_accuracy"] <= 1.0 for f in folds)
    assert (out / "metrics.json").is_file() and (out / "folds/fold-01/augmented.csv").is_file()
    # the fold's recorded metrics command for the MLP reader reproduces its MLP leakage
    fold = folds[0]
    argv = shlex.split(fold["metrics_commands"]["original_mlp"])[1:]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(out)
        assert main([*argv, "--out", str(tmp_path / "mlp.json")]) == 0
    recomputed = json.loads((tmp_path / "mlp.json").read_text())["leakage"]["representation"]
    assert recomputed["balanced_accuracy"] == pytest.approx(
        fold["leakage"]["representation_mlp"]["balanced_accuracy"], abs=1e-12)


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--folds", "1"], "--folds"),
        (["--epochs", "0"], "--epochs"),
        (["--data", "bios"], "--data-path"),
        (["--data", "bios", "--data-path", "{tmp}/missing.csv"], "missing.csv"),
        (["--data-path", "x.csv"], "--data-path"),
        (["--model", "{tmp}/no-such-model"], "no-such-model"),
        (["--embedding-cache", "{tmp}/cache", "--epochs", "1"], "--embedding-cache"),
        (["--reader", "mlp,forest"], "--reader"),
    ],
)
def test_cli_bad_input_is_a_one_line_error(tiny_dir, tmp_path, capsys, extra, needle):
    out = tmp_path / "out"
    argv = ["finetune", "--model", str(tiny_dir), "--frozen", "--no-progress", "--out", str(out)]
    argv += [a.replace("{tmp}", str(tmp_path)) for a in extra]
    if "--embedding-cache" in extra:
        argv.remove("--frozen")
    assert main(argv) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("probekit finetune: error:") and needle in err, err
    assert not out.exists()  # nothing written


def test_cli_refuses_a_non_empty_output_directory_before_loading_anything(tmp_path, capsys):
    out = tmp_path / "full"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert main(["finetune", "--model", str(tmp_path / "never-loaded"), "--out", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--out" in err and "--resume" in err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
