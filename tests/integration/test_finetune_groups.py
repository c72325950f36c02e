"""``probekit finetune --attribute race``: the extrinsic side for k groups, end to end on a tiny encoder.

The encoder is a random 1-layer BERT whose word embeddings are shrunk except the race terms', so that
its pooled vector carries race and little else: a classifier trained on data with a planted race
shortcut follows race, one trained without it has nothing to follow. The pooled gap family must
find the planted pair (black vs white) and not find it without the shortcut; every number of a fold
is recomputed from its saved predictions with fairlearn, by brute force and by the fold's own
``probekit metrics --gaps`` command; the k-class leakage
probe is scikit-learn's balanced accuracy; settings that are not defined for k groups are refused
by name.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex

import numpy as np
import pandas as pd
import pytest
import torch

import wordlists
from debias import find_group_terms
from probekit.cli.main import main
from probekit.errors import InvalidParameterError
from probekit.extrinsic import evaluate_predictions
from probekit.finetune import (
    FinetuneConfig,
    group_cf,
    group_counterfactual_dataset,
    group_leakage,
    group_setting,
    make_synthetic_group_bios,
    pooled_group_gaps,
    run_finetune,
)

RACE_TERMS = ("black", "white", "asian", "latino")
# trained on the 160 (skewed) training biographies, tested on 80 with label 1 in half of every cell
RUN = ["--attribute", "race", "--shortcut-strength", "0.9", "--cue-strength", "0", "--frozen", "--n-examples", "160",
       "--fixed-split", "--max-length", "96", "--no-progress", "--device", "cpu"]


#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def race_encoder_dir(tmp_path_factory):
    """A random BERT (hidden 64, one layer) over the group bios' words; every word embedding times 0.02
    except the race terms' (times 5): the pooled vector reads race."""
    from transformers import BertConfig, BertModel, BertTokenizer

    texts = []
    for shortcut in ("race", None):
        for split in make_synthetic_group_bios(160, 80, shortcut=shortcut, strength=0.9, cue_strength=0.0,
                                               random_state=0).values():
            texts += list(split["text"])  # every race term is in them: counterfactuals add no word
    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words)}
    config = BertConfig(vocab_size=len(vocab), hidden_size=64, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=128)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = BertModel(config)
    with torch.no_grad():
        weights = model.embeddings.word_embeddings.weight
        weights *= 0.02
        for term in RACE_TERMS:
            weights[vocab[term]] *= 250.0
    path = tmp_path_factory.mktemp("race-bert")
    model.save_pretrained(path)
    BertTokenizer(vocab=vocab).save_pretrained(path)
    return path


def _run_cli(model_dir, out, shortcut, capsys, *extra):
    code = main(["finetune", "--model", str(model_dir), "--out", str(out), "--shortcut", shortcut, *RUN, *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def _pair(gaps, a, b):
    return next(p for p in gaps["pairwise"] if {p["group_a"], p["group_b"]} == {a, b})


def _fairlearn_rates(frame, positive="surgeon"):
    from fairlearn.metrics import MetricFrame, false_positive_rate, true_positive_rate

    y = (frame["label"] == positive).to_numpy()
    p = (frame["prediction"] == positive).to_numpy()
    return MetricFrame(metrics={"tpr": true_positive_rate, "fpr": false_positive_rate}, y_true=y, y_pred=p,
                       sensitive_features=frame["group"].to_numpy())


@pytest.fixture(scope="module")
def shortcut_run(race_encoder_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("race-run") / "run"
    with pytest.MonkeyPatch.context():
        import contextlib
        import io

        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
            code = main(["finetune", "--model", str(race_encoder_dir), "--out", str(out), "--shortcut", "race",
                         "--intersect", "gender", "--min-cell-size", "5", *RUN])
    assert code == 0
    return out, stdout.getvalue()


def test_the_planted_race_shortcut_is_detected_and_every_number_recomputes(shortcut_run, monkeypatch, capsys, tmp_path):
    out, printed = shortcut_run
    assert "## Fine-tuning with race (4 groups)" in printed and "Pooled pairwise TPR gaps of class surgeon by race" in printed
    run = json.loads((out / "run.json").read_text())["settings"]
    assert run["attribute"] == "race" and run["groups"] == list(RACE_TERMS) and run["intersect"] == "gender"
    metrics = json.loads((out / "metrics.json").read_text())
    pooled = metrics["summary"]["pooled"]
    planted = _pair(pooled["group_gaps"]["tpr"]["surgeon"], "black", "white")
    signed = planted["gap"] if planted["group_a"] == "black" else -planted["gap"]
    assert signed > 0 and planted["excludes_zero"]  # black was planted towards surgeon, white away from it
    for fold in metrics["folds"]:
        assert fold["attribute"] == "race" and fold["leakage"]["representation"]["k"] == 4
        assert fold["leakage"]["representation"]["chance"] == pytest.approx(0.25)
        original = pd.read_csv(out / fold["files"]["original"])
        rates = _fairlearn_rates(original)
        by_group = rates.by_group
        assert fold["metrics"]["tpr_max_gap"] == pytest.approx(rates.difference()["tpr"], abs=1e-12)
        assert fold["metrics"]["fpr_max_gap"] == pytest.approx(rates.difference()["fpr"], abs=1e-12)
        rms = np.sqrt(np.mean((by_group["tpr"] - rates.overall["tpr"]) ** 2))
        assert fold["metrics"]["tpr_rms_gap"] == pytest.approx(rms, abs=1e-12)
        for pair in fold["group_gaps"]["tpr"]["surgeon"]["pairwise"]:
            expected = by_group.loc[pair["group_a"], "tpr"] - by_group.loc[pair["group_b"], "tpr"]
            assert pair["gap"] == pytest.approx(expected, abs=1e-12)
        augmented = pd.read_csv(out / fold["files"]["augmented"])
        assert fold["metrics"]["cf"] == pytest.approx(_brute_force_cf(augmented), abs=1e-12)
        monkeypatch.chdir(out)  # the fold's own recomputation command, as written in fold.json
        command = shlex.split(fold["metrics_commands"]["original"])[1:] + ["--out", str(tmp_path / "recomputed.json")]
        assert main(command) == 0 and "k-group gaps" in capsys.readouterr().out
        recomputed = json.loads((tmp_path / "recomputed.json").read_text())["group_gaps"]
        assert _without_attribute(recomputed) == _without_attribute(fold["group_gaps"])  # intervals too: same seed
        inter = fold["intersection"]["tpr"]["surgeon"]["intersection"]
        cells = _fairlearn_cells(original)
        assert {g["group"] for g in inter["groups"]} == {f"{r}|{g}" for r, g in itertools.product(RACE_TERMS, ("female", "male"))}
        for g in inter["groups"]:
            assert g["rate"] == pytest.approx(cells[tuple(g["group"].split("|"))], abs=1e-12, nan_ok=True)
    assert pooled["metrics"]["tpr_max_gap"] == pytest.approx(metrics["folds"][0]["metrics"]["tpr_max_gap"], abs=1e-15)
    assert pooled["n"] == 80


def _without_attribute(gaps):
    return {s: {c: {k: v for k, v in g.items() if k != "attribute"} for c, g in by.items()} for s, by in gaps.items()}


def _fairlearn_cells(frame):
    from fairlearn.metrics import MetricFrame, true_positive_rate

    mf = MetricFrame(metrics=true_positive_rate, y_true=(frame["label"] == "surgeon").to_numpy(),
                     y_pred=(frame["prediction"] == "surgeon").to_numpy(),
                     sensitive_features=pd.DataFrame({"race": frame["group"], "gender": frame["gender"]}))
    return mf.by_group.to_dict()


def _brute_force_cf(augmented):
    per_example = []
    for _, rows in augmented.groupby("source"):
        original = rows[rows["variant"] == "original"].iloc[0]
        p = original[f"prob_{original['label']}"]
        others = rows[rows["variant"] == "counterfactual"]
        assert len(others) == 3 and original["group"] not in set(others["group"])  # k - 1 = 3 other groups
        per_example.append(np.mean([abs(p - r[f"prob_{original['label']}"]) for _, r in others.iterrows()]))
    return float(np.mean(per_example))


def test_without_the_shortcut_the_planted_pair_is_not_detected(race_encoder_dir, tmp_path, capsys):
    _run_cli(race_encoder_dir, tmp_path / "run", "none", capsys)
    pooled = json.loads((tmp_path / "run" / "metrics.json").read_text())["summary"]["pooled"]
    assert not _pair(pooled["group_gaps"]["tpr"]["surgeon"], "black", "white")["excludes_zero"]


def test_the_k_class_leakage_probe_is_sklearns_balanced_accuracy_on_the_held_out_rows():
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    groups = np.repeat(["a", "b", "c"], 40)
    X = rng.normal(size=(120, 5)) + 0.8 * np.eye(5)[np.repeat([0, 1, 2], 40)]
    result = group_leakage(X, groups, C=1.0, mdl=False, random_state=3)
    y = np.unique(groups, return_inverse=True)[1]
    train, test = train_test_split(np.arange(120), test_size=0.5, stratify=y, random_state=3)
    reference = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000))
    expected = balanced_accuracy_score(y[test], reference.fit(X[train], y[train]).predict(X[test]))
    assert result["balanced_accuracy"] == pytest.approx(expected, abs=1e-12)
    assert result["k"] == 3 and result["chance"] == pytest.approx(1 / 3) and result["interval"][0] > 1 / 3
    noise = group_leakage(rng.normal(size=(120, 5)), groups, C=1.0, mdl=False, random_state=3)
    assert noise["interval"][0] < 1 / 3 < noise["interval"][1]


def test_settings_counterfactuals_and_cf_for_k_groups():
    data = make_synthetic_group_bios(16, 8, shortcut=None, random_state=1)["train"]
    race = wordlists.get_attribute("race")
    scrubbed = group_setting(data, "scrubbed", "race")
    assert all(not find_group_terms(t, race) for t in scrubbed["text"]) and scrubbed["label"] == data["label"]
    swapped = group_setting(data, "swapped", "race", random_state=0)
    assert len(swapped) == 2 * len(data)
    for own, cf in zip(data, swapped.select(range(len(data), 2 * len(data)))):
        assert cf["race"] != own["race"] and cf["label"] == own["label"] and cf["example_id"] == own["example_id"]
        assert {t.group for t in find_group_terms(cf["text"], race)} == {cf["race"]}
    counterfactuals = group_counterfactual_dataset(data, "race")
    assert len(counterfactuals) == 3 * len(data)
    # k = 2: group_cf is Tokpo et al.'s CF as the engine computes it
    rng = np.random.default_rng(0)
    n = 50
    p, p_cf = rng.dirichlet([1, 1], size=n), rng.dirichlet([1, 1], size=n)
    labels = rng.integers(0, 2, n)
    frame = pd.DataFrame({"source": np.tile(np.arange(n), 2), "variant": ["original"] * n + ["counterfactual"] * n,
                          "label": np.tile(labels, 2).astype(str), "prob_0": np.r_[p[:, 0], p_cf[:, 0]],
                          "prob_1": np.r_[p[:, 1], p_cf[:, 1]], "group": ["a"] * n + ["b"] * n})
    probs = frame[["prob_0", "prob_1"]].to_numpy()
    engine = evaluate_predictions(frame["label"].to_numpy(), probs.argmax(axis=1).astype(str), frame["group"].to_numpy(),
                                  y_prob=probs, source=frame["source"].to_numpy(), labels=["0", "1"])
    assert group_cf(frame, ["0", "1"]) == pytest.approx(engine.metrics["cf"], abs=1e-12)


def test_pooled_gaps_of_two_folds_are_the_gaps_of_their_predictions_together():
    from probekit.finetune import fold_group_metrics

    rng = np.random.default_rng(2)
    n = 300
    frame = pd.DataFrame({"variant": "original", "source": np.arange(n), "label": rng.choice(["x", "y"], n),
                          "prediction": rng.choice(["x", "y"], n), "group": rng.choice(RACE_TERMS, n),
                          "gender": rng.choice(["female", "male"], n), "prob_x": 0.5, "prob_y": 0.5})
    options = dict(attribute="race", intersect="gender", min_cell_size=5, n_bootstrap=50)
    details = [fold_group_metrics(part, ["x", "y"], **options)[2] for part in (frame[:120], frame[120:])]
    together, _, expected, _ = fold_group_metrics(frame, ["x", "y"], **options)
    pooled = pooled_group_gaps(details, ["x", "y"], **options)
    assert pooled["n"] == n
    for name in ("tpr_max_gap", "fpr_rms_gap", "intersection_tpr_max_gap", "intersection_fpr_rms_gap"):
        assert pooled["metrics"][name] == pytest.approx(together[name], abs=1e-15)
    assert pooled["group_gaps"]["tpr"]["y"]["pairwise"] == expected["group_gaps"]["tpr"]["y"]["pairwise"]


@pytest.mark.parametrize(("extra", "needle"), [
    (["--attribute", "religion"], "--attribute"),
    (["--attribute", "race", "--setting", "adversarial"], "adversarial"),
    (["--attribute", "race", "--reader", "mlp"], "--reader"),
    (["--intersect", "gender"], "--intersect"),
    (["--attribute", "race", "--data", "bios", "--data-path", "x.csv"], "Bias in Bios"),
    (["--attribute", "caste"], "--attribute"),
])
def test_cli_refuses_what_k_groups_cannot_do_by_name(tmp_path, capsys, extra, needle):
    code = main(["finetune", "--out", str(tmp_path / "o"), "--frozen", *extra])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err


def test_library_refuses_a_missing_group_column_and_the_adversary_by_name(race_encoder_dir, tmp_path):
    from probekit import load_encoder

    data = make_synthetic_group_bios(16, 8, shortcut=None, random_state=1)["train"]
    encoder = load_encoder(str(race_encoder_dir), device="cpu")
    config = FinetuneConfig(frozen=True, device="cpu")
    with pytest.raises(InvalidParameterError, match="attribute='religion'.*no 'religion' column"):
        run_finetune(encoder, data, attribute="religion", folds=2, config=config, out_dir=tmp_path / "a", progress=False)
    with pytest.raises(InvalidParameterError, match="setting='adversarial'.*binary gender"):
        run_finetune(encoder, data, attribute="race", setting="adversarial", folds=2, config=config,
                     out_dir=tmp_path / "b", progress=False)


def test_jigsaw_subgroup_aucs_are_sklearns_roc_auc(tmp_path):
    from sklearn.metrics import roc_auc_score

    from probekit.finetune import load_jigsaw_groups, subgroup_aucs

    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"comment_text": [f"comment {i}" for i in range(n)], "target": rng.choice([0.0, 0.9], n)})
    for column in ("black", "white", "asian", "latino", "female", "male"):
        frame[column] = rng.choice([0.0, 0.0, 1.0], n)
    frame.to_csv(tmp_path / "jigsaw.csv", index=False)
    data = load_jigsaw_groups(tmp_path / "jigsaw.csv", attribute="race")
    assert set(data["gender"]) <= {"female", "male", "unspecified"}
    p = rng.random(len(data))
    rows = {r["subgroup"]: r for r in subgroup_aucs(data, np.c_[1 - p, p], ["non-toxic", "toxic"])}
    y = np.asarray(data["label"])
    for name in ("black", "female"):
        mask = np.asarray(data[f"identity_{name}"]) > 0.5
        assert rows[name]["subgroup_auc"] == pytest.approx(roc_auc_score(y[mask], p[mask]), abs=1e-12)
        bpsn = (mask & (y == 0)) | (~mask & (y == 1))  # subgroup negatives, background positives
        assert rows[name]["bpsn_auc"] == pytest.approx(roc_auc_score(y[bpsn], p[bpsn]), abs=1e-12)
