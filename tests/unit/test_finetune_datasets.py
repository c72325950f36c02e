"""Bias-in-Bios and Jigsaw loaders on small files in the real layouts (written here), the label x
gender counts, bad input, and the three training-data settings with the counterfactual test set."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import wordlists
from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune import (
    DATA_SETTINGS,
    JIGSAW_LABELS,
    LABHC_PROFESSIONS,
    PAPER_SETTINGS,
    apply_setting,
    counterfactual_dataset,
    format_label_gender_counts,
    label_gender_counts,
    load_bios,
    load_jigsaw,
    make_synthetic_bios,
)

# --------------------------------------------------------------------------------------------
# A small Bias-in-Bios in the LabHC layout: 16 professions, 10 rows each, profession k (in the
# order below) has FEMALE_COUNTS[k] women, so the paper's subset is known.
# --------------------------------------------------------------------------------------------

BIOS_PROFESSIONS = [
    "accountant", "architect", "attorney", "comedian", "composer", "dietitian", "dj", "interior_designer",
    "model", "nurse", "paralegal", "pastor", "psychologist", "rapper", "surgeon", "yoga_teacher",
]
FEMALE_COUNTS = [4, 2, 5, 3, 2, 9, 1, 8, 8, 9, 8, 2, 6, 1, 1, 8]
# 7 lowest shares: dj, rapper, surgeon (0.1), architect, composer, pastor (0.2), comedian (0.3);
# 7 highest: dietitian, nurse (0.9), interior_designer, model, paralegal, yoga_teacher (0.8),
# psychologist (0.6). Left out: accountant (0.4), attorney (0.5).
PAPER_SUBSET = [p for p in LABHC_PROFESSIONS if p not in ("accountant", "attorney") and p in BIOS_PROFESSIONS]


def _bios_frame() -> pd.DataFrame:
    rows = []
    for name, n_female in zip(BIOS_PROFESSIONS, FEMALE_COUNTS):
        for i in range(10):
            female = i < n_female
            pronoun = "She" if female else "He"
            rows.append({
                "hard_text": f"{pronoun} works as described in biography {len(rows)}.",
                "profession": LABHC_PROFESSIONS.index(name),
                "gender": 1 if female else 0,
            })
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def bios_frame():
    return _bios_frame()


def _write_bios(frame: pd.DataFrame, path, kind: str):
    """The frame in one of the layouts a user may have: int ids / names, 0-1 / F-M / Female-Male."""
    out = frame.copy()
    if kind == "csv":  # LabHC as exported: integer ids, 0/1
        target = path / "bios.csv"
        out.to_csv(target, index=False)
    elif kind == "jsonl":  # original biosbias spelling: names, F/M
        out["profession"] = [LABHC_PROFESSIONS[i] for i in out["profession"]]
        out["gender"] = np.where(out["gender"] == 1, "F", "M")
        target = path / "bios.jsonl"
        out.to_json(target, orient="records", lines=True)
    elif kind == "json":  # one array of records, names with spaces and capitals
        out["profession"] = [LABHC_PROFESSIONS[i].replace("_", " ").title() for i in out["profession"]]
        out["gender"] = np.where(out["gender"] == 1, "female", "male")
        target = path / "bios.json"
        out.to_json(target, orient="records")
    elif kind == "parquet":  # Female/Male
        out["profession"] = [LABHC_PROFESSIONS[i] for i in out["profession"]]
        out["gender"] = np.where(out["gender"] == 1, "Female", "Male")
        target = path / "bios.parquet"
        out.to_parquet(target, index=False)
    elif kind == "saved":  # a DatasetDict written by save_to_disk, split like LabHC
        import datasets

        target = path / "bios_saved"
        half = len(out) // 2
        datasets.DatasetDict({
            "train": datasets.Dataset.from_pandas(out.iloc[:half].reset_index(drop=True)),
            "test": datasets.Dataset.from_pandas(out.iloc[half:].reset_index(drop=True)),
        }).save_to_disk(str(target))
    else:  # pragma: no cover
        raise ValueError(kind)
    return target


@pytest.mark.parametrize("kind", ["csv", "jsonl", "json", "parquet", "saved"])
def test_bios_every_layout_gives_the_same_dataset(tmp_path, bios_frame, kind):
    path = _write_bios(bios_frame, tmp_path, kind)
    ds = load_bios(path, professions="all")
    assert ds.column_names == ["text", "label", "gender", "example_id"]
    assert ds.features["label"].names == [p for p in LABHC_PROFESSIONS if p in BIOS_PROFESSIONS]
    names = np.asarray(ds.features["label"].names)[np.asarray(ds["label"])]
    assert list(names) == [LABHC_PROFESSIONS[i] for i in bios_frame["profession"]]
    assert list(ds["gender"]) == ["female" if g == 1 else "male" for g in bios_frame["gender"]]
    assert list(ds["text"]) == list(bios_frame["hard_text"])
    assert list(ds["example_id"]) == list(range(len(bios_frame)))


def test_bios_paper_subset_is_computed_from_the_data(tmp_path, bios_frame):
    ds = load_bios(_write_bios(bios_frame, tmp_path, "csv"))
    assert ds.features["label"].names == PAPER_SUBSET
    assert len(ds) == 140
    kept = bios_frame[~bios_frame["profession"].isin([0, 2])]  # accountant, attorney
    assert list(ds["example_id"]) == list(kept.index)
    # Labels are re-numbered 0..13 in LabHC order.
    names = np.asarray(PAPER_SUBSET)[np.asarray(ds["label"])]
    assert list(names) == [LABHC_PROFESSIONS[i] for i in kept["profession"]]


def test_bios_explicit_professions_by_name_or_id(tmp_path, bios_frame):
    path = _write_bios(bios_frame, tmp_path, "csv")
    by_name = load_bios(path, professions=["surgeon", "Yoga Teacher", "nurse"])
    by_id = load_bios(path, professions=[25, 27, 13])
    assert by_name.features["label"].names == ["nurse", "surgeon", "yoga_teacher"]
    assert by_name.to_dict() == by_id.to_dict()
    assert len(by_name) == 30


def test_bios_split_of_a_saved_dataset(tmp_path, bios_frame):
    path = _write_bios(bios_frame, tmp_path, "saved")
    test = load_bios(path, professions="all", split="test")
    assert list(test["example_id"]) == list(range(len(test)))
    assert list(test["text"]) == list(bios_frame["hard_text"].iloc[80:])
    with pytest.raises(InvalidParameterError, match="split"):
        load_bios(path, split="validation")


def test_label_gender_counts_match_a_crosstab(tmp_path, bios_frame):
    ds = load_bios(_write_bios(bios_frame, tmp_path, "csv"), professions="all")
    counts = label_gender_counts(ds)
    assert list(counts.columns) == ["female", "male", "total", "female_share"]
    expected = pd.crosstab(
        [LABHC_PROFESSIONS[i] for i in bios_frame["profession"]],
        np.where(bios_frame["gender"] == 1, "female", "male"),
    )
    for name in BIOS_PROFESSIONS:
        assert counts.loc[name, "female"] == expected.loc[name, "female"]
        assert counts.loc[name, "male"] == expected.loc[name, "male"]
    assert counts.loc["nurse", "female_share"] == pytest.approx(0.9)
    table = format_label_gender_counts(counts)
    assert "| nurse | 9 | 1 | 10 | 0.900 |" in table
    assert table.splitlines()[-1] == "| **total** | 77 | 83 | 160 | 0.481 |"


def test_label_gender_counts_list_empty_classes(tmp_path):
    data = make_synthetic_bios(28, 14, random_state=0)["test"].select(range(3))
    counts = label_gender_counts(data)
    assert len(counts) == 14
    assert counts["total"].sum() == 3
    assert counts["female_share"].isna().sum() == 14 - (counts["total"] > 0).sum()


def test_one_gender_class_warns(tmp_path, bios_frame):
    frame = bios_frame.copy()
    frame.loc[frame["profession"] == LABHC_PROFESSIONS.index("nurse"), "gender"] = 1
    path = tmp_path / "bios.csv"
    frame.to_csv(path, index=False)
    with pytest.warns(UserWarning, match="nurse"):
        load_bios(path, professions=["nurse", "surgeon"])


# --------------------------------------------------------------------------------------------
# Bad Bias-in-Bios input: one-line error naming the file and the column
# --------------------------------------------------------------------------------------------


def _bad(frame: pd.DataFrame, tmp_path, name="bios.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def _check_message(excinfo, path, column):
    message = str(excinfo.value)
    assert "\n" not in message
    assert str(path) in message
    if column is not None:
        assert repr(column) in message


@pytest.mark.parametrize(
    "edit, column, pattern",
    [
        (lambda f: f.drop(columns="hard_text"), "hard_text", "no column"),
        (lambda f: f.drop(columns="gender"), "gender", "no column"),
        (lambda f: f.assign(profession=f["profession"].where(f.index != 5, 28)), "profession", "unknown profession"),
        (lambda f: f.assign(profession=[LABHC_PROFESSIONS[i] for i in f["profession"]]).assign(
            profession=lambda g: g["profession"].where(g.index != 3, "chef")), "profession", "'chef'"),
        (lambda f: f.assign(gender=f["gender"].astype(object).where(f.index != 7, "X")), "gender", "'X'"),
        (lambda f: f.assign(gender=f["gender"].where(f.index != 7, np.nan)), "gender", "missing"),
        (lambda f: f.assign(gender=0), "gender", "one gender only"),
        (lambda f: f[f["profession"] < 10], "profession", "at least 14"),
    ],
)
def test_bios_bad_input_names_file_and_column(tmp_path, bios_frame, edit, column, pattern):
    path = _bad(edit(bios_frame.copy()), tmp_path)
    with pytest.raises(InputFileError, match=pattern) as excinfo:
        load_bios(path)
    _check_message(excinfo, path, column)


def test_bios_empty_subset_names_file_and_column(tmp_path, bios_frame):
    path = _bad(bios_frame, tmp_path)
    with pytest.raises(InputFileError, match="empty subset") as excinfo:
        load_bios(path, professions=["nurse", "poet"])
    _check_message(excinfo, path, "profession")
    with pytest.raises(InvalidParameterError, match="professions"):
        load_bios(path, professions=["nurse", "astronaut"])


def test_bios_missing_or_unreadable_files(tmp_path, bios_frame):
    missing = tmp_path / "nowhere.csv"
    with pytest.raises(InputFileError, match="not found") as excinfo:
        load_bios(missing)
    _check_message(excinfo, missing, None)
    text = tmp_path / "bios.txt"
    text.write_text("hello\n")
    with pytest.raises(InputFileError, match="unsupported file type"):
        load_bios(text)
    with pytest.raises(InputFileError, match="not a saved dataset"):
        load_bios(tmp_path)
    # A Hub name while offline (tests/conftest.py sets HF_DATASETS_OFFLINE).
    with pytest.raises(InputFileError, match="LabHC/bias_in_bios.*offline|off"):
        load_bios("LabHC/bias_in_bios")


def test_bios_tsv_and_unreadable_file(tmp_path, bios_frame):
    tsv = tmp_path / "bios.tsv"
    bios_frame.to_csv(tsv, sep="\t", index=False)
    assert len(load_bios(tsv, professions="all")) == 160
    broken = tmp_path / "bios.parquet"
    broken.write_bytes(b"not a parquet file\n\nat all")
    with pytest.raises(InputFileError, match="cannot read") as excinfo:
        load_bios(broken)
    _check_message(excinfo, broken, None)


def test_bios_other_column_names(tmp_path, bios_frame):
    frame = bios_frame.rename(columns={"hard_text": "bio", "profession": "p", "gender": "g"})
    path = _bad(frame, tmp_path)
    with pytest.raises(InputFileError, match="text_column="):
        load_bios(path)
    ds = load_bios(path, text_column="bio", label_column="p", gender_column="g", professions="all")
    assert len(ds) == 160


# --------------------------------------------------------------------------------------------
# Jigsaw: the paper's filtering on rows with known outcomes
# --------------------------------------------------------------------------------------------

# (target, female, male, expected): expected is (label, gender) or None when the row is dropped.
JIGSAW_ROWS = [
    (0.8, 0.9, 0.0, (1, "female")),
    (0.6, 0.0, 1.0, (1, "male")),
    (0.0, 0.7, 0.0, (0, "female")),
    (0.0, 0.0, 0.6, (0, "male")),
    (0.0, 1.0, 0.0, (0, "female")),
    (0.3, 1.0, 0.0, None),  # toxicity between 0 and 0.5
    (0.5, 1.0, 0.0, None),  # 0.5 is not > 0.5
    (0.9, 0.6, 0.2, None),  # the other gender's score is not exactly 0
    (0.9, 0.5, 0.0, None),  # 0.5 is not > 0.5
    (0.0, np.nan, np.nan, None),  # identities not annotated
    (0.0, 0.0, 0.0, None),  # no gender
    (0.7, 0.0, 0.8, (1, "male")),
]


def _jigsaw_frame(target_column="target", text_column="comment_text"):
    return pd.DataFrame({
        "id": np.arange(100, 100 + len(JIGSAW_ROWS)),
        target_column: [r[0] for r in JIGSAW_ROWS],
        text_column: [f"comment number {i}" for i in range(len(JIGSAW_ROWS))],
        "severe_toxicity": 0.0,
        "female": [r[1] for r in JIGSAW_ROWS],
        "male": [r[2] for r in JIGSAW_ROWS],
        "christian": np.nan,
    })


@pytest.mark.parametrize("target_column, text_column", [("target", "comment_text"), ("toxicity", "comment_text"),
                                                        ("toxicity", "text")])
def test_jigsaw_filtering_keeps_the_known_rows(tmp_path, caplog, target_column, text_column):
    path = tmp_path / "train.csv"
    _jigsaw_frame(target_column, text_column).to_csv(path, index=False)
    with caplog.at_level("INFO", logger="probekit.finetune._datasets"):
        ds = load_jigsaw(path)
    kept = [i for i, r in enumerate(JIGSAW_ROWS) if r[3] is not None]
    assert list(ds["example_id"]) == kept
    assert list(ds["label"]) == [JIGSAW_ROWS[i][3][0] for i in kept]
    assert list(ds["gender"]) == [JIGSAW_ROWS[i][3][1] for i in kept]
    assert list(ds["text"]) == [f"comment number {i}" for i in kept]
    assert ds.features["label"].names == list(JIGSAW_LABELS)
    # The counts of every filtering step are reported.
    for fragment in ("rows=12", " toxic=5", "non_toxic=5", "dropped_toxicity_between=2", "dropped_no_gender=4",
                     "kept_female=3", "kept_male=3", "kept=6"):
        assert fragment in ds.info.description
        assert fragment in caplog.text
    counts = label_gender_counts(ds)
    assert counts.loc["toxic", "female"] == 1 and counts.loc["toxic", "male"] == 2
    assert counts.loc["non-toxic", "female"] == 2 and counts.loc["non-toxic", "male"] == 1


def test_jigsaw_texts_that_look_like_missing_values_are_kept(tmp_path):
    frame = _jigsaw_frame()
    frame.loc[0, "comment_text"] = "NA"
    frame.loc[1, "comment_text"] = ""
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    ds = load_jigsaw(path)
    assert ds["text"][0] == "NA"
    assert 1 not in list(ds["example_id"])  # the empty comment is dropped
    assert "empty_text=1" in ds.info.description


@pytest.mark.parametrize(
    "edit, column, pattern",
    [
        (lambda f: f.drop(columns="female"), "female", "no column"),
        (lambda f: f.drop(columns="target"), "target", "no column"),
        (lambda f: f.assign(target=f["target"].astype(object).where(f.index != 2, "high")), "target", "non-numeric"),
        (lambda f: f.assign(target=0.3), "target", "no row passes"),
        (lambda f: f.assign(target=0.0), "target", "non-toxic rows only"),
        (lambda f: f.assign(male=0.0), "female/male", "one gender only"),
    ],
)
def test_jigsaw_bad_input_names_file_and_column(tmp_path, edit, column, pattern):
    path = tmp_path / "train.csv"
    edit(_jigsaw_frame()).to_csv(path, index=False)
    with pytest.raises(InputFileError, match=pattern) as excinfo:
        load_jigsaw(path)
    message = str(excinfo.value)
    assert "\n" not in message and str(path) in message
    assert column in message


# --------------------------------------------------------------------------------------------
# Data settings and the counterfactual test set (swap / scrub come from debias)
# --------------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_PRONOUNS = {"female": {"she", "her", "hers", "herself"}, "male": {"he", "him", "his", "himself"}}
_NAMES = wordlists.load_names()
_FIRST = {"female": set(_NAMES.female), "male": set(_NAMES.male)}


@pytest.fixture(scope="module")
def synthetic():
    return make_synthetic_bios(140, 70, random_state=11)


def test_settings_are_the_papers_three():
    assert PAPER_SETTINGS == ("original", "scrubbed", "swapped")
    assert DATA_SETTINGS[:3] == PAPER_SETTINGS  # then the task-time baselines (balanced, adversarial)


def test_original_setting_is_the_data(synthetic):
    assert apply_setting(synthetic["train"], "original") is synthetic["train"]


def test_counterfactual_test_set_swaps_every_gender_word(synthetic):
    test = synthetic["test"]
    cf = counterfactual_dataset(test)
    assert cf.column_names == test.column_names
    assert cf.features == test.features
    assert list(cf["label"]) == list(test["label"])
    assert list(cf["example_id"]) == list(test["example_id"])
    for text, new_text, gender, new_gender in zip(test["text"], cf["text"], test["gender"], cf["gender"]):
        assert {gender, new_gender} == {"female", "male"}
        tokens = _WORD.findall(new_text)
        lower = {t.lower() for t in tokens}
        assert not lower & _PRONOUNS[gender], new_text
        assert lower & _PRONOUNS[new_gender], new_text
        assert not set(tokens) & _FIRST[gender], new_text
        # Only gender words change: the word count stays.
        assert len(_WORD.findall(text)) == len(tokens)


def test_swapped_setting_adds_a_counterfactual_of_every_example(synthetic):
    train = synthetic["train"]
    swapped = apply_setting(train, "swapped")
    n = len(train)
    assert len(swapped) == 2 * n
    assert list(swapped["text"])[:n] == list(train["text"])
    assert list(swapped["label"]) == list(train["label"]) * 2
    assert list(swapped["example_id"]) == list(train["example_id"]) * 2
    genders = list(swapped["gender"])
    assert all(a != b for a, b in zip(genders[:n], genders[n:]))


def test_scrubbed_setting_removes_gender_words_and_names(synthetic):
    train = synthetic["train"]
    scrubbed = apply_setting(train, "scrubbed")
    assert list(scrubbed["label"]) == list(train["label"])
    assert list(scrubbed["gender"]) == list(train["gender"])
    for text in scrubbed["text"]:
        tokens = _WORD.findall(text)
        lower = {t.lower() for t in tokens}
        assert not lower & (_PRONOUNS["female"] | _PRONOUNS["male"] | {"ms", "mrs", "mr"}), text
        assert not set(tokens) & (_FIRST["female"] | _FIRST["male"]), text


def test_settings_reject_bad_input(synthetic):
    with pytest.raises(InvalidParameterError, match="setting"):
        apply_setting(synthetic["train"], "reweighted")
    with pytest.raises(InvalidParameterError, match="example_id"):
        apply_setting(synthetic["train"].remove_columns("example_id"), "swapped")
    with pytest.raises(InvalidParameterError, match="train"):
        apply_setting(["a text"], "scrubbed")
