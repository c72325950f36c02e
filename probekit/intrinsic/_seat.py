"""SEAT / WEAT: the cosine association test and its permutation test, vectorized.

The engine works on the per-item association scores s(w, A, B); everything else (sentence-level
SEAT, word-level contextual SEAT, the Kurita effect size of LPBS) feeds it scores or embeddings.
"""

from __future__ import annotations

import itertools
import logging
import math
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.stats import count_extreme, permutation_p_value
from probekit.utils import (
    RandomStateLike,
    as_embedding_matrix,
    check_fraction,
    check_positive_int,
    check_same_width,
    resolve_seed,
    spawn_generators,
)

logger = logging.getLogger(__name__)

#: Relative tolerance under which a re-partition's statistic counts as equal to the observed one.
TIE_RTOL = 1e-10

# Monte Carlo sampler choice: below this acceptance rate the rejection sampler is replaced by
# selection sampling.
_MIN_ACCEPTANCE = 0.01
_CHUNK_ELEMENTS = 1 << 21


@dataclass(frozen=True)
class SeatResult:
    """Result of a SEAT/WEAT test.

    Attributes
    ----------
    statistic : float
        ``sum_{x in X} s(x, A, B) - sum_{y in Y} s(y, A, B)``.
    effect_size : float
        ``(mean_X s - mean_Y s) / std_{X ∪ Y} s`` with the sample standard deviation (ddof=1).
        NaN (with a warning) when every score is equal.
    p_value : float
        One-sided permutation p-value: share of equal-size re-partitions of X ∪ Y whose statistic
        is >= the observed one (exact), or ``(1 + #{>=}) / (1 + n_permutations)`` (Monte Carlo).
    exact : bool
        Whether every re-partition was enumerated.
    n_permutations : int
        Re-partitions evaluated: all of them when ``exact``, else the Monte Carlo draws.
    n_partitions : int
        Number of distinct re-partitions, ``C(|X| + |Y|, |X|)``.
    random_state : int or None
        Seed of the permutation and bootstrap generators (drawn and recorded when none was given;
        ``None`` when a Generator was passed).
    effect_size_ci : (float, float) or None
        Percentile bootstrap interval of the effect size (``None`` when ``n_bootstrap == 0``).
    confidence_level, n_bootstrap : float, int
        Settings of that interval.
    n_x, n_y, n_a, n_b : int
        Sizes of the four sets.
    mean_x, mean_y, std : float
        Mean association of X and of Y, and the pooled sample std (ddof=1) used by the effect size.
    name : str or None
        Name of the test when run as a named test.
    details : dict
        Extra, JSON-friendly facts (level, templates, aggregation, missing words, ...).
    """

    statistic: float
    effect_size: float
    p_value: float
    exact: bool
    n_permutations: int
    n_partitions: int
    random_state: int | None
    effect_size_ci: tuple[float, float] | None
    confidence_level: float
    n_bootstrap: int
    n_x: int
    n_y: int
    n_a: int
    n_b: int
    mean_x: float
    mean_y: float
    std: float
    name: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dictionary (``effect_size_ci`` as a two-item list or ``None``)."""
        out = asdict(self)
        if self.effect_size_ci is not None:
            out["effect_size_ci"] = [float(self.effect_size_ci[0]), float(self.effect_size_ci[1])]
        return out


# ---------------------------------------------------------------------------------------------
# association scores


def _unit_rows(array: np.ndarray, name: str) -> np.ndarray:
    norms = np.linalg.norm(array, axis=1)
    zero = np.flatnonzero(norms == 0)
    if zero.size:
        raise InvalidParameterError(
            name, f"{zero.size} all-zero row(s) (first: row {int(zero[0])})", "non-zero embeddings",
            "the cosine similarity of a zero vector is undefined",
        )
    return array / norms[:, None]


def association_scores(W: Any, A: Any, B: Any) -> np.ndarray:
    """``s(w, A, B) = mean_{a in A} cos(w, a) - mean_{b in B} cos(w, b)`` for every row ``w`` of ``W``.

    Caliskan et al. (2017), as used by May et al. (2019) and Tan & Celis (2019).
    """
    W = as_embedding_matrix(W, "W")
    A = as_embedding_matrix(A, "A")
    B = as_embedding_matrix(B, "B")
    check_same_width({"W": W, "A": A, "B": B})
    Wn = _unit_rows(W, "W")
    return (Wn @ _unit_rows(A, "A").T).mean(axis=1) - (Wn @ _unit_rows(B, "B").T).mean(axis=1)


# ---------------------------------------------------------------------------------------------
# the permutation engine (on scores)


def _popcount64(words: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)  # pragma: no cover
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(*words.shape, 8)
    return table[as_bytes].sum(axis=-1, dtype=np.uint8)  # pragma: no cover


_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float64)


def _subset_sums_rejection(s: np.ndarray, m: int, n_draws: int, rng: np.random.Generator, acceptance: float) -> np.ndarray:
    """Sums of ``s`` over uniformly random ``m``-subsets: fair random bits, kept when exactly ``m`` are set.

    Conditioning i.i.d. fair bits on their count gives every ``m``-subset the same probability,
    so the draw is exact. Sums come from per-byte lookup tables (sum of ``s`` over each byte value).
    """
    n = s.size
    n_words = (n + 63) // 64
    padded = np.zeros(n_words * 64)
    padded[:n] = s
    byte_tables = padded.reshape(n_words * 8, 8) @ _BYTE_BITS.T  # (n_bytes, 256)
    last_mask = np.uint64((1 << (n % 64)) - 1) if n % 64 else None
    out = np.empty(n_draws)
    filled = 0
    max_rows = max(1, _CHUNK_ELEMENTS // n_words)
    while filled < n_draws:
        need = n_draws - filled
        rows = min(max_rows, int(need / acceptance * 1.1) + 32)
        raw = rng.bit_generator.random_raw(rows * n_words).reshape(rows, n_words)
        if last_mask is not None:
            raw[:, -1] &= last_mask
        counts = _popcount64(raw[:, 0]).astype(np.int64)
        for w in range(1, n_words):
            counts += _popcount64(raw[:, w])
        keep = np.flatnonzero(counts == m)[:need]
        if keep.size == 0:
            continue
        acc = np.zeros(keep.size)
        for w in range(n_words):
            column = np.ascontiguousarray(raw[keep, w], dtype="<u8").view(np.uint8).reshape(keep.size, 8)
            for j in range(8):
                acc += byte_tables[w * 8 + j][column[:, j]]
        out[filled:filled + keep.size] = acc
        filled += keep.size
    return out


def _subset_sums_selection(s: np.ndarray, m: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Sums of ``s`` over uniformly random ``m``-subsets by selection sampling (Knuth's Algorithm S).

    Item ``i`` is taken with probability (m - taken so far) / (n - i), which makes every
    ``m``-subset equally likely; vectorized over draws.
    """
    n = s.size
    out = np.empty(n_draws)
    chunk = max(1, _CHUNK_ELEMENTS // 8)
    for start in range(0, n_draws, chunk):
        size = min(chunk, n_draws - start)
        taken = np.zeros(size)
        acc = np.zeros(size)
        for i in range(n):
            take = rng.random(size) * (n - i) < (m - taken)
            taken += take
            acc += take * s[i]
        out[start:start + size] = acc
    return out


def random_subset_sums(s: np.ndarray, m: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Sums of ``s`` over ``n_draws`` independent uniformly random subsets of size ``m`` (without
    replacement within a draw).
    """
    n = s.size
    acceptance = math.comb(n, m) / 2**n
    if acceptance >= _MIN_ACCEPTANCE:
        return _subset_sums_rejection(s, m, n_draws, rng, acceptance)
    return _subset_sums_selection(s, m, n_draws, rng)


def all_subset_sums(s: np.ndarray, m: int) -> np.ndarray:
    """Sums of ``s`` over every ``m``-subset of its indices (``itertools.combinations`` order)."""
    n = s.size
    total = math.comb(n, m)
    out = np.empty(total)
    chunk = max(1, _CHUNK_ELEMENTS // max(m, 1))
    combos = itertools.combinations(range(n), m)
    filled = 0
    while filled < total:
        size = min(chunk, total - filled)
        flat = np.fromiter(
            itertools.chain.from_iterable(itertools.islice(combos, size)), dtype=np.intp, count=size * m
        )
        out[filled:filled + size] = s[flat.reshape(size, m)].sum(axis=1)
        filled += size
    return out


@dataclass(frozen=True)
class _PermutationOutcome:
    p_value: float
    exact: bool
    n_permutations: int
    n_partitions: int


def repartition_test(s: np.ndarray, n_x: int, n_permutations: int, rng: np.random.Generator) -> _PermutationOutcome:
    """One-sided permutation p-value of ``sum(s[:n_x]) - sum(s[n_x:])`` over re-partitions of ``s``.

    Every statistic of a re-partition is ``2 * S - T`` with ``S`` the sum of its first group and
    ``T = sum(s)``, so only subset sums are needed; the smaller group is enumerated or drawn.
    Exact when ``C(n, n_x) <= n_permutations`` (the observed partition counts among the ">=");
    otherwise ``(1 + #{draws >= observed}) / (1 + n_permutations)``
    (:func:`probekit.stats.permutation_p_value`). Sums within ``TIE_RTOL * sum|s|`` of the
    observed one count as ties (>=).
    """
    n = s.size
    n_y = n - n_x
    total = float(s.sum())
    observed = float(s[:n_x].sum())
    tol = TIE_RTOL * max(1.0, float(np.abs(s).sum()))
    m, flip = (n_x, False) if n_x <= n_y else (n_y, True)
    n_partitions = math.comb(n, n_x)
    exact = n_partitions <= n_permutations
    sums = all_subset_sums(s, m) if exact else random_subset_sums(s, m, n_permutations, rng)
    x_sums = total - sums if flip else sums
    count = count_extreme(x_sums, observed, alternative="greater", tol=tol)
    n_resamples = n_partitions if exact else n_permutations
    p_value = permutation_p_value(count, n_resamples, exact=exact)
    return _PermutationOutcome(p_value, exact, n_resamples, n_partitions)


def effect_size_from_scores(s_x: np.ndarray, s_y: np.ndarray) -> tuple[float, float]:
    """(effect size, pooled std): ``(mean s_x - mean s_y) / std(s_x ∪ s_y, ddof=1)``; NaN when std is 0."""
    pooled = np.concatenate([s_x, s_y])
    std = float(np.std(pooled, ddof=1))
    diff = float(s_x.mean() - s_y.mean())
    if not std > 0:
        return math.nan, std
    return diff / std, std


# ---------------------------------------------------------------------------------------------
# bootstrap


def _bootstrap_effect_sizes(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, n_bootstrap: int, rng: np.random.Generator
) -> np.ndarray:
    """Effect sizes of ``n_bootstrap`` resamples (items of X, Y, A and B resampled with replacement,
    independently). ``cos_a``/``cos_b``: cosine tables of the X ∪ Y rows (X first) against A / B.

    Draw order per chunk of replicates: A indices, B indices, X indices, Y indices (documented so
    that an independent loop can reproduce the draws).
    """
    n, n_a = cos_a.shape
    n_b = cos_b.shape[1]
    n_y = n - n_x
    out = np.empty(n_bootstrap)
    chunk = max(1, _CHUNK_ELEMENTS // max(n + n_a + n_b, 1))
    for start in range(0, n_bootstrap, chunk):
        r = min(chunk, n_bootstrap - start)
        idx_a = rng.integers(0, n_a, size=(r, n_a))
        idx_b = rng.integers(0, n_b, size=(r, n_b))
        idx_x = rng.integers(0, n_x, size=(r, n_x))
        idx_y = rng.integers(0, n_y, size=(r, n_y)) + n_x
        rows = np.arange(r)[:, None]
        w_a = np.zeros((r, n_a))
        np.add.at(w_a, (rows, idx_a), 1.0 / n_a)
        w_b = np.zeros((r, n_b))
        np.add.at(w_b, (rows, idx_b), 1.0 / n_b)
        scores = w_a @ cos_a.T - w_b @ cos_b.T  # (r, n): s(w) under the resampled attributes
        s_x = np.take_along_axis(scores, idx_x, axis=1)
        s_y = np.take_along_axis(scores, idx_y, axis=1)
        pooled = np.concatenate([s_x, s_y], axis=1)
        std = pooled.std(axis=1, ddof=1)
        diff = s_x.mean(axis=1) - s_y.mean(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + r] = np.where(std > 0, diff / np.where(std > 0, std, 1.0), np.nan)
    return out


# ---------------------------------------------------------------------------------------------
# public entry points


def _check_set(value: Any, name: str) -> np.ndarray:
    return as_embedding_matrix(value, name, min_rows=2)


def seat_test(
    X: Any,
    Y: Any,
    A: Any,
    B: Any,
    *,
    n_permutations: int = 100_000,
    random_state: RandomStateLike = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    name: str | None = None,
    details: dict[str, Any] | None = None,
) -> SeatResult:
    r"""SEAT/WEAT association test of target sets X, Y with attribute sets A, B.

    With :math:`s(w, A, B) = \operatorname{mean}_{a \in A} \cos(w, a) - \operatorname{mean}_{b \in B} \cos(w, b)`
    (Caliskan et al. 2017; May et al. 2019; Tan & Celis 2019):

    - statistic :math:`= \sum_{x \in X} s(x, A, B) - \sum_{y \in Y} s(y, A, B)`
    - effect size :math:`= (\operatorname{mean}_X s - \operatorname{mean}_Y s) / \operatorname{std}_{X \cup Y} s`
      with the **sample** standard deviation (ddof=1), as in May et al. 2019 and Caliskan et al. 2017
    - p-value: one-sided, the share of re-partitions of X ∪ Y into groups of sizes |X| and |Y|
      whose statistic is >= the observed one.

    Parameters
    ----------
    X, Y, A, B : array-like of shape (n_items, dim)
        Embeddings, one row per item (word, word occurrence or sentence). X and Y may differ in
        size; every set needs at least 2 rows; all widths must agree.
    n_permutations : int, default 100_000
        When the number of re-partitions ``C(|X|+|Y|, |X|)`` is at most this, all are enumerated
        and the p-value is exact (the observed partition is one of them). Otherwise this many
        random re-partitions are drawn (each a uniform random subset, no repeats within a draw)
        and ``p = (1 + #{stat >= observed}) / (1 + n_permutations)``, never 0.
    random_state : int, numpy.random.Generator or None
        Seed of the Monte Carlo draws and of the bootstrap (independent streams spawned from it).
        ``None`` draws a seed and records it in the result.
    n_bootstrap : int, default 1000
        Bootstrap replicates of the effect size (items of X, Y, A, B resampled with replacement,
        each set on its own); 0 skips the interval.
    confidence_level : float, default 0.95
        Level of the percentile bootstrap interval.
    name : str, optional
        Test name stored in the result.
    details : dict, optional
        Extra JSON-friendly facts stored in the result.

    Returns
    -------
    SeatResult

    Notes
    -----
    The cosine table of X ∪ Y against A ∪ B is computed once; permutations only add precomputed
    scores (subset sums), so 10^5 Monte Carlo draws cost milliseconds. Ties within a relative
    ``1e-10`` of the observed statistic count as ">=".
    """
    X = _check_set(X, "X")
    Y = _check_set(Y, "Y")
    A = _check_set(A, "A")
    B = _check_set(B, "B")
    check_same_width({"X": X, "Y": Y, "A": A, "B": B})
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    n_bootstrap = check_positive_int(n_bootstrap, "n_bootstrap", minimum=0)
    confidence_level = check_fraction(confidence_level, "confidence_level")
    seed, source = resolve_seed(random_state)
    perm_rng, boot_rng = spawn_generators(source, 2)

    targets = np.concatenate([_unit_rows(X, "X"), _unit_rows(Y, "Y")])
    n_x = X.shape[0]
    cos_a = targets @ _unit_rows(A, "A").T
    cos_b = targets @ _unit_rows(B, "B").T
    s = cos_a.mean(axis=1) - cos_b.mean(axis=1)
    return _seat_from_tables(
        s, cos_a, cos_b, n_x, n_a=A.shape[0], n_b=B.shape[0], n_permutations=n_permutations,
        perm_rng=perm_rng, boot_rng=boot_rng, seed=seed, n_bootstrap=n_bootstrap,
        confidence_level=confidence_level, name=name, details=details,
    )


def _seat_from_tables(
    s: np.ndarray,
    cos_a: np.ndarray | None,
    cos_b: np.ndarray | None,
    n_x: int,
    *,
    n_a: int,
    n_b: int,
    n_permutations: int,
    perm_rng: np.random.Generator,
    boot_rng: np.random.Generator,
    seed: int | None,
    n_bootstrap: int,
    confidence_level: float,
    name: str | None,
    details: dict[str, Any] | None,
) -> SeatResult:
    s_x, s_y = s[:n_x], s[n_x:]
    statistic = float(s_x.sum() - s_y.sum())
    effect, std = effect_size_from_scores(s_x, s_y)
    if math.isnan(effect):
        warnings.warn(
            f"SEAT{' ' + name if name else ''}: every association score is equal (std 0); effect size is NaN",
            RuntimeWarning, stacklevel=3,
        )
    outcome = repartition_test(s, n_x, n_permutations, perm_rng)
    ci = None
    if n_bootstrap and cos_a is not None and cos_b is not None:
        boot = _bootstrap_effect_sizes(cos_a, cos_b, n_x, n_bootstrap, boot_rng)
        finite = boot[np.isfinite(boot)]
        if finite.size:
            alpha = (1.0 - confidence_level) / 2.0
            lo, hi = np.quantile(finite, [alpha, 1.0 - alpha])
            ci = (float(lo), float(hi))
        if finite.size < boot.size:
            logger.info("SEAT bootstrap: %d of %d replicates had std 0 and were left out", boot.size - finite.size, boot.size)
    logger.debug("SEAT %s: statistic=%.6g effect=%.6g p=%.6g exact=%s", name, statistic, effect, outcome.p_value, outcome.exact)
    return SeatResult(
        statistic=statistic,
        effect_size=effect,
        p_value=outcome.p_value,
        exact=outcome.exact,
        n_permutations=outcome.n_permutations,
        n_partitions=outcome.n_partitions,
        random_state=seed,
        effect_size_ci=ci,
        confidence_level=confidence_level,
        n_bootstrap=n_bootstrap,
        n_x=n_x,
        n_y=int(s.size - n_x),
        n_a=n_a,
        n_b=n_b,
        mean_x=float(s_x.mean()),
        mean_y=float(s_y.mean()),
        std=std,
        name=name,
        details=dict(details or {}),
    )


def seat_test_from_scores(
    s_x: Any,
    s_y: Any,
    *,
    n_permutations: int = 100_000,
    random_state: RandomStateLike = None,
    name: str | None = None,
    details: dict[str, Any] | None = None,
) -> SeatResult:
    """The SEAT statistic, effect size and permutation p-value on precomputed association scores.

    For association measures other than the cosine (e.g. the log-probability bias scores of
    Kurita et al. 2019): statistic ``sum(s_x) - sum(s_y)``, effect size with ddof=1, p-value as
    in :func:`seat_test`. No bootstrap interval (``effect_size_ci`` is ``None``); ``n_a``/``n_b``
    are 0.
    """
    s_x = np.asarray(s_x, dtype=np.float64)
    s_y = np.asarray(s_y, dtype=np.float64)
    for label, arr in (("s_x", s_x), ("s_y", s_y)):
        if arr.ndim != 1 or arr.size < 2:
            raise InvalidParameterError(label, f"array of shape {arr.shape}", "a 1-D array of at least 2 scores")
        if not np.all(np.isfinite(arr)):
            raise InvalidParameterError(label, "scores with NaN or infinite values", "finite scores")
    n_permutations = check_positive_int(n_permutations, "n_permutations")
    seed, source = resolve_seed(random_state)
    perm_rng, boot_rng = spawn_generators(source, 2)
    return _seat_from_tables(
        np.concatenate([s_x, s_y]), None, None, s_x.size, n_a=0, n_b=0, n_permutations=n_permutations,
        perm_rng=perm_rng, boot_rng=boot_rng, seed=seed, n_bootstrap=0, confidence_level=0.95,
        name=name, details=details,
    )
