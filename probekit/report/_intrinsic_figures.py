"""The intrinsic comparison's figures (Tokpo et al. 2023, Figures 2-4 style) from the flat records."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.report._format import interval, num, pyplot, save_figure, wrap
from probekit.report._intrinsic_tables import _any

__all__ = ["plot_seat_lpbs", "plot_lpbs_attr_target", "plot_probe_bars", "plot_intrinsic_overview",
           "plot_layer_comparison", "intrinsic_figures", "INTRINSIC_FIGURES"]

def _errors(values: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Asymmetric error bars (2, n) from interval bounds; zero where the interval is missing."""
    below = np.where(np.isfinite(low) & np.isfinite(values), values - low, 0.0)
    above = np.where(np.isfinite(high) & np.isfinite(values), high - values, 0.0)
    return np.vstack([np.clip(below, 0, None), np.clip(above, 0, None)])


def _col(records: Sequence[Mapping[str, Any]], key: str) -> np.ndarray:
    return np.array([num(r.get(key)) for r in records], dtype=float)


def _row_height(n: int) -> float:
    return max(2.6, 0.55 * n + 1.4)


def _rows(ax: Any, records: Sequence[Mapping[str, Any]], labels: bool) -> None:
    """One row per run, the first at the top; run labels only where asked (panels are not
    axis-shared, so each one sets its own rows).
    """
    ax.set_yticks(np.arange(len(records)), [wrap(r["label"]) for r in records] if labels else [""] * len(records),
                  fontsize=8)
    ax.set_ylim(len(records) - 0.5, -0.5)


def _seat_panel(ax: Any, records: Sequence[Mapping[str, Any]]) -> None:
    y = np.arange(len(records))
    d = _col(records, "seat_effect_size")
    ax.barh(y, np.nan_to_num(d), 0.6, color="#4c72b0",
            xerr=_errors(d, _col(records, "seat_effect_size_low"), _col(records, "seat_effect_size_high")),
            capsize=3, error_kw={"elinewidth": 1})
    ax.axvline(0, color="grey", linewidth=0.8)
    _rows(ax, records, True)
    ax.set_xlabel("SEAT effect size (95% bootstrap CI)", fontsize=9)
    ax.set_title("SEAT effect size (0 = unbiased)", fontsize=10)


def _lpbs_panel(ax: Any, records: Sequence[Mapping[str, Any]], *, labels: bool = False) -> None:
    y = np.arange(len(records))
    h = 0.36
    if not any(r["lpbs_status"] == "ok" for r in records):
        ax.text(0.5, 0.5, "LPBS not measured:\nno checkpoint here has a masked-LM head", ha="center", va="center",
                transform=ax.transAxes, fontsize=9, color="#555555")
        ax.set_xticks([])
        _rows(ax, records, labels)
        ax.set_title("LPBS", fontsize=10)
        return
    for k, (variant, color) in enumerate((("attr", "#dd8452"), ("target", "#55a868"))):
        v = _col(records, f"{variant}_lpbs")
        ok = np.isfinite(v)
        ax.barh((y + (k - 0.5) * h)[ok], v[ok], h, color=color, label=f"{variant}-LPBS",
                xerr=_errors(v, _col(records, f"{variant}_lpbs_low"), _col(records, f"{variant}_lpbs_high"))[:, ok],
                capsize=3, error_kw={"elinewidth": 1})
    for i, r in enumerate(records):
        if r["lpbs_status"] != "ok":
            ax.text(0.01, i, "— not measured (no masked-LM head)" if "head" in str(r.get("lpbs_reason") or "").lower()
                    else "— not measured", transform=ax.get_yaxis_transform(), va="center", fontsize=8, color="#555555")
    _rows(ax, records, labels)
    ax.set_xlabel("LPBS (bootstrap CI over targets; lower is fairer)", fontsize=9)
    ax.set_title("LPBS", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")


_PROBE_BARS = (
    ("gender_accuracy", "gender acc.", "#4c72b0"),
    ("stereotype_accuracy", "stereotype acc.", "#c44e52"),
    ("random_accuracy_mean", "stereotype acc. under random relabeling (mean ± 2 sd)", "#cccccc"),
    ("stereotype_accuracy_balanced", "balanced stereotype acc.", "#8172b3"),
    ("stereotype_confidence", "stereotype confidence", "#937860"),
)


def _probe_panel(ax: Any, records: Sequence[Mapping[str, Any]], *, labels: bool = True) -> None:
    bars = [(key, name, color) for key, name, color in _PROBE_BARS if _any(records, key)]
    y = np.arange(len(records))
    h = 0.8 / max(len(bars), 1)
    for k, (key, name, color) in enumerate(bars):
        v = _col(records, key)
        if key == "random_accuracy_mean":  # the randomization test's reference distribution
            sd = np.nan_to_num(2 * _col(records, "random_accuracy_std"))
            err = np.vstack([sd, sd])
        else:
            err = _errors(v, _col(records, f"{key}_low"), _col(records, f"{key}_high"))
        ax.barh(y + (k - (len(bars) - 1) / 2) * h, np.nan_to_num(v), h, color=color, label=name, xerr=err,
                capsize=2, error_kw={"elinewidth": 1}, hatch="//" if key == "random_accuracy_mean" else None,
                edgecolor="#888888" if key == "random_accuracy_mean" else None)
    ax.axvline(0.5, color="grey", linestyle="--", linewidth=1, label="fair stereotype acc. (0.5)")
    ax.set_xlim(0, 1.05)
    _rows(ax, records, labels)
    ax.set_xlabel("score (error bars: word-bootstrap CI where saved)", fontsize=9)
    ax.set_title("Gender probe: removed or hidden?", fontsize=10)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)


def plot_seat_lpbs(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Figure 2 style: SEAT effect size and attr-/target-LPBS per method, side by side (same rows),
    so disagreements between the two measures are visible. PNG at ``path``.
    """
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, _row_height(len(records))))
    _seat_panel(axes[0], records)
    _lpbs_panel(axes[1], records)
    fig.suptitle("Do SEAT and LPBS agree? (Tokpo et al. 2023, Fig. 2 style)", fontsize=11)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_lpbs_attr_target(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Figure 3 style: attr-LPBS against target-LPBS, one point per run with both bootstrap
    intervals; the diagonal marks equal scores. Runs without LPBS are listed under the plot.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 6))
    measured = [r for r in records if r["lpbs_status"] == "ok" and math.isfinite(num(r["attr_lpbs"]))]
    colors = plt.get_cmap("tab10")
    for i, r in enumerate(measured):
        x, y = r["attr_lpbs"], r["target_lpbs"]
        ax.errorbar([x], [y], xerr=_errors(np.array([x]), np.array([r["attr_lpbs_low"]]), np.array([r["attr_lpbs_high"]])),
                    yerr=_errors(np.array([y]), np.array([r["target_lpbs_low"]]), np.array([r["target_lpbs_high"]])),
                    fmt="o", color=colors(i % 10), capsize=3, label=wrap(r["label"], 40))
    if measured:
        values = [v for r in measured for v in (r["attr_lpbs_low"], r["attr_lpbs_high"], r["target_lpbs_low"],
                                                  r["target_lpbs_high"], r["attr_lpbs"], r["target_lpbs"]) if math.isfinite(v)]
        pad = 0.08 * (max(values) - min(values)) + 1e-3
        lo, hi = min(values) - pad, max(values) + pad
        ax.plot([lo, hi], [lo, hi], color="grey", linestyle=":", linewidth=1, label="attr = target")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_aspect("equal")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    else:
        ax.text(0.5, 0.5, "no run has LPBS\n(no masked-LM head)", ha="center", va="center", transform=ax.transAxes)
    missing = [r["label"] for r in records if r not in measured]
    if missing:
        ax.set_title("attr- vs target-LPBS (not measured: " + ", ".join(missing)[:90] + ")", fontsize=9)
    else:
        ax.set_title("attr- vs target-LPBS (95% bootstrap CI over targets)", fontsize=10)
    ax.set_xlabel("attr-LPBS")
    ax.set_ylabel("target-LPBS")
    fig.tight_layout()
    return save_figure(fig, path)


def plot_probe_bars(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Figure 4 style: gender accuracy, stereotype accuracy (with the random-relabeling reference),
    balanced stereotype accuracy and confidence per run, with the saved intervals. PNG at ``path``.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, _row_height(len(records)) + 1.0))
    _probe_panel(ax, records)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_intrinsic_overview(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """SEAT effect size, LPBS and the probe bars in one figure with a shared row per run."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(17, _row_height(len(records)) + 1.0))
    _seat_panel(axes[0], records)
    _lpbs_panel(axes[1], records)
    _probe_panel(axes[2], records, labels=False)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_layer_comparison(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Per-layer curves of several runs (``results.json["per_layer"]``, from ``probekit probe
    --layers``): gender accuracy, balanced (else plain) stereotype accuracy and SEAT effect size,
    one line per run with its bootstrap band. PNG at ``path``.
    """
    plt = pyplot()
    runs = [(r["label"], r.get("per_layer") or []) for r in records if r.get("per_layer")]
    balanced = any(math.isfinite(num(row.get("stereotype_accuracy_balanced"))) for _, rows in runs for row in rows)
    panels = (("gender_accuracy", "gender accuracy", (0, 1.05)),
              ("stereotype_accuracy_balanced" if balanced else "stereotype_accuracy",
               "balanced stereotype accuracy" if balanced else "stereotype accuracy", (0, 1.05)),
              ("seat_effect_size", "SEAT effect size", None))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.3))
    colors = plt.get_cmap("tab10")
    for ax, (key, name, limits) in zip(axes, panels):
        for i, (label, rows) in enumerate(runs):
            x = np.array([num(row.get("layer")) for row in rows])
            y = np.array([num(row.get(key)) for row in rows])
            bounds = np.array([interval(row.get(f"{key}_ci")) for row in rows]).reshape(-1, 2)
            ax.plot(x, y, marker="o", markersize=3, color=colors(i % 10), label=wrap(label, 40))
            ax.fill_between(x, bounds[:, 0], bounds[:, 1], color=colors(i % 10), alpha=0.15, linewidth=0)
        ax.axhline(0.5 if limits else 0.0, color="grey", linestyle="--", linewidth=1)
        if limits:
            ax.set_ylim(*limits)
        ax.set_xlabel("hidden layer (0 = embeddings)", fontsize=9)
        ax.set_title(f"{name} per layer (95% bootstrap band)", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 3), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06 + 0.04 * ((len(labels) - 1) // 3), 1, 1))
    return save_figure(fig, path)


#: File names of the intrinsic figures and their captions.
INTRINSIC_FIGURES = {
    "seat_lpbs": "SEAT effect size and LPBS per method (Fig. 2 style)",
    "lpbs_attr_target": "attr- vs target-LPBS (Fig. 3 style)",
    "probe": "Gender probe per method (Fig. 4 style)",
    "probe_layers": "Gender probe and SEAT per hidden layer",
}


def intrinsic_figures(records: Sequence[Mapping[str, Any]], out_dir: str | os.PathLike, *, prefix: str = "") -> dict[str, Path]:
    """Write the Figure 2-4 style PNGs into ``out_dir`` (Figure 3 only when some run has LPBS; the
    per-layer figure when some run has per-layer results). Returns caption -> path.
    """
    out = Path(out_dir)
    paths = {INTRINSIC_FIGURES["seat_lpbs"]: plot_seat_lpbs(records, out / f"{prefix}seat_lpbs.png")}
    if any(r["lpbs_status"] == "ok" for r in records):
        paths[INTRINSIC_FIGURES["lpbs_attr_target"]] = plot_lpbs_attr_target(records, out / f"{prefix}lpbs_attr_target.png")
    paths[INTRINSIC_FIGURES["probe"]] = plot_probe_bars(records, out / f"{prefix}probe.png")
    if any(r.get("per_layer") for r in records):
        paths[INTRINSIC_FIGURES["probe_layers"]] = plot_layer_comparison(records, out / f"{prefix}probe_layers.png")
    return paths

