"""Probability-based group metrics of many classes from one sort per class (the report's hot path).

For each evaluated class c the report needs, per group g, the Borkan et al. (2019) AUCs and AEGs
and the Wasserstein-1 distance of the group's scores to all scores (the AvgGF BCM of Czarnowska et
al. 2021, also on gold-c examples only). With ``H_X(v) = #{x in X : x < v} + #{x in X : x = v} / 2``
every AUC-type statistic is a sum ``S(Y, X) = sum_{y in Y} H_X(y)`` (the Mann-Whitney U of Y over
X), and with P, N the positives (gold = c) and negatives and P_g, N_g those of group g:

* ``S(P_g, N_g) = sum_{x in P_g} H_g(x) - |P_g|^2 / 2`` (because ``sum_{x in X} H_X(x) = |X|^2 / 2``);
* ``S(P_g, N) = sum_{x in P_g} (H_all(x) - H_P(x))`` and ``S(P_g, P) = sum_{x in P_g} H_P(x)``;
* ``S(N_g, P) = sum_{z in g} H_P(z) - S(P_g, P)``;
* ``S(N_g, N) = sum_{z in g} H_all(z) - S(P_g, all) - S(N_g, P)``.

How the work is laid out (n rows, G groups, K classes):

1. Once for all classes, the rows are put in group order (a linear-time radix sort of the group
   codes) and the data-independent Wasserstein crossing positions are computed.
2. Per class, each score's IEEE-754 bits (monotone for non-negative doubles) are shifted left by one
   and the gold-is-c flag is put in the free bit; each group's segment of these keys is sorted
   (``np.sort``, no index array), then one stable argsort merges the G sorted runs (timsort merges
   runs in linear time per level). The merge gives the sorted scores, the label and group of each
   sorted position and the sorted position of each row of every group.
3. Without ties, ``H_all`` of sorted position t is ``t + 1/2`` and ``H_P`` the number of positives
   before it (plus 1/2 for a positive): one cumulative sum, one ``bincount``. With ties the same
   per run of tied scores. The positives (about n/K rows) give the rest; their within-group ``H_g``
   is their rank in the group, or a binary search in the group's sorted keys when there are ties.
4. Wasserstein-1 between group g and all rows is ``integral |F_g - F|``. On the interval between
   two consecutive sorted scores of g, ``F_g`` is a constant c and ``F`` increases (its value after
   sorted position t is ``(t + 1)/n`` whenever the next score is larger), so it crosses c once, at
   position ``ceil(c n) - 1``, which depends only on the group sizes. With prefix sums of the gaps
   and of ``F`` times the gaps each interval is closed-form, so this is O(n) per class after the
   sort. The terms are visited in sorted order (local memory access, cache-sized chunks).

The AUC sums are exact integers or half-integers in float64, and the Wasserstein terms use the same
floating-point operations, summed in the same order, as the run-based implementation
(:func:`sorted_probability_panel`, which the report used before): the numbers are bit-for-bit the
same. Scores with the sign bit set (negative values, -0.0) or >= 2 cannot use the bit keys; such a
class falls back to that run-based implementation. Classes are independent, so several are
processed at once in threads (NumPy releases the GIL in sorts and array loops); each thread reuses
its buffers from one class to the next.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from probekit.extrinsic._panel_reference import sorted_probability_panel

__all__ = ["GroupLayout", "class_panels", "probability_panel"]

# scores whose bits reach this value (sign bit, or >= 2.0) cannot carry the label in the top bit
_KEY_LIMIT = np.uint64(1 << 62)
_ONE = np.uint64(1)
# rows below which threads cost more than they save
_MIN_ROWS_FOR_THREADS = 50_000


@dataclass
class _Segments:
    """Group-contiguous layout of m values (groups in code order, sorted within each group)."""

    n: int
    bounds: np.ndarray  # (G + 1,) first layout position of each group, then n
    sizes: np.ndarray  # (G,)
    group_of: np.ndarray  # (n,) group code at each layout position
    first: np.ndarray  # layout position of the first value of each non-empty group
    last: np.ndarray  # layout position of the last value of each non-empty group
    cross: np.ndarray  # (n,) sorted position where F reaches c = (j + 1) / n_g (j = rank in the group)
    level: np.ndarray  # (n,) c = (j + 1) / n_g
    f_all: np.ndarray  # (n - 1,) F after sorted position t: (t + 1) / n

    @classmethod
    def from_sizes(cls, sizes: np.ndarray) -> "_Segments":
        sizes = np.asarray(sizes, dtype=np.int64)
        G = sizes.size
        n = int(sizes.sum())
        bounds = np.zeros(G + 1, dtype=np.int64)
        np.cumsum(sizes, out=bounds[1:])
        group_of = np.repeat(np.arange(G, dtype=np.intp), sizes)
        nonempty = sizes > 0
        first = bounds[:-1][nonempty]
        last = bounds[1:][nonempty] - 1
        j1 = np.arange(1, n + 1, dtype=np.int64) - bounds[group_of]  # rank in the group, from 1
        n_g = sizes[group_of]
        cross = (j1 * n + n_g - 1) // n_g - 1  # ceil(j1 n / n_g) - 1, in exact integers
        # the same expression as the reference: (glast + 1.0 - first) / n_g
        level = (np.arange(n, dtype=np.float64) + 1.0 - bounds[group_of]) / n_g
        f_all = (np.arange(max(n - 1, 0), dtype=np.float64) + 1.0) / n
        return cls(n, bounds, sizes, group_of, first, last, cross, level, f_all)


@dataclass
class GroupLayout:
    """Rows in group order, shared by every class of a report.

    Attributes
    ----------
    order : ndarray
        Row indices, groups contiguous in code order (row order kept within a group).
    segments : _Segments
        Bounds, sizes and the data-independent Wasserstein crossing positions of the layout.
    """

    order: np.ndarray
    segments: _Segments
    iota: np.ndarray  # 0, 1, ..., n - 1 (shared, read-only)

    @property
    def n_groups(self) -> int:
        return int(self.segments.sizes.size)

    @classmethod
    def build(cls, group: np.ndarray, n_groups: int) -> "GroupLayout":
        group = np.asarray(group)
        codes = group.astype(np.int16) if n_groups < 2**15 else group
        order = np.argsort(codes, kind="stable")  # radix sort for 16-bit codes
        sizes = np.bincount(group, minlength=n_groups)
        return cls(order, _Segments.from_sizes(sizes), np.arange(group.size, dtype=np.intp))


def _ratio(num: np.ndarray | float, den: np.ndarray | float) -> np.ndarray:
    num = np.asarray(num, dtype=float)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=np.asarray(den) > 0)
    return out


class _Workspace:
    """Reusable buffers of one worker thread, by name (views of the dtype asked for).

    In a fresh process (or virtual machine) every new multi-megabyte array is page-faulted in on
    first touch, which can cost more than the arithmetic on it; a worker therefore keeps a handful
    of buffers from one class to the next and the rest of the work runs in cache-sized chunks.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self._raw: dict[str, np.ndarray] = {}

    def get(self, name: str, dtype: type = np.float64, extra: int = 0) -> np.ndarray:
        dtype = np.dtype(dtype)
        size = self.n + extra
        words = -(-size * dtype.itemsize // 8)
        raw = self._raw.get(name)
        if raw is None or raw.size < words:
            raw = self._raw[name] = np.empty(words, dtype=np.uint64)
        return raw.view(np.uint8)[: size * dtype.itemsize].view(dtype)


_CHUNK = 1 << 14


def _w1_sorted(
    u: np.ndarray,
    merge: np.ndarray,
    pos: np.ndarray,
    mg: np.ndarray,
    seg: _Segments,
    iota: np.ndarray,
    ws: _Workspace | None = None,
) -> np.ndarray:
    """Wasserstein-1 between each group's values and all values, ``integral |F_g - F|``.

    ``u`` holds all n values sorted; ``merge[t]`` is the layout position (groups contiguous, each
    sorted) of sorted position t, ``pos`` its inverse followed by the sentinel ``pos[n] = n - 1``,
    and ``mg[t]`` the group of sorted position t. For the value at sorted position p with level
    ``c = (j + 1) / n_g`` (the group's CDF after it), the integral of ``|c - F|`` up to the group's
    next value (sorted position p') is
    ``c (U_q - U_p) - (A_q - A_p) + (A_p' - A_q) - c (U_p' - U_q)`` with ``U`` the prefix sums of the
    gaps, ``A`` those of ``F`` times the gaps and ``q`` the crossing position clipped to ``[p, p']``;
    for the group's last value p' = q = n - 1 and c = 1, and ``A_p`` is added for its first (F_g = 0
    before it). Tied values of a group contribute exact zeros. The terms are visited in sorted
    order, so every memory access is local, and each group's terms are summed in its own order, as
    the run-based reference does. Uses the workspace buffers ``col``, ``cum`` and ``A``.
    """
    n = u.size
    G = seg.sizes.size
    if ws is None:
        ws = _Workspace(n)
    gap = ws.get("col")[: n - 1]
    np.subtract(u[1:], u[:-1], out=gap)
    U = ws.get("cum")
    U[0] = 0.0
    np.cumsum(gap, out=U[1:])
    gap *= seg.f_all
    A = ws.get("A")
    A[0] = 0.0
    np.cumsum(gap, out=A[1:])
    del gap
    term = ws.get("col")  # the gaps are no longer needed
    pos_next = pos[1:]
    tmp = np.empty(min(_CHUNK, n))
    for t0 in range(0, n, _CHUNK):
        t1 = min(t0 + _CHUNK, n)
        idx = merge[t0:t1]
        c = seg.level[idx]
        nxt = pos_next[idx]  # the group's next value (garbage after a group's last value: fixed below)
        q = np.maximum(seg.cross[idx], iota[t0:t1])
        np.minimum(q, nxt, out=q)
        uq, aq = U[q], A[q]
        tm = tmp[: t1 - t0]
        # c (Uq - Up) - (Aq - Ap) + (An - Aq) - c (Un - Uq), rounded step by step as the reference
        t = np.subtract(uq, U[t0:t1], out=term[t0:t1])
        t *= c
        np.subtract(aq, A[t0:t1], out=tm)
        t -= tm
        np.take(A, nxt, out=tm)
        tm -= aq
        t += tm
        np.take(U, nxt, out=tm)
        tm -= uq
        tm *= c
        t -= tm
    # a group's last value: F_g = 1 up to the largest value of all (c = 1, p' = q = n - 1)
    p = pos[seg.last]
    term[p] = (U[n - 1] - U[p]) - (A[n - 1] - A[p])
    p = pos[seg.first]
    term[p] += A[p]  # F_g = 0 before the group's smallest value
    out = np.bincount(mg, weights=term[:n], minlength=G)
    out[seg.sizes == 0] = np.nan
    return out


def _own_rank_sums(key: np.ndarray, lp: np.ndarray, lp_sorted: np.ndarray, gp: np.ndarray, n_pos: np.ndarray,
                   b: np.ndarray, G: int, ties: bool) -> np.ndarray:
    """Within-group H_g of the positives: their rank in the group, or a binary search with ties."""
    if not ties:
        own_h = np.bincount(gp, weights=lp, minlength=G) - n_pos * b[:-1] + 0.5 * n_pos
    else:
        own_h = np.zeros(G)
        gb = np.searchsorted(lp_sorted, b)
        for g in range(G):
            if gb[g + 1] == gb[g]:
                continue
            seg_keys = key[b[g] : b[g + 1]]
            needles = key[lp_sorted[gb[g] : gb[g + 1]]]
            lo = np.searchsorted(seg_keys, needles & ~_ONE, side="left")
            hi = np.searchsorted(seg_keys, needles | _ONE, side="right")
            own_h[g] = float(np.sum(lo + hi)) * 0.5  # sum of lo + (hi - lo) / 2
    return own_h


def _rank_sums(lab: np.ndarray, u: np.ndarray, pp: np.ndarray, pos: np.ndarray, mg: np.ndarray, seg: _Segments,
               n_pos: np.ndarray, n_all: np.ndarray, ties: bool, ws: _Workspace) -> tuple[np.ndarray, ...]:
    """Mid-ranks H of the positives among all rows and among the positives, and their sums per group."""
    n, NP, G = u.size, pp.size, n_pos.size
    # positives at sorted positions <= t: an integer prefix sum (fast), then as float64 (exact)
    cum_pos = ws.get("cum")
    np.copyto(cum_pos, np.cumsum(lab, out=ws.get("A", np.uint64)), casting="unsafe")
    if not ties:
        # H_all(t) = t + 1/2; H_P(t) = cum_pos(t) - is_pos(t) + is_pos(t) / 2
        h_all_p = pp + 0.5
        h_pos_p = np.arange(NP) + 0.5
        sum_h_pos_g = np.bincount(mg, weights=cum_pos, minlength=G) - n_pos * 0.5
        sum_h_all_g = np.zeros(G)
        sum_h_all_g[seg.sizes > 0] = np.add.reduceat(pos[:n], seg.first)  # sum of sorted positions per group
        sum_h_all_g += 0.5 * n_all
    else:
        new = np.empty(n, dtype=bool)
        new[0] = True
        np.not_equal(u[1:], u[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        run = np.cumsum(new, dtype=np.intp, out=ws.get("A", np.intp))
        run -= 1
        del new
        lengths = np.diff(np.r_[starts, n])
        pos_before = cum_pos[starts] - lab[starts]  # positives strictly before each run
        pos_in = np.diff(np.r_[pos_before, NP])
        h_all_run = starts + 0.5 * lengths
        h_pos_run = pos_before + 0.5 * pos_in
        run_p = run[pp]
        h_all_p = h_all_run[run_p]
        h_pos_p = h_pos_run[run_p]
        per_row = np.take(h_all_run, run, out=cum_pos)
        sum_h_all_g = np.bincount(mg, weights=per_row, minlength=G)
        np.take(h_pos_run, run, out=per_row)
        sum_h_pos_g = np.bincount(mg, weights=per_row, minlength=G)
        del run
    return h_all_p, h_pos_p, sum_h_all_g, sum_h_pos_g


def _w1_positives(u: np.ndarray, pp: np.ndarray, order_p: np.ndarray, gp: np.ndarray, G: int) -> np.ndarray:
    """W1 of each group's positives against all positives (the true-class variant)."""
    NP = pp.size
    if not NP:
        return np.full(G, np.nan)
    # positives only: sorted order pp, layout order lp_sorted (by group, then by score)
    sub_merge = np.empty(NP, dtype=np.intp)
    sub_merge[order_p] = np.arange(NP)
    sub_pos = np.empty(NP + 1, dtype=np.intp)
    sub_pos[:NP] = order_p
    sub_pos[NP] = NP - 1
    sub_seg = _Segments.from_sizes(np.bincount(gp, minlength=G))
    return _w1_sorted(u[pp], sub_merge, sub_pos, gp, sub_seg, np.arange(NP))


def _panel_from_keys(key: np.ndarray, lay: GroupLayout, ws: _Workspace | None = None) -> dict[str, np.ndarray]:
    """Every statistic of one class from its keys ``(bits(score) << 1) | is_c`` in layout order.

    ``key`` (the workspace buffer ``key`` when a workspace is given) is sorted in place segment by
    segment, then overwritten; the other workspace buffers are overwritten too.
    """
    seg = lay.segments
    G = lay.n_groups
    n = key.size
    b = seg.bounds
    if ws is None:
        ws = _Workspace(n)
    for g in range(G):
        if b[g + 1] - b[g] > 1:
            key[b[g] : b[g + 1]].sort()
    merge = np.argsort(key, kind="stable")  # merges the G sorted runs: layout position of each rank
    pos = ws.get("pos", np.intp, extra=1)  # sorted position of each layout position, then n - 1
    pos[merge] = lay.iota
    pos[n] = n - 1
    mkey = np.take(key, merge, out=ws.get("mkey", np.uint64))
    lab = np.bitwise_and(mkey, _ONE, out=ws.get("col", np.uint64))  # 1 for positives, in sorted order
    mkey >>= _ONE
    u = mkey.view(np.float64)  # the sorted scores
    pp = np.flatnonzero(lab)  # sorted positions of the positives
    NP = pp.size
    lp = merge[pp]  # their layout positions
    gp = seg.group_of[lp]
    # positives in layout order (by group, then by score): within a group, sorted order is layout
    # order, so a stable sort on the group (radix for 16-bit codes) is enough
    order_p = np.argsort(gp.astype(np.int16) if G < 2**15 else gp, kind="stable")
    lp_sorted = lp[order_p]
    n_pos = np.bincount(gp, minlength=G).astype(float)
    n_all = seg.sizes.astype(float)
    n_neg = n_all - n_pos
    N_pos = float(NP)
    N_neg = float(n - NP)
    ties = n > 1 and bool(np.any(u[1:] == u[:-1]))

    own_h = _own_rank_sums(key, lp, lp_sorted, gp, n_pos, b, G, ties)
    own_neg = own_h - n_pos * n_pos * 0.5  # S(P_g, N_g)
    own_pos = n_pos * n_pos * 0.5
    own_nn = n_neg * n_neg * 0.5

    mg = np.take(seg.group_of, merge, out=ws.get("key", np.intp))  # the keys are no longer needed
    h_all_p, h_pos_p, sum_h_all_g, sum_h_pos_g = _rank_sums(lab, u, pp, pos, mg, seg, n_pos, n_all, ties, ws)
    del lab

    pos_allpos = np.bincount(gp, weights=h_pos_p, minlength=G)  # S(P_g, P)
    pos_all = np.bincount(gp, weights=h_all_p, minlength=G)  # S(P_g, all)
    pos_allneg = pos_all - pos_allpos  # S(P_g, N)
    neg_allpos = sum_h_pos_g - pos_allpos  # S(N_g, P)
    neg_allneg = sum_h_all_g - pos_all - neg_allpos  # S(N_g, N)

    bg_pos, bg_neg = N_pos - n_pos, N_neg - n_neg
    out = {
        "subgroup_auc": _ratio(own_neg, n_pos * n_neg),
        "bpsn_auc": _ratio(n_neg * N_pos - neg_allpos - own_neg, bg_pos * n_neg),
        "bnsp_auc": _ratio(pos_allneg - own_neg, n_pos * bg_neg),
        "positive_aeg": _ratio(pos_allpos - own_pos, n_pos * bg_pos) - 0.5,
        "negative_aeg": _ratio(neg_allneg - own_nn, n_neg * bg_neg) - 0.5,
        "roc_auc": _ratio(pos_allneg.sum(), N_pos * N_neg),
    }

    out["w1_all"] = _w1_sorted(u, merge, pos, mg, seg, lay.iota, ws)
    del merge, mg
    out["w1_tc"] = _w1_positives(u, pp, order_p, gp, G)
    return out


def default_workers(n: int, n_classes: int) -> int:
    """Threads for the per-class panel metrics: 1 for small inputs or one class, else up to 4 (CPUs, classes)."""
    if n < _MIN_ROWS_FOR_THREADS or n_classes < 2:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus, n_classes))


def _keys(col: np.ndarray, is_c_layout: np.ndarray, lay: GroupLayout, out: np.ndarray | None = None) -> np.ndarray | None:
    """``(bits(score) << 1) | is_c`` in layout order, or None when a score cannot be keyed so."""
    bits = col.view(np.uint64)
    if bits.size == 0 or bits.max() >= _KEY_LIMIT:
        return None
    key = np.take(bits, lay.order, out=out)
    key <<= _ONE
    key |= is_c_layout
    return key


def probability_panel(prob_c: np.ndarray, is_c: np.ndarray, group: np.ndarray, n_groups: int) -> dict[str, np.ndarray]:
    """Every probability-based group metric of one class.

    Returns per group ``w1_all`` / ``w1_tc`` (Wasserstein-1 between the group's scores and all scores,
    resp. on gold-c examples only; their sum / G is the AvgGF BCM), ``positive_aeg`` /
    ``negative_aeg`` (group vs rest), ``subgroup_auc``, ``bpsn_auc``, ``bnsp_auc``, and ``roc_auc``
    of the class over all examples. See the module docstring for the method (one sort of the scores).
    """
    col = np.ascontiguousarray(prob_c, dtype=np.float64)
    is_c = np.asarray(is_c, dtype=bool)
    group = np.asarray(group)
    lay = GroupLayout.build(group, n_groups)
    key = _keys(col, is_c[lay.order], lay)
    if key is None:
        return sorted_probability_panel(col, is_c, group, n_groups)
    return _panel_from_keys(key, lay)


def class_panels(
    prob: np.ndarray,
    y_true: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    classes: "np.ndarray | list[int]",
    *,
    workers: int | None = None,
) -> tuple[list[dict[str, np.ndarray]], np.ndarray]:
    """:func:`probability_panel` of every class in ``classes`` (codes), sharing the group layout.

    Also returns the per-group sums of each class's probabilities, shape (G, len(classes)) (one
    ``bincount`` per class over the row order, as before). Classes run in ``workers`` threads
    (default: the available CPUs, at most 4; one below 50,000 rows), each with its own buffers
    (seven arrays of n 8-byte values, plus the merge order of the class at hand); the numbers do not
    depend on the number of threads.
    """
    classes = [int(c) for c in classes]
    G = int(n_groups)
    n = int(group.size)
    lay = GroupLayout.build(group, G)
    y_layout = y_true[lay.order]
    local = threading.local()

    def one(c: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        ws = getattr(local, "ws", None)
        if ws is None:
            ws = local.ws = _Workspace(n)
        col = ws.get("col")
        np.copyto(col, prob[:, c])
        key_sum = np.bincount(group, weights=col, minlength=G)
        is_c = np.equal(y_layout, c, out=ws.get("is_c", np.bool_))
        key = _keys(col, is_c, lay, out=ws.get("key", np.uint64))
        if key is None:
            return sorted_probability_panel(col, y_true == c, group, G), key_sum
        return _panel_from_keys(key, lay, ws), key_sum

    if workers is None:
        workers = default_workers(n, len(classes))
    if workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, classes))
    else:
        results = [one(c) for c in classes]
    panels = [r[0] for r in results]
    sums = np.stack([r[1] for r in results], axis=1) if results else np.zeros((G, 0))
    return panels, sums
