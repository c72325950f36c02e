r"""Per-class diagnostics as a table and a figure (De-Arteaga et al. 2019, Fig. 2).

Each class's TPR gap (female − male, mean over folds with its Student-t interval) against its share
of women in the data the classifier was trained on (the run's pool, ``label_gender_counts``), with
Pearson's r (Fisher-z interval :math:`\tanh(\operatorname{atanh} r \pm z_{(1+c)/2}/\sqrt{n-3})`)
and Spearman's rho (:func:`probekit.stats.rank_correlation_test`) over the classes. De-Arteaga et
al. found r = 0.77 on the occupations of their biographies: the classifier's TPR gap grows with the
imbalance of the training data.

Built from saved results only: a run's ``summary["per_class_diagnostics"]`` (``metrics.json``) and
``summary["per_class"]["tprd"]`` (the fold intervals); the study report computes the same
summary for its groups with :func:`probekit.stats.per_class_diagnostics` from the units' saved per-class TPRD and
label x gender counts. A run without them is said to have none (with the reason), never drawn.

- :func:`diagnostics_class_rows`, :func:`diagnostics_correlation_rows`: the per-class and the
  per-run records (what ``report.json`` holds).
- :func:`diagnostics_markdown`: the compact correlation table, the per-class table, the figure link
  and the runs without diagnostics.
- :func:`draw_diagnostics` / :func:`plot_diagnostics`: one scatter panel per run (classes as points
  with their fold intervals, the least-squares line, r [interval] and rho in the title).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.report._format import DASH, fmt, fmt_ci, fmt_p, num, pyplot, save_figure
from probekit.report._tables import Block
from probekit.utils import Table

__all__ = [
    "CORRELATION_HEADER",
    "diagnostics_reason",
    "diagnostics_class_rows",
    "diagnostics_correlation_rows",
    "diagnostics_markdown",
    "diagnostics_limits",
    "draw_diagnostics",
    "plot_diagnostics",
]

#: Columns of the compact correlation table (one row per run: model or method, setting).
CORRELATION_HEADER = ("Run", "Setting", "Classes", "Pearson r [interval]", "Spearman ρ", "p (ρ)")
_NO_PER_CLASS = "no per-class TPRD saved"


# ------------------------------------------------------------------------------------------ the summary


def diagnostics_reason(run: Mapping[str, Any]) -> str | None:
    """Why a run has no per-class diagnostics (None when it has them)."""
    summary = run.get("summary") or {}
    if summary.get("per_class_diagnostics"):
        return None
    if not (summary.get("per_class") or {}).get("tprd"):
        return _NO_PER_CLASS
    if not (run.get("settings") or {}).get("label_gender_counts"):
        return "no label × gender counts saved with the run (saved before per-class diagnostics existed)"
    return "fewer than two classes with both a defined TPR gap and training examples"


# ------------------------------------------------------------------------------------------ records


def diagnostics_class_rows(runs: Sequence[Mapping[str, Any]], labels: Sequence[str],
                           settings: Sequence[str]) -> list[dict[str, Any]]:
    """One record per run with diagnostics and class: ``run``, ``setting``, ``class``,
    ``share_female``, ``n_female``, ``n_male`` (the run's counts, when saved), ``tprd`` (mean over
    folds), ``tprd_low``, ``tprd_high``, ``tprd_margin`` (its t-interval), ``folds`` (folds with a value).
    """
    out = []
    for label, setting, run in zip(labels, settings, runs):
        diag = (run.get("summary") or {}).get("per_class_diagnostics") or {}
        per_class = ((run.get("summary") or {}).get("per_class") or {}).get("tprd") or {}
        counts = (run.get("settings") or {}).get("label_gender_counts") or {}
        for row in diag.get("classes") or []:
            cell = per_class.get(row["class"]) or {}
            cell = cell if isinstance(cell, Mapping) else {}
            n = counts.get(row["class"]) or {}
            out.append({"run": label, "setting": setting, "class": row["class"], "share_female": num(row.get("share_female")),
                        "n_female": n.get("female"), "n_male": n.get("male"), "tprd": num(row.get("tprd")),
                        "tprd_low": num(cell.get("low")), "tprd_high": num(cell.get("high")),
                        "tprd_margin": num(cell.get("margin")), "folds": cell.get("n")})
    return out


def diagnostics_correlation_rows(runs: Sequence[Mapping[str, Any]], labels: Sequence[str],
                                 settings: Sequence[str]) -> list[dict[str, Any]]:
    """One record per run: ``run``, ``setting``, ``n`` (classes), ``pearson_r``, ``pearson_low``,
    ``pearson_high``, ``confidence``, ``spearman``, ``spearman_p``, ``kendall``, ``kendall_p``;
    a run without diagnostics has ``n`` 0, NaN values and ``reason``.
    """
    out = []
    for label, setting, run in zip(labels, settings, runs):
        diag = (run.get("summary") or {}).get("per_class_diagnostics")
        row: dict[str, Any] = {"run": label, "setting": setting}
        if not diag:
            out.append(row | {"n": 0, "pearson_r": math.nan, "pearson_low": math.nan, "pearson_high": math.nan,
                              "confidence": math.nan, "spearman": math.nan, "spearman_p": math.nan,
                              "kendall": math.nan, "kendall_p": math.nan, "reason": diagnostics_reason(run)})
            continue
        pearson, spearman = diag.get("pearson") or {}, diag.get("spearman") or {}
        low, high = (list(pearson.get("interval") or []) + [None, None])[:2]
        out.append(row | {"n": int(diag.get("n") or len(diag.get("classes") or [])), "pearson_r": num(pearson.get("r")),
                          "pearson_low": num(low), "pearson_high": num(high), "confidence": num(pearson.get("confidence")),
                          "spearman": num(spearman.get("spearman")), "spearman_p": num(spearman.get("spearman_p")),
                          "kendall": num(spearman.get("kendall")), "kendall_p": num(spearman.get("kendall_p"))})
    return out


# ------------------------------------------------------------------------------------------ Markdown


def _gap_cell(row: Mapping[str, Any]) -> str:
    return fmt_ci(row["tprd"], row["tprd_low"], row["tprd_high"])


def _class_table(class_rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Wide when every run has the same shares (same data): class, share, one gap column per run;
    otherwise long: run, setting, class, share, gap.
    """
    runs = list(dict.fromkeys((r["run"], r["setting"]) for r in class_rows))
    shares: dict[str, set[float]] = {}
    for r in class_rows:
        shares.setdefault(r["class"], set()).add(round(r["share_female"], 9))
    if all(len(s) == 1 for s in shares.values()):
        cells = {(r["run"], r["setting"], r["class"]): _gap_cell(r) for r in class_rows}
        share = {r["class"]: r["share_female"] for r in class_rows}
        header = ["Class", "Share of women", *(f"TPR gap: {run} {setting}" if len(runs) > 1 else "TPR gap (female − male)"
                                                for run, setting in runs)]
        ordered = sorted(share, key=lambda c: (share[c], c))
        return header, [[c, fmt(share[c]), *(cells.get((run, setting, c), DASH) for run, setting in runs)] for c in ordered]
    header = ["Run", "Setting", "Class", "Share of women", "TPR gap (female − male)"]
    return header, [[r["run"], r["setting"], r["class"], fmt(r["share_female"]), _gap_cell(r)] for r in class_rows]


def diagnostics_markdown(correlations: Sequence[Mapping[str, Any]], class_rows: Sequence[Mapping[str, Any]], *,
                         heading: str = "##", figure: str | None = None, per_class: bool = True,
                         title: str = "TPR gap vs share of women per class (De-Arteaga et al. 2019)") -> list[Block]:
    """Report blocks (Markdown lines and tables) of :func:`diagnostics_correlation_rows` and :func:`diagnostics_class_rows`:
    the explanation, the correlation table (one row per run with diagnostics), the figure link, the
    per-class table (with ``per_class``) and one line per run without diagnostics saying why. Empty
    when no run has per-class TPRD at all (nothing to diagnose).
    """
    if all(r.get("reason") == _NO_PER_CLASS for r in correlations):
        return []
    lines: list[Block] = [f"{heading} {title}", ""]
    found = [r for r in correlations if r["n"]]
    level = next((r["confidence"] for r in found if math.isfinite(r["confidence"])), 0.95)
    if found:
        lines += ["Each class's TPR gap (female − male, mean over folds) against its share of women in the training "
                  f"data; r: Pearson over the classes with its {level:.0%} Fisher-z interval (none with 3 classes or "
                  "fewer), ρ: Spearman with its p-value. A positive r means classes with more women favour women, as "
                  "De-Arteaga et al. found (r = 0.77).", ""]
        rows = [[r["run"], r["setting"], str(r["n"]), fmt_ci(r["pearson_r"], r["pearson_low"], r["pearson_high"]),
                 fmt(r["spearman"]), fmt_p(r["spearman_p"])] for r in found]
        lines += [Table(list(CORRELATION_HEADER), rows, align="llrrrr"), ""]
        if figure:
            lines += [f"![TPR gap vs share of women per class, one panel per run (points: classes, bars: "
                      f"{level:.0%} t-interval over folds, clipped at ±1; line: least squares)]({figure})", ""]
        if per_class and class_rows:
            header, table = _class_table(class_rows)
            lines += [f"TPR gap per class (mean over folds [{level:.0%} t-interval]):", "",
                      Table(header, table, align="l" + "r" * (len(header) - 1)), ""]
    missing = [r for r in correlations if not r["n"]]
    if missing:
        lines += ["No per-class diagnostics for:", "", *(f"- {r['run']} {r['setting']}: {r['reason']}" for r in missing), ""]
    return lines


# ------------------------------------------------------------------------------------------ figure


def _points(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    return diagnostics_class_rows([run], [""], [""])


def _clipped(rows: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gaps and their fold intervals, the intervals clipped to [-1, 1] (a TPR gap lies there; with
    few folds the t-interval reaches far beyond), missing intervals as the gap itself.
    """
    y = np.array([r["tprd"] for r in rows])
    low = np.array([r["tprd_low"] for r in rows])
    high = np.array([r["tprd_high"] for r in rows])
    low = np.clip(np.where(np.isfinite(low), low, y), -1.0, 1.0)
    high = np.clip(np.where(np.isfinite(high), high, y), -1.0, 1.0)
    return y, low, high


def diagnostics_limits(runs: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """y-limits that hold every run's gaps and (clipped) fold intervals, with a margin."""
    values = [v for run in runs for part in _clipped(_points(run)) for v in part.tolist()] if runs else []
    values = [v for v in values if math.isfinite(v)] or [-0.1, 0.1]
    low, high = min(min(values), 0.0), max(max(values), 0.0)
    pad = 0.06 * max(high - low, 0.1)
    return low - pad, high + pad


def _label_heights(x: np.ndarray, y: np.ndarray, span: float, bounds: tuple[float, float]) -> np.ndarray:
    """Heights of the class labels: labels of points at about the same share (within 3% of the
    x range) are spread so that consecutive ones are at least ``span`` apart in their y order,
    centred on their points and kept within ``bounds``; a lone label sits at its point.
    """
    out = y.astype(float).copy()
    width = max(float(np.ptp(x)), 1e-9)
    clusters: list[list[int]] = []
    for i in np.lexsort((y, x)):
        if clusters and abs(x[i] - x[clusters[-1][0]]) <= 0.03 * width:
            clusters[-1].append(int(i))
        else:
            clusters.append([int(i)])
    for members in clusters:
        members.sort(key=lambda i: y[i])
        heights = [float(y[members[0]])]
        for i in members[1:]:
            heights.append(max(float(y[i]), heights[-1] + span))
        spread = np.array(heights)
        if np.any(spread != y[members]):  # pushed apart: centre the labels on the points, inside the bounds
            spread += float(np.mean(y[members]) - spread.mean())
            spread += max(bounds[0] + span / 2 - spread[0], 0.0) - max(spread[-1] - (bounds[1] - span / 2), 0.0)
        out[members] = spread
    return out


def _annotate(ax: Any, rows: Sequence[Mapping[str, Any]], limits: tuple[float, float]) -> None:
    x = np.array([r["share_female"] for r in rows])
    y = np.array([r["tprd"] for r in rows])
    heights = _label_heights(x, y, 0.055 * (limits[1] - limits[0]), limits)
    offset = 0.025 * max(float(np.ptp(x)), 0.05)
    for r, xi, yi, h in zip(rows, x, y, heights):
        moved = abs(h - yi) > 1e-12
        ax.annotate(r["class"], (xi, yi), xytext=(xi + offset, h), textcoords="data", fontsize=6, va="center",
                    color="#333", arrowprops={"arrowstyle": "-", "color": "#bbb", "linewidth": 0.5} if moved else None)


def draw_diagnostics(ax: Any, run: Mapping[str, Any], name: str, *, annotate: bool = True,
                     limits: tuple[float, float] | None = None) -> bool:
    """One panel: the run's classes at (share of women, TPR gap) with their fold t-intervals
    (clipped to [-1, 1]), class labels, the least-squares line, r [interval], rho and n in the
    title; ``limits``: the y-limits (default: :func:`diagnostics_limits` of this run). Returns False
    (and says so in the panel) when the run has no diagnostics.
    """
    rows = _points(run)
    if not rows:
        ax.text(0.5, 0.5, f"no per-class diagnostics:\n{diagnostics_reason(run)}", ha="center", va="center",
                fontsize=7, wrap=True, transform=ax.transAxes)
        ax.set_title(name, fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
        return False
    limits = limits or diagnostics_limits([run])
    x = np.array([r["share_female"] for r in rows])
    y, low, high = _clipped(rows)
    ax.errorbar(x, y, yerr=np.vstack([y - low, high - y]), fmt="o", color="#4c72b0", ecolor="#9db1d4",
                elinewidth=0.8, capsize=2, markersize=4)
    if annotate:
        _annotate(ax, rows, limits)
    corr = diagnostics_correlation_rows([run], [name], [""])[0]
    if np.ptp(x) > 0:
        slope, intercept = np.polyfit(x, y, 1)
        grid = np.linspace(x.min(), x.max(), 2)
        ax.plot(grid, intercept + slope * grid, color="#c44e52", linewidth=1.2, label=f"least squares (slope {slope:.2f})")
        ax.legend(fontsize=6.5, loc="upper left", frameon=False)
    ax.axhline(0.0, color="grey", linewidth=0.7)
    ax.set_ylim(*limits)
    ax.set_xlim(min(0.0, x.min() - 0.05), max(1.0, x.max() + 0.05))
    ax.set_title(f"{name}\nr = {fmt_ci(corr['pearson_r'], corr['pearson_low'], corr['pearson_high'], 2)}, "
                 f"ρ = {fmt(corr['spearman'], 2)} (n = {corr['n']})", fontsize=8)
    ax.tick_params(labelsize=7)
    return True


def plot_diagnostics(runs: Sequence[Mapping[str, Any]], names: Sequence[str], path: str | os.PathLike, *,
                     title: str | None = None, columns: int = 4) -> Path:
    """Small multiples of :func:`draw_diagnostics`, one panel per run (``columns`` per row, the same
    axes everywhere), saved as PNG with :func:`probekit.report._format.save_figure`.
    """
    plt = pyplot()
    n = max(len(runs), 1)
    ncols = min(columns, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols + 0.6, 3.2 * nrows + 0.7), squeeze=False)
    limits = diagnostics_limits(runs)
    flat = axes.ravel()
    for ax, run, name in zip(flat, runs, names):
        draw_diagnostics(ax, run, name, limits=limits)
    for ax in flat[len(runs):]:
        ax.set_visible(False)
    for ax in flat[: len(runs)]:
        ax.set_xlabel("share of women (training data)", fontsize=7)
        ax.set_ylabel("TPR gap (female − male)", fontsize=7)
    fig.suptitle(title or "TPR gap vs share of women per class (De-Arteaga et al. 2019, Fig. 2)", fontsize=10)
    # keep the top band for the title: tight_layout alone lets it overlap the first row's panel titles
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_figheight()))
    return save_figure(fig, path)
