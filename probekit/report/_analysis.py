r"""Does intrinsic bias predict extrinsic bias? Rank correlations across encoders × methods.

The study's question (Tokpo et al. 2023): do intrinsic measures (SEAT, LPBS, the gender probe)
track the bias of downstream classifiers (TPRD, CF)? Each point is one (encoder, debiasing method):
its intrinsic number from the intrinsic suite and its extrinsic number as the mean over folds of
one dataset and training-data setting. Per (dataset, setting) and per pair of measures:

- Spearman's :math:`\rho` (Pearson correlation of the ranks, ties averaged) and Kendall's
  :math:`\tau_b`, from :func:`scipy.stats.spearmanr` and :func:`scipy.stats.kendalltau`;
- p-values: Kendall's from scipy (exact for small samples without ties); Spearman's exact by
  enumerating every pairing (:func:`scipy.stats.permutation_test`) when there are at most
  :data:`EXACT_SPEARMAN_MAX` points, else scipy's t approximation;
- percentile bootstrap intervals, resampling points with replacement
  (:func:`probekit.extrinsic.bootstrap_ci`; resamples where the rank correlation is undefined,
  e.g. all points equal, are left out and counted);
- a plain-language caution when the points cannot carry a claim. With n points and no ties the
  smallest two-sided p-value any rank correlation can reach is :math:`2/n!` (n = 4: 0.083), so
  with 4 points or fewer no correlation can be significant at 5%; even with more, an interval that
  covers 0 is compatible with no relation. In the spirit of Ethayarajh (2020; PAPERS.md §4) a claim
  needs enough samples for its interval, and the points here are few and not independent (they share
  encoders, data and folds).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.report._format import fmt, fmt_ci, fmt_p, num, pyplot, save_figure
from probekit.report._tables import Block, blocks_markdown
from probekit.stats import EXACT_SPEARMAN_MAX, bootstrap_ci, kendall_tau, min_rank_p, rank_correlation_test, spearman_rho
from probekit.utils import Table

__all__ = ["CAUTIONS", "EXACT_SPEARMAN_MAX", "rank_correlation", "rank_correlations", "correlation_caution", "correlation_markdown"]

#: Short names of the cautions (table column) -> what they mean, in plain language.
CAUTIONS = {
    "too few points": "fewer than 3 encoder × method points: no rank correlation can be computed.",
    "constant": "one of the two measures is the same for every point: there is no ranking to correlate.",
    "cannot reach p < 0.05": "with 4 points or fewer even a perfect agreement of the two rankings cannot be told "
                             "apart from chance (smallest possible p = 2/n!, 0.083 for n = 4); such a row cannot "
                             "support a claim either way.",
    "CI covers 0": "the bootstrap interval includes 0: the data are compatible with no relation as well as with a "
                   "strong one.",
    "few points": "fewer than 10 points, which share encoders, data and folds: the p-value is optimistic and the "
                  "percentile bootstrap interval itself is unreliable (resamples repeat the same few points); read "
                  "it as a description of these models, not as evidence about encoders in general.",
}


def correlation_caution(n: int, low: float = math.nan, high: float = math.nan, *, alpha: float = 0.05,
                        constant: bool = False) -> tuple[str, str]:
    """The caution a rank correlation over ``n`` points needs: (short name, plain-language text);
    ``("", "")`` when none is needed.

    Parameters
    ----------
    n : int
        Number of (encoder, method) points.
    low, high : float
        Bootstrap interval of the correlation (NaN when unknown).
    alpha : float
        Significance level the caution refers to.
    constant : bool
        One of the measures takes the same value at every point.
    """
    if n < 3:
        return "too few points", f"Only {n} point(s): " + CAUTIONS["too few points"]
    if constant:
        return "constant", CAUTIONS["constant"].capitalize()
    if min_rank_p(n) > alpha:
        return "cannot reach p < 0.05", (
            f"Only {n} points: even a perfect agreement of the two rankings could not be told apart from chance "
            f"(the smallest possible p is {min_rank_p(n):.3f} > {alpha}). This cannot support a claim either way; add "
            "encoders or methods.")
    if math.isfinite(low) and math.isfinite(high) and low <= 0 <= high:
        return "CI covers 0", (f"With {n} points the interval [{low:.2f}, {high:.2f}] covers 0: the data are compatible "
                               "with no relation as well as with a strong one.")
    if n < 10:
        return "few points", (f"Only {n} points, which share encoders, data and folds: the p-value is optimistic and the "
                              "bootstrap interval unreliable; treat this as a description of these models, not as "
                              "evidence about encoders in general.")
    return "", ""


def rank_correlation(
    x: Sequence[float],
    y: Sequence[float],
    *,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    random_state: int | np.random.Generator | None = 0,
) -> dict[str, Any]:
    """Spearman and Kendall rank correlation of paired values with p-values and bootstrap intervals.

    Pairs with a missing (NaN) value are left out.

    Parameters
    ----------
    x, y : sequence of float
    n_bootstrap : int
        Bootstrap resamples of the points (0: no intervals).
    confidence : float
    random_state : int or Generator
        Seed of the bootstrap (one generator for both coefficients, Spearman first).

    Returns
    -------
    dict
        ``n``, ``spearman``, ``spearman_p``, ``spearman_p_method`` ("exact" or "t approximation"),
        ``spearman_low``/``_high``, ``kendall``, ``kendall_p``, ``kendall_low``/``_high``,
        ``n_bootstrap``, ``n_valid_spearman``/``_kendall`` (resamples where the coefficient was
        defined), ``min_p`` (:math:`2/n!`), ``caution`` (plain language, "" when none) and
        ``caution_short`` (its name in :data:`CAUTIONS`).
    """
    xa = np.asarray([num(v) for v in x], dtype=float)
    ya = np.asarray([num(v) for v in y], dtype=float)
    if xa.shape != ya.shape:
        raise InvalidParameterError("y", f"{ya.size} values", f"as many values as x ({xa.size})")
    keep = np.isfinite(xa) & np.isfinite(ya)
    xa, ya = xa[keep], ya[keep]
    n = int(xa.size)
    nan = math.nan
    out: dict[str, Any] = {
        "n": n, "spearman": nan, "spearman_p": nan, "spearman_p_method": None, "spearman_low": nan, "spearman_high": nan,
        "kendall": nan, "kendall_p": nan, "kendall_low": nan, "kendall_high": nan, "n_bootstrap": int(n_bootstrap),
        "n_valid_spearman": 0, "n_valid_kendall": 0, "confidence": confidence, "min_p": min_rank_p(n),
    }
    constant = n < 3 or np.ptp(xa) == 0 or np.ptp(ya) == 0
    if not constant:
        out.update(rank_correlation_test(xa, ya))
        if n_bootstrap > 0:
            rng = np.random.default_rng(random_state)
            s = bootstrap_ci(spearman_rho, xa, ya, n_resamples=n_bootstrap, confidence=confidence, random_state=rng)
            k = bootstrap_ci(kendall_tau, xa, ya, n_resamples=n_bootstrap, confidence=confidence, random_state=rng)
            out.update(spearman_low=s.low, spearman_high=s.high, n_valid_spearman=s.n_valid,
                       kendall_low=k.low, kendall_high=k.high, n_valid_kendall=k.n_valid)
    out["caution_short"], out["caution"] = correlation_caution(n, out["spearman_low"], out["spearman_high"],
                                                               constant=constant)
    return out


def rank_correlations(
    intrinsic: Sequence[Mapping[str, Any]],
    extrinsic: Sequence[Mapping[str, Any]],
    *,
    intrinsic_measures: Mapping[str, str],
    extrinsic_measures: Mapping[str, str],
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    random_state: int = 0,
) -> list[dict[str, Any]]:
    """Rank correlation of every intrinsic with every extrinsic measure, per dataset and setting.

    Parameters
    ----------
    intrinsic : sequence of mapping
        One per (encoder, method): keys ``encoder``, ``method`` and the intrinsic measures.
    extrinsic : sequence of mapping
        One per (encoder, method, dataset, setting): keys ``encoder``, ``method``, ``dataset``,
        ``setting`` and the extrinsic measures (means over folds).
    intrinsic_measures, extrinsic_measures : mapping of str to str
        Measure key -> display name; measures with no finite value are left out.
    n_bootstrap, confidence, random_state
        See :func:`rank_correlation`; each pair of measures gets its own seed derived from
        ``random_state`` (the same inputs give the same intervals).

    Returns
    -------
    list of dict
        :func:`rank_correlation`'s keys plus ``dataset``, ``setting``, ``intrinsic``, ``extrinsic``
        (keys), their display names and ``points`` (the (encoder, method, x, y) used).
    """
    by_point = {(str(r["encoder"]), str(r["method"])): r for r in intrinsic}
    cells = list(dict.fromkeys((str(e["dataset"]), str(e["setting"])) for e in extrinsic))
    in_keys = [k for k in intrinsic_measures if any(math.isfinite(num(r.get(k))) for r in intrinsic)]
    ex_keys = [k for k in extrinsic_measures if any(math.isfinite(num(e.get(k))) for e in extrinsic)]
    seeds = np.random.SeedSequence(random_state).spawn(max(1, len(cells) * len(in_keys) * len(ex_keys)))
    rows = []
    index = 0
    for dataset, setting in cells:
        part = [e for e in extrinsic if str(e["dataset"]) == dataset and str(e["setting"]) == setting]
        for ik in in_keys:
            for ek in ex_keys:
                points = []
                for e in part:
                    r = by_point.get((str(e["encoder"]), str(e["method"])))
                    if r is None:
                        continue
                    x, y = num(r.get(ik)), num(e.get(ek))
                    if math.isfinite(x) and math.isfinite(y):
                        points.append((str(e["encoder"]), str(e["method"]), x, y))
                result = rank_correlation([p[2] for p in points], [p[3] for p in points], n_bootstrap=n_bootstrap,
                                          confidence=confidence, random_state=np.random.default_rng(seeds[index]))
                index += 1
                rows.append({"dataset": dataset, "setting": setting, "intrinsic": ik, "extrinsic": ek,
                             "intrinsic_name": intrinsic_measures[ik], "extrinsic_name": extrinsic_measures[ek],
                             **result, "points": points})
    return rows


def _claimable(r: Mapping[str, Any], alpha: float = 0.05) -> bool:
    return math.isfinite(num(r["spearman"])) and min_rank_p(int(r["n"])) <= alpha


def _headline(rows: Sequence[Mapping[str, Any]], confidence: float) -> list[str]:
    if not rows:
        return ["No intrinsic–extrinsic pair could be formed: the study needs intrinsic results and fine-tuning "
                "results of the same encoder × method combinations."]
    computed = [r for r in rows if math.isfinite(num(r["spearman"]))]
    if not computed:
        return [f"None of the {len(rows)} intrinsic–extrinsic pairs could be computed (too few points, or a measure "
                "that does not vary)."]
    ns = sorted({int(r["n"]) for r in computed})
    n_text = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
    claimable = [r for r in computed if _claimable(r)]
    excluding = [r for r in claimable if math.isfinite(num(r["spearman_low"])) and
                 (r["spearman_low"] > 0 or r["spearman_high"] < 0)]
    significant = [r for r in claimable if num(r["spearman_p"]) < 0.05]
    lines = [
        f"**Answer on these data:** {len(computed)} intrinsic–extrinsic pairs (per dataset and setting) could be "
        f"computed, each over n = {n_text} encoder × method points. {len(significant)} of them have a Spearman p < 0.05 "
        f"and {len(excluding)} a {confidence:.0%} bootstrap interval of ρ that excludes 0."
    ]
    if max(ns) <= 4:
        lines.append(
            f"**Caution:** with at most {max(ns)} points per correlation no rank correlation can reach p < 0.05 "
            f"(smallest possible p = {min_rank_p(max(ns)):.3f}). These numbers describe the models studied; they cannot "
            "show that intrinsic and extrinsic measures agree or disagree. Add encoders or methods."
        )
    else:
        lines.append(
            f"**Caution:** {len(computed)} pairs were tested, so about {0.05 * len(computed):.1f} would reach p < 0.05 "
            "by chance alone, and the points share encoders, data and folds, so p-values are optimistic"
            + (f"; with fewer than 10 points ({max(ns)} at most) read the intervals, not the p-values, and treat a "
               "single significant pair as a hypothesis." if max(ns) < 10 else ".")
        )
    if excluding:
        best = sorted(excluding, key=lambda r: -abs(r["spearman"]))[:3]
        lines.append("Strongest relations whose interval excludes 0: " + "; ".join(
            f"{r['intrinsic_name']} vs {r['extrinsic_name']} ({r['dataset']}, {r['setting']}): ρ = {r['spearman']:.2f} "
            f"[{r['spearman_low']:.2f}, {r['spearman_high']:.2f}], n = {r['n']}" for r in best) + ".")
    elif claimable:
        lines.append("No pair with enough points has an interval that excludes 0: on these data the intrinsic measures "
                     "do not demonstrably rank the models' extrinsic bias.")
    return lines


def correlation_markdown(rows: Sequence[Mapping[str, Any]], *, heading_level: int = 2, confidence: float = 0.95,
                         figures: Mapping[str, str] | None = None) -> str:
    """The Markdown of :func:`correlation_blocks` (same arguments)."""
    return "\n".join(blocks_markdown(correlation_blocks(rows, heading_level=heading_level, confidence=confidence,
                                                        figures=figures))) + "\n"


def correlation_blocks(rows: Sequence[Mapping[str, Any]], *, heading_level: int = 2, confidence: float = 0.95,
                       figures: Mapping[str, str] | None = None) -> list[Block]:
    """The analysis section as report blocks: a headline in plain language, the ``figures`` (caption -> relative
    PNG path), then one table per dataset and setting (intrinsic × extrinsic measure: n, Spearman
    ρ [CI], p, Kendall τ [CI], p, caution), the cautions explained once under each table.
    """
    h = "#" * heading_level
    lines: list[Block] = [f"{h} Does intrinsic bias predict extrinsic bias?", ""]
    lines += [" ".join(_headline(rows, confidence)), ""]
    lines.append(
        "Each point is one encoder × debiasing method: its intrinsic number and its extrinsic number (mean over "
        "folds). Spearman ρ and Kendall τ_b from scipy.stats; |SEAT effect size| is used so that a sign flip counts "
        f"as bias. Spearman p exact (all pairings) up to {EXACT_SPEARMAN_MAX} points, else scipy's t approximation; "
        f"Kendall p from scipy. Intervals: {confidence:.0%} percentile bootstrap over points."
    )
    for caption, path in (figures or {}).items():
        lines += ["", f"![{caption}]({path})"]
    for dataset, setting in dict.fromkeys((r["dataset"], r["setting"]) for r in rows):
        part = [r for r in rows if r["dataset"] == dataset and r["setting"] == setting]
        shown = [r for r in part if r.get("caution_short") != "constant"]
        constant = list(dict.fromkeys(r["intrinsic_name"] if _constant_side(r) == "x" else r["extrinsic_name"]
                                      for r in part if r.get("caution_short") == "constant"))
        lines += ["", f"{h}# {dataset}, {setting} training data", ""]
        if shown:
            table = [[r["intrinsic_name"], r["extrinsic_name"], str(r["n"]),
                      fmt_ci(r["spearman"], r["spearman_low"], r["spearman_high"], 2), fmt_p(r["spearman_p"]),
                      fmt_ci(r["kendall"], r["kendall_low"], r["kendall_high"], 2), fmt_p(r["kendall_p"]),
                      r.get("caution_short") or ""] for r in shown]
            lines.append(Table(["Intrinsic", "Extrinsic", "n", f"Spearman ρ [{confidence:.0%} CI]", "p",
                                f"Kendall τ [{confidence:.0%} CI]", "p", "Caution"], table, align="llrrrrrl"))
            lines.append("")
        used = list(dict.fromkeys(r.get("caution_short") for r in shown if r.get("caution_short")))
        for name in used:
            lines.append(f"- **{name}**: {CAUTIONS[name]}")
        if constant:
            lines.append(f"- Not correlated, the same value for every point: {', '.join(constant)}.")
    return lines


def _constant_side(r: Mapping[str, Any]) -> str:
    xs = {p[2] for p in r.get("points") or []}
    return "x" if len(xs) <= 1 else "y"


def _informative(rows: Sequence[Mapping[str, Any]], key: str) -> list[str]:
    """Measures (by ``key``: "intrinsic_name" or "extrinsic_name") with at least one computed cell."""
    return list(dict.fromkeys(r[key] for r in rows if math.isfinite(num(r["spearman"]))))


def plot_correlation_heatmap(rows: Sequence[Mapping[str, Any]], path: Any, *, dataset: str) -> Any:
    """Spearman ρ of every intrinsic (rows) × extrinsic measure (columns) of one dataset, one panel
    per training-data setting (stacked), each cell annotated with ρ, its bootstrap interval and n;
    cells that cannot reach p < 0.05 (n ≤ 4) uncoloured, in grey italics. Measures never computed are left out.
    PNG at ``path``.
    """
    plt = pyplot()


    part = [r for r in rows if r["dataset"] == dataset]
    intrinsic = _informative(part, "intrinsic_name") or list(dict.fromkeys(r["intrinsic_name"] for r in part))
    extrinsic = _informative(part, "extrinsic_name") or list(dict.fromkeys(r["extrinsic_name"] for r in part))
    settings = list(dict.fromkeys(r["setting"] for r in part))
    fig, axes = plt.subplots(len(settings), 1, figsize=(1.7 * len(extrinsic) + 3.6, (0.62 * len(intrinsic) + 1.1) * len(settings) + 0.4),
                             squeeze=False, layout="constrained")
    image = None
    for ax, setting in zip(axes[:, 0], settings):
        grid = np.full((len(intrinsic), len(extrinsic)), np.nan)
        for r in part:
            if r["setting"] != setting or r["intrinsic_name"] not in intrinsic or r["extrinsic_name"] not in extrinsic:
                continue
            i, j = intrinsic.index(r["intrinsic_name"]), extrinsic.index(r["extrinsic_name"])
            weak = r.get("caution_short") in ("cannot reach p < 0.05", "too few points", "constant")
            rho = num(r["spearman"])
            grid[i, j] = np.nan if weak else rho  # no colour where no claim is possible
            text = (f"{fmt(rho, 2)} [{fmt(r['spearman_low'], 2)}, {fmt(r['spearman_high'], 2)}]\nn={r['n']}"
                    if math.isfinite(rho) else f"—\nn={r['n']}")
            color = "#666666" if weak else ("white" if abs(rho) > 0.65 else "black")
            ax.text(j, i, text, ha="center", va="center", fontsize=7.5, color=color, style="italic" if weak else "normal")
        image = ax.imshow(grid, cmap="coolwarm", vmin=-1, vmax=1, aspect="auto")
        ax.set_xticks(np.arange(len(extrinsic)), extrinsic, fontsize=8)
        ax.set_yticks(np.arange(len(intrinsic)), intrinsic, fontsize=8)
        ax.set_title(f"{dataset}, {setting} training data", fontsize=9)
    if image is not None:
        fig.colorbar(image, ax=list(axes[:, 0]), fraction=0.04, pad=0.02, label="Spearman ρ")
    fig.suptitle("Spearman ρ [bootstrap CI] over encoder × method points\n(uncoloured, grey italics: n ≤ 4 or not "
                 "computable, no claim possible)", fontsize=9)
    return save_figure(fig, path)


def plot_correlation_scatter(rows: Sequence[Mapping[str, Any]], path: Any, *, dataset: str, setting: str,
                             intrinsic: Sequence[str], extrinsic: Sequence[str]) -> Any:
    """The points behind the correlations of one dataset and setting: one panel per intrinsic
    (rows) × extrinsic measure (columns), intrinsic on x, extrinsic on y, points coloured by
    encoder and labelled by method. Measures that never vary are left out. PNG at ``path``.
    """
    plt = pyplot()
    from matplotlib.lines import Line2D


    part = {(r["intrinsic"], r["extrinsic"]): r for r in rows if r["dataset"] == dataset and r["setting"] == setting}
    computed = [key for key, r in part.items() if math.isfinite(num(r["spearman"]))]
    intrinsic = [k for k in intrinsic if any(key[0] == k for key in computed)]
    extrinsic = [k for k in extrinsic if any(key[1] == k for key in computed)]
    encoders = list(dict.fromkeys(p[0] for r in part.values() for p in r["points"]))
    colors = plt.get_cmap("tab10")
    fig, axes = plt.subplots(max(len(intrinsic), 1), max(len(extrinsic), 1),
                             figsize=(4.2 * max(len(extrinsic), 1) + 0.6, 2.9 * max(len(intrinsic), 1) + 0.9), squeeze=False)
    if not intrinsic or not extrinsic:
        axes[0][0].text(0.5, 0.5, "no correlation could be computed", ha="center", va="center")
        axes[0][0].axis("off")
    for i, ik in enumerate(intrinsic):
        for j, ek in enumerate(extrinsic):
            ax = axes[i][j]
            r = part.get((ik, ek))
            if r is None:
                ax.axis("off")
                continue
            for encoder, method, x, y in r["points"]:
                ax.scatter([x], [y], color=colors(encoders.index(encoder) % 10), s=24)
                ax.annotate(method, (x, y), fontsize=7, xytext=(3, 2), textcoords="offset points")
            ax.set_title(f"ρ = {fmt(r['spearman'], 2)} [{fmt(r['spearman_low'], 2)}, {fmt(r['spearman_high'], 2)}], "
                         f"n = {r['n']}", fontsize=8)
            ax.set_xlabel(r["intrinsic_name"], fontsize=8)
            ax.set_ylabel(r["extrinsic_name"], fontsize=8)
            ax.tick_params(labelsize=7)
    handles = [Line2D([], [], color=colors(k % 10), marker="o", linestyle="", label=e) for k, e in enumerate(encoders)]
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), fontsize=8, frameon=False,
                   title="encoder", title_fontsize=8)
    fig.suptitle(f"{dataset}, {setting} training data: one point per encoder × method", fontsize=10)
    height = fig.get_size_inches()[1]
    fig.tight_layout(rect=(0, 0.55 / height if handles else 0, 1, 1 - 0.3 / height))
    return save_figure(fig, path, tight=False)
