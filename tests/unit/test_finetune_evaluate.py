"""Fine-tuning evaluation: fold metrics against brute-force references, fold summaries against SciPy."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from probekit.extrinsic import UndefinedMetricWarning, t_interval
from probekit.finetune import METRICS, fold_metrics, prob_column, summarize_folds

CLASSES = ["a", "b", "c"]


def _predictions(n: int = 120, seed: int = 0) -> pd.DataFrame:
    """Original rows and their counterfactuals (other gender) with random probabilities."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(CLASSES, n)
    groups = rng.choice(["female", "male"], n)
    rows = []
    for variant in ("original", "counterfactual"):
        probs = rng.dirichlet(np.ones(len(CLASSES)), n)
        # make the model mostly right so that every rate is defined
        probs[np.arange(n), [CLASSES.index(y) for y in labels]] += rng.uniform(0, 1.5, n)
        probs /= probs.sum(axis=1, keepdims=True)
        g = groups if variant == "original" else np.where(groups == "female", "male", "female")
        for i in range(n):
            row = {"fold": 0, "source": i, "variant": variant, "label": labels[i],
                   "prediction": CLASSES[int(np.argmax(probs[i]))], "group": g[i], "text": f"t{i}"}
            row.update({prob_column(c): probs[i, k] for k, c in enumerate(CLASSES)})
            rows.append(row)
    return pd.DataFrame(rows)


def _tpr(frame: pd.DataFrame, cls: str, group: str, negative: bool = False) -> float:
    sel = frame[(frame.group == group) & ((frame.label != cls) if negative else (frame.label == cls))]
    return float((sel.prediction == cls).mean()) if len(sel) else math.nan


def test_fold_metrics_match_brute_force():
    frame = _predictions()
    metrics, per_class, messages = fold_metrics(frame, CLASSES, fold=0)
    assert set(metrics) == set(METRICS) and not messages
    original = frame[frame.variant == "original"]
    for name, sub in (("", original), ("cf_", frame)):
        tprd = {c: _tpr(sub, c, "female") - _tpr(sub, c, "male") for c in CLASSES}
        fprd = {c: _tpr(sub, c, "female", True) - _tpr(sub, c, "male", True) for c in CLASSES}
        assert per_class[name + "tprd"] == pytest.approx(tprd)
        assert per_class[name + "fprd"] == pytest.approx(fprd)
        assert metrics[name + "tprd"] == pytest.approx(np.mean(np.abs(list(tprd.values()))))
        assert metrics[name + "fprd"] == pytest.approx(np.mean(np.abs(list(fprd.values()))))
        assert metrics[name + "tprd_rms"] == pytest.approx(np.sqrt(np.mean(np.square(list(tprd.values())))))
        for g, key in (("female", "acc_f"), ("male", "acc_m")):
            sel = sub[sub.group == g]
            assert metrics[name + key] == pytest.approx((sel.label == sel.prediction).mean())
    assert metrics["accuracy"] == pytest.approx((original.label == original.prediction).mean())
    from sklearn.metrics import f1_score

    assert metrics["macro_f1"] == pytest.approx(f1_score(original.label, original.prediction, average="macro"))
    # CF: mean over test examples of |P(yhat=y|x) - P(yhat=y|x_cf)|
    cf = frame[frame.variant == "counterfactual"].set_index("source")
    o = original.set_index("source")
    p_o = np.array([o.loc[i, prob_column(o.loc[i, "label"])] for i in o.index])
    p_c = np.array([cf.loc[i, prob_column(o.loc[i, "label"])] for i in o.index])
    assert metrics["cf"] == pytest.approx(np.mean(np.abs(p_o - p_c)))


def test_class_missing_one_gender_gives_nan_and_warning():
    frame = _predictions()
    # class "c" in the original test set only for men; counterfactual rows still have both genders
    drop = (frame.variant == "original") & (frame.label == "c") & (frame.group == "female")
    frame = frame[~drop]
    frame = frame[frame.source.isin(frame[frame.variant == "original"].source)]
    with pytest.warns(UndefinedMetricWarning, match=r"fold 3: .*'female'.*'c'"):
        metrics, per_class, messages = fold_metrics(frame, CLASSES, fold=3)
    assert math.isnan(per_class["tprd"]["c"]) and math.isnan(per_class["fprd"]["c"]) is False
    assert messages and all(m.startswith("fold 3: ") for m in messages)
    # the aggregate leaves the undefined class out
    assert metrics["tprd"] == pytest.approx(np.mean([abs(per_class["tprd"][c]) for c in ("a", "b")]))
    assert not math.isnan(per_class["cf_tprd"]["c"])


def test_t_interval_matches_scipy():
    values = [0.12, 0.15, 0.11, 0.18, 0.14]
    got = t_interval(values, 0.95)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert got["low"] == pytest.approx(low) and got["high"] == pytest.approx(high)
    assert got["std"] == pytest.approx(np.std(values, ddof=1))
    with_nan = t_interval([*values, math.nan])
    assert with_nan["n"] == 5 and with_nan["n_missing"] == 1 and with_nan["low"] == pytest.approx(low)
    single = t_interval([0.3])
    assert single["mean"] == 0.3 and math.isnan(single["margin"])


def test_summarize_folds_over_metrics_and_classes():
    folds = [
        {"metrics": {"tprd": 0.1, "cf": 0.05}, "per_class": {"tprd": {"a": 0.1, "b": math.nan}}},
        {"metrics": {"tprd": 0.2, "cf": 0.07}, "per_class": {"tprd": {"a": 0.3, "b": 0.2}}},
        {"metrics": {"tprd": 0.3, "cf": 0.06}, "per_class": {"tprd": {"a": 0.2, "b": 0.4}}},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary = summarize_folds(folds)
    assert summary["metrics"]["tprd"]["mean"] == pytest.approx(0.2)
    assert summary["metrics"]["tprd"]["low"] == pytest.approx(t_interval([0.1, 0.2, 0.3])["low"])
    assert summary["per_class"]["tprd"]["b"]["n"] == 2
    assert summary["per_class"]["tprd"]["b"]["mean"] == pytest.approx(0.3)
