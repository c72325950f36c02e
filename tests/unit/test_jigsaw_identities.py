"""Jigsaw identity columns as race/religion groups, and Borkan's per-subgroup AUCs on the identity
subgroups against plain scikit-learn roc_auc_score."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from probekit.errors import InputFileError, InvalidParameterError
from probekit.extrinsic import borkan_table
from probekit.finetune import JIGSAW_IDENTITY_COLUMNS, jigsaw_subgroups, load_jigsaw_groups


def _frame(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"comment_text": [f"comment {i}" for i in range(n)],
                          "target": rng.choice([0.0, 0.0, 0.2, 0.7, 0.9], n)})
    for column in JIGSAW_IDENTITY_COLUMNS["race"] + JIGSAW_IDENTITY_COLUMNS["religion"] + ("female", "male"):
        frame[column] = rng.choice([0.0, 0.0, 0.0, 0.0, 0.3, 0.6, 1.0], n)
    frame.loc[rng.random(n) < 0.1, "black"] = np.nan  # not annotated
    return frame


def test_race_groups_follow_the_k_group_rule(tmp_path):
    frame = _frame()
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    data = load_jigsaw_groups(path, attribute="race")
    groups = ("black", "white", "asian", "latino")
    scores = frame[list(groups)].to_numpy()
    single = ((scores > 0.5).sum(axis=1) == 1) & ((scores > 0.5) | (scores == 0)).all(axis=1)
    toxic_or_not = (frame["target"] > 0.5) | (frame["target"] == 0)
    expected = np.flatnonzero(single & toxic_or_not.to_numpy())
    assert data["example_id"] == expected.tolist()
    got = np.asarray(data["race"])
    want = np.asarray(groups, dtype=object)[(scores[expected] > 0.5).argmax(axis=1)]
    assert (got == want).all()
    assert data["label"] == (frame["target"].to_numpy()[expected] > 0.5).astype(int).tolist()
    assert "identity_muslim" in data.column_names and "identity_other_race_or_ethnicity" in data.column_names
    f, m = frame["female"].to_numpy()[expected], frame["male"].to_numpy()[expected]
    gender = np.where((f > 0.5) & (m == 0), "female", np.where((m > 0.5) & (f == 0), "male", "unspecified"))
    assert data["gender"] == gender.tolist()
    religion = load_jigsaw_groups(path, attribute="religion")
    assert set(religion["religion"]) <= {"jewish", "christian", "muslim", "hindu", "buddhist", "atheist"}


def test_borkan_per_subgroup_aucs_against_sklearn(tmp_path):
    frame = _frame(seed=1)
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    data = load_jigsaw_groups(path, attribute="religion")
    y = np.asarray(data["label"])
    rng = np.random.default_rng(2)
    score = np.clip(0.3 * y + rng.normal(0.4, 0.2, y.size), 0, 1).round(2)  # ties included
    subgroups = jigsaw_subgroups(data, columns=["black", "white", "asian", "latino", "muslim", "jewish", "christian"])
    table = borkan_table(y, score, subgroups)
    for name in subgroups.columns:
        mask = subgroups[name].to_numpy()
        assert table.loc[name, "subgroup_auc"] == pytest.approx(roc_auc_score(y[mask], score[mask]), abs=1e-12)
        bpsn = (mask & (y == 0)) | (~mask & (y == 1))
        bnsp = (mask & (y == 1)) | (~mask & (y == 0))
        assert table.loc[name, "bpsn_auc"] == pytest.approx(roc_auc_score(y[bpsn], score[bpsn]), abs=1e-12)
        assert table.loc[name, "bnsp_auc"] == pytest.approx(roc_auc_score(y[bnsp], score[bnsp]), abs=1e-12)
    # missing identity scores are outside the subgroup
    black = np.asarray(data["identity_black"], dtype=float)
    assert not subgroups["black"].to_numpy()[np.isnan(black)].any()


def test_errors(tmp_path):
    frame = _frame(200)
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InvalidParameterError):
        load_jigsaw_groups(path, attribute="gender")
    with pytest.raises(InvalidParameterError):
        load_jigsaw_groups(path, threshold=1.5)
    frame.drop(columns=["white", "asian", "latino"]).to_csv(path, index=False)
    with pytest.raises(InputFileError, match="identity columns"):
        load_jigsaw_groups(path, attribute="race")
    data = load_jigsaw_groups(tmp_path / "train.csv", attribute="religion")
    with pytest.raises(InvalidParameterError):
        jigsaw_subgroups(data, columns=["martian"])
