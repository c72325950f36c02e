"""Synthetic biographies with race: the planted plans, the texts, and the planted answers found by
the metric engine on simulated predictions (50 seeds at n = 2,000)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from debias import find_group_terms
from probekit.errors import InvalidParameterError
from probekit.extrinsic import UndefinedMetricWarning, group_gaps, intersectional_gaps
from probekit.finetune import group_shortcut_plan, make_synthetic_group_bios, simulate_shortcut_predictions

N, SEEDS, RELIANCE = 2000, range(50), 0.4
# n_bootstrap=None: enough replicates for the tails of the simultaneous intervals (4,800 for the
# 6 race pairs); the intersectional report uses 4,000 (the automatic 28,000 for its 35
# comparisons gives the same 50/50 here, at seven times the cost).


def _shares(labels, genders, races):
    return pd.DataFrame({"y": labels, "g": genders, "r": races}).groupby(["g", "r"])["y"].mean()


def test_plans_are_exact():
    labels, genders, races = group_shortcut_plan(N, shortcut="race", strength=0.85, random_state=0)
    shares = _shares(labels, genders, races)
    assert shares[("female", "black")] == pytest.approx(0.85, abs=0.01)
    assert shares[("male", "white")] == pytest.approx(0.15, abs=0.01)
    assert shares[("male", "asian")] == 0.5
    labels, genders, races = group_shortcut_plan(N, shortcut="intersection", strength=0.85, random_state=0)
    frame = pd.DataFrame({"y": labels, "g": genders, "r": races})
    # fair on each attribute alone, planted in the cells
    assert frame.groupby("g")["y"].mean().to_numpy() == pytest.approx([0.5, 0.5], abs=1e-12)
    assert frame.groupby("r")["y"].mean().to_numpy() == pytest.approx([0.5] * 4, abs=1e-12)
    cells = _shares(labels, genders, races)
    assert cells[("female", "black")] == pytest.approx(0.85, abs=0.01)
    assert cells[("male", "black")] == pytest.approx(0.15, abs=0.01)
    labels, *_ = group_shortcut_plan(N, shortcut=None, random_state=0)
    assert labels.mean() == 0.5
    with pytest.raises(InvalidParameterError):
        group_shortcut_plan(N, shortcut="caste")
    with pytest.raises(InvalidParameterError):
        group_shortcut_plan(N, races=["black"])


def test_texts_carry_gender_and_race():
    data = make_synthetic_group_bios(48, 24, shortcut="race", random_state=3)
    assert set(data["train"].column_names) == {"text", "label", "gender", "race", "example_id"}
    for split in ("train", "test"):
        for row in data[split]:
            found = {t.group for t in find_group_terms(row["text"], "race")}
            assert found == {row["race"]}, row["text"]
            pronoun = " she " if row["gender"] == "female" else " he "
            assert pronoun in f" {row['text'].lower()} "
    again = make_synthetic_group_bios(48, 24, shortcut="race", random_state=3)
    assert again["train"]["text"] == data["train"]["text"]


def _simulate(shortcut, seed, attributes):
    y_tr, g_tr, r_tr = group_shortcut_plan(N, shortcut=shortcut, strength=0.85, random_state=seed)
    y_te, g_te, r_te = group_shortcut_plan(N, shortcut=None, random_state=10_000 + seed)
    cells_tr = list(zip(g_tr, r_tr)) if attributes == 2 else list(r_tr)
    cells_te = list(zip(g_te, r_te)) if attributes == 2 else list(r_te)
    pred = simulate_shortcut_predictions(y_tr, cells_tr, y_te, cells_te, reliance=RELIANCE, random_state=seed)
    return y_te, pred, g_te, r_te


def test_planted_race_shortcut_found_and_not_invented():
    found = invented = 0
    for seed in SEEDS:
        y, pred, _, races = _simulate("race", seed, 1)
        found += group_gaps(y, pred, races, score="tpr", n_bootstrap=None, random_state=seed).detected
        y, pred, _, races = _simulate(None, seed, 1)
        invented += group_gaps(y, pred, races, score="tpr", n_bootstrap=None, random_state=seed).detected
    print(f"race shortcut detected in {found}/50 seeds; falsely detected without it in {invented}/50")
    assert found >= 45  # >= 90%
    assert invented <= 3  # <= 6%


def test_intersection_only_shortcut_found_only_in_the_intersection():
    only_intersection = 0
    for seed in SEEDS:
        y, pred, genders, races = _simulate("intersection", seed, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UndefinedMetricWarning)  # no cell is small at n = 2,000
            report = intersectional_gaps(y, pred, genders, races, names=("gender", "race"), min_cell_size=30,
                                         n_bootstrap=4000, random_state=seed)
        hit = report.detected()
        only_intersection += hit["intersection"] and not hit["gender"] and not hit["race"]
    print(f"intersection-only shortcut: found by the intersection and missed by both marginals in {only_intersection}/50")
    assert only_intersection >= 45


def test_simulated_predictions_follow_the_cells():
    y_tr = np.array([1] * 90 + [0] * 10 + [1] * 10 + [0] * 90)
    cells_tr = ["a"] * 100 + ["b"] * 100
    y_te = np.zeros(20000, dtype=int)
    cells_te = ["a"] * 10000 + ["b"] * 10000
    pred = simulate_shortcut_predictions(y_tr, cells_tr, y_te, cells_te, reliance=1.0, random_state=0)
    assert pred[:10000].mean() == pytest.approx(0.9, abs=0.01)
    assert pred[10000:].mean() == pytest.approx(0.1, abs=0.01)
    pred = simulate_shortcut_predictions(y_tr, cells_tr, y_te, cells_te, reliance=0.0, accuracy=1.0)
    assert (pred == 0).all()
