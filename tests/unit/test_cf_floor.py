"""CF's noise floor: same-gender renaming (debias.rename) as the control of gender swapping.

References: the vocabulary's own gender of every name (renaming keeps it, swapping flips it),
the positions debias.swap changes, CF recomputed by the shared metric engine, and the exchange
test's null distribution enumerated in full on small inputs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from debias import get_vocabulary, rename, rename_dataset, rename_texts, same_gender_partners, swap
from probekit.errors import InvalidParameterError
from probekit.finetune import (
    cf_noise_floor,
    fold_metrics,
    make_synthetic_bios,
    noise_floor,
    prob_column,
    renamed_dataset,
    true_label_probabilities,
)
from probekit.stats import summarize_noise_floor

# ------------------------------------------------------------------------------------------ renaming


def test_every_renamed_name_keeps_its_gender_and_every_name_is_renamed_once():
    vocabulary = get_vocabulary("census")
    partners = same_gender_partners(vocabulary)
    assert len(partners) > 1000
    for name, partner in partners.items():
        assert partner.lower() != name
        assert vocabulary.terms[partner.lower()].gender == vocabulary.terms[name].gender, name
    # pairs are mutual except the odd last name of a gender
    one_way = [n for n, p in partners.items() if partners.get(p.lower()) != p and partners[p.lower()].lower() != n]
    assert len(one_way) <= 2


@pytest.mark.parametrize("text", [
    "Mary said she met John at the station.",
    "Dr. Shauna Bradley is a nurse; Mr. Bradley is not.",
    "Will Smith and Rose went to Paris with Mark.",
    "MARY and JOHN, her brother's friends.",
])
def test_renaming_changes_names_where_swapping_does_and_nothing_else(text):
    renamed = rename(text)
    swapped = swap(text)
    vocabulary = get_vocabulary("census")
    partners = same_gender_partners(vocabulary)

    def partner(word: str) -> str:
        new = partners[word.lower()]
        return new.upper() if word.isupper() and len(word) > 1 else new

    name_spans = [s for s in swapped.spans if vocabulary.terms[s.original.lower()].kind == "name"]
    # the same name occurrences are touched; every other character is kept
    rebuilt, position = [], 0
    for span in name_spans:
        rebuilt += [text[position:span.start], partner(span.original)]
        position = span.end
    rebuilt.append(text[position:])
    assert renamed == "".join(rebuilt)
    for span in name_spans:
        new = partner(span.original)
        assert new != span.original
        assert vocabulary.terms[new.lower()].gender == vocabulary.terms[span.original.lower()].gender
    assert rename(renamed) == text  # neighbours are paired both ways


def test_renaming_keeps_case_pronouns_and_titles():
    assert rename("she told Ms. Garcia") == "she told Ms. Garcia"  # a surname is not a first name
    out = rename("MARY met her")
    assert out.isupper() is False and out.split()[0].isupper() and out.endswith("met her")


def test_rename_texts_and_datasets():
    texts = ["Mary is here.", None, "No names at all."]
    assert rename_texts(texts) == [rename("Mary is here."), None, "No names at all."]
    data = make_synthetic_bios(28, 14, random_state=0)["train"]
    renamed = renamed_dataset(data)
    assert renamed["text"] == rename_texts(data["text"])
    assert renamed["gender"] == data["gender"] and renamed["example_id"] == data["example_id"]
    changed = [a != b for a, b in zip(renamed["text"], data["text"])]
    assert sum(changed) >= len(data) // 2  # bios with a first name; the others say "Mr./Ms. Surname" only
    vocabulary = get_vocabulary("census")
    for text, was_changed in zip(data["text"], changed):
        has_first_name = any(vocabulary.terms[s.original.lower()].kind == "name" for s in swap(text).spans)
        assert was_changed == has_first_name
    assert rename_dataset(data)["text"] == renamed["text"]


def test_rename_bad_inputs_name_the_parameter():
    with pytest.raises(InvalidParameterError, match="text"):
        rename(3)
    with pytest.raises(InvalidParameterError, match="texts"):
        rename_texts("one string")
    with pytest.raises(InvalidParameterError, match="names"):
        rename("Mary", names="nobody")


# ------------------------------------------------------------------------------------------ the floor


def _exact_distribution(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([np.where(choice, b, a).mean() for choice in itertools.product([False, True], repeat=a.size)])


def test_the_exchange_test_matches_its_enumerated_null_distribution():
    rng = np.random.default_rng(0)
    p, p_cf, p_rn = rng.random(8), rng.random(8), rng.random(8)
    out = cf_noise_floor(p, p_cf, p_rn, n_permutations=20000, random_state=3)
    a, b = np.abs(p - p_cf), np.abs(p - p_rn)
    exact = _exact_distribution(a, b)
    assert out["observed"] == pytest.approx(a.mean())
    assert out["floor_mean"] == pytest.approx(b.mean())
    assert out["permutation_mean"] == pytest.approx(exact.mean(), abs=2e-3)
    assert out["permutation_mean"] == pytest.approx((a.mean() + b.mean()) / 2, abs=2e-3)
    assert out["p_value"] == pytest.approx(np.mean(exact >= a.mean() - 1e-12), abs=0.01)
    assert out["floor_q95"] == pytest.approx(np.quantile(exact, 0.95), abs=0.02)
    again = cf_noise_floor(p, p_cf, p_rn, n_permutations=20000, random_state=3)
    assert again == out


def test_a_classifier_that_reacts_to_gender_exceeds_the_floor_and_one_that_does_not_stays_under():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.2, 0.8, 300)
    noise = lambda: rng.normal(0, 0.03, p.size)  # noqa: E731
    reacts = cf_noise_floor(p, p - 0.15 + noise(), p + noise(), n_permutations=200, random_state=0)
    assert reacts["exceeds"] is True and reacts["p_value"] < 0.01
    assert reacts["floor_mean"] < 0.05 < 0.1 < reacts["observed"]
    calm = [cf_noise_floor(p, p + noise(), p + noise(), n_permutations=200, random_state=s) for s in range(20)]
    assert sum(c["exceeds"] for c in calm) <= 3
    assert all(abs(c["observed"] - c["floor_mean"]) < 0.01 for c in calm)


def _frame(seed: int, n: int = 60, classes=("a", "b", "c")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(classes), n)
    genders = np.where(rng.random(n) < 0.5, "female", "male")
    parts = []
    order = rng.permutation(n)  # counterfactual rows in another order: pairing goes by source
    for variant, group, rows in (("original", genders, np.arange(n)),
                                 ("counterfactual", np.where(genders == "female", "male", "female"), order)):
        probs = rng.dirichlet(np.ones(len(classes)), n)
        part = pd.DataFrame({"fold": 0, "source": rows + 100, "variant": variant,
                             "label": np.asarray(classes)[labels[rows]],
                             "prediction": np.asarray(classes)[probs.argmax(1)], "group": group[rows], "text": "t"})
        for k, c in enumerate(classes):
            part[prob_column(c)] = probs[:, k]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def test_the_floor_reads_cf_as_the_shared_engine_computes_it():
    classes = ["a", "b", "c"]
    frame = _frame(0)
    renamed = np.random.default_rng(5).dirichlet(np.ones(3), 60)
    floor = noise_floor(frame, classes, n_permutations=30, random_state=0, renamed=renamed)
    assert floor["cf"]["observed"] == pytest.approx(fold_metrics(frame, classes)[0]["cf"], abs=1e-12)
    p, p_cf, p_rn = true_label_probabilities(frame, classes, renamed)
    original = frame[frame["variant"] == "original"]
    labels = original["label"].map({"a": 0, "b": 1, "c": 2}).to_numpy()
    assert np.allclose(p_rn, renamed[np.arange(60), labels])
    assert floor["cf"]["floor_mean"] == pytest.approx(np.abs(p - p_rn).mean())
    assert floor["tprd"]["n_permutations"] == 30  # the shuffled-gender floors are unchanged
    with pytest.raises(InvalidParameterError, match="renamed"):
        noise_floor(frame, classes, renamed=renamed[:10])


def test_summaries_and_tables_carry_the_cf_floor_and_skip_runs_without_one():
    folds = [{"noise_floor": {"cf": {"observed": 0.3 + 0.01 * k, "floor_mean": 0.1, "exceeds": True},
                              "tprd": {"observed": 0.2, "floor_mean": 0.1 + 0.01 * k, "exceeds": True}}} for k in range(3)]
    summary = summarize_noise_floor(folds)
    assert summary["cf"]["exceeds"] is True and summary["cf"]["floor"]["mean"] == pytest.approx(0.1)
    old = [{"noise_floor": {"cf": {"observed": 0.3, "floor_mean": None}, "tprd": {"observed": 0.2, "floor_mean": 0.1}}}] * 2
    assert "cf" not in summarize_noise_floor(old) and "tprd" in summarize_noise_floor(old)
    assert math.isfinite(summary["tprd"]["floor"]["mean"])
