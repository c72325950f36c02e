"""A fine-tuning run's result from its folds: :class:`FinetuneResult` and ``metrics.json``."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune._evaluate_groups import pooled_group_gaps
from probekit.finetune._fold import fold_dir_name
from probekit.finetune._plan import _FORMAT, _FORMAT_VERSION, FIGURE_FILE, METRICS_FILE, RUN_FILE, TABLE_FILE, _read_json
from probekit.report import finetune_groups_markdown, finetune_markdown, plot_finetune_figure
from probekit.stats import fold_entries, summarize_run
from probekit.utils import atomic_path, collect_provenance, dumps_json, is_main_process, write_json

# ------------------------------------------------------------------------------------------ result


@dataclass
class FinetuneResult:
    """Result of :func:`run_finetune` (the content of ``metrics.json``).

    Attributes
    ----------
    settings : dict
        Data, setting, split, folds, training hyperparameters, classes, label x gender counts, the
        interventions used (swap/scrub word and name lists with digests).
    folds : list of dict
        Per fold: ``fold``, ``n_train`` (after the setting), ``n_test``, ``metrics``,
        ``per_class``, ``warnings``, ``training``, ``files``, ``leakage``
        (:func:`probekit.finetune.fold_leakage`), ``noise_floor``
        (:func:`probekit.finetune.noise_floor`), ``seconds``.
    summary : dict
        ``metrics`` / ``per_class``: mean, std (ddof=1), 95% Student-t interval over folds; a k-group
        run (``settings["attribute"]`` not gender) also ``pooled``: the gap family (``metrics``,
        ``per_class``, ``group_gaps``, ``intersection``) over the pooled out-of-fold predictions
        (:func:`probekit.finetune.pooled_group_gaps`);
        ``leakage``, ``noise_floor`` (where the folds have them) and ``per_class_diagnostics``
        (:func:`probekit.finetune.per_class_diagnostics`).
    provenance : dict
    """

    settings: dict[str, Any]
    folds: list[dict[str, Any]]
    summary: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The content of ``metrics.json``: format, settings, folds, summary, provenance."""
        return {"format": _FORMAT, "format_version": _FORMAT_VERSION, "settings": self.settings,
                "folds": self.folds, "summary": self.summary, "provenance": self.provenance}

    def to_json(self) -> str:
        """``to_dict()`` as JSON text (NaN as null)."""
        return dumps_json(self.to_dict())

    def save(self, out_dir: str | os.PathLike, *, label: str | None = None) -> Path:
        """Write ``metrics.json``, then ``results.md`` and ``results.png`` built from it."""
        out = Path(out_dir)
        write_json(out / METRICS_FILE, self.to_dict())
        saved = _read_json(out / METRICS_FILE)  # tables and figures come from the saved JSON only
        labels = [label] if label else None
        if self.settings.get("attribute", "gender") != "gender":  # k groups: their own table, no gender figure
            with atomic_path(out / TABLE_FILE) as tmp:
                tmp.write_text(finetune_groups_markdown(saved, label), encoding="utf-8")
            return out / METRICS_FILE
        with atomic_path(out / TABLE_FILE) as tmp:
            tmp.write_text(finetune_markdown([saved], labels), encoding="utf-8")
        plot_finetune_figure([saved], out / FIGURE_FILE, labels)
        return out / METRICS_FILE



# ------------------------------------------------------------------------------------------ aggregation


def aggregate_folds(folds: Sequence[Mapping[str, Any]], settings: Mapping[str, Any], *,
                    confidence: float = 0.95) -> FinetuneResult:
    """The run's result (the content of ``metrics.json``) from its fold results.

    Parameters
    ----------
    folds : sequence of dict
        Fold results (:func:`run_fold`'s return values or ``fold.json`` contents), one per fold of
        the run, in any order.
    settings : mapping
        The run's settings (``run.json``'s ``"settings"``; ``FinetuneResult.settings``).
    confidence : float
        Level of the Student-t intervals over folds.

    Returns
    -------
    FinetuneResult
        ``summary`` holds, for every metric and per-class cell, the mean, std (ddof=1) and
        Student-t interval over folds, leakage, noise floors and per-class diagnostics
        (:func:`probekit.stats.summarize_run`, the function the study report calls too); folds where
        a value is undefined (NaN / null) are left out and counted in ``n_missing``.
    """
    entries = sorted((dict(f) for f in folds), key=lambda f: int(f.get("fold", -1)))
    numbers = [int(f.get("fold", -1)) for f in entries]
    expected = int(settings.get("folds", len(entries)))
    if numbers != list(range(expected)):
        raise InvalidParameterError("folds", numbers, f"one result for each fold 0..{expected - 1}")
    wrong = sorted({f.get("setting") for f in entries if f.get("setting") not in (None, settings.get("setting"))})
    if wrong:
        raise InvalidParameterError("folds", f"fold results of setting(s) {wrong}", f"results of setting {settings.get('setting')!r}")
    entries = fold_entries(entries)  # null (NaN in JSON) back to NaN
    summary = summarize_run(entries, label_gender_counts=settings.get("label_gender_counts"), confidence=confidence)
    attribute = settings.get("attribute", "gender")
    if attribute != "gender":  # the gap family once more over the pooled out-of-fold predictions, with intervals
        summary["pooled"] = pooled_group_gaps(entries, settings.get("classes") or [], attribute=attribute,
                                              intersect=settings.get("intersect"),
                                              min_cell_size=int(settings.get("min_cell_size", 30)),
                                              random_state=int(settings.get("fold_seed", 0)))
    run_settings = dict(settings)
    run_settings["fold_seconds"] = float(sum(float(f.get("seconds", 0.0)) for f in entries))
    seed = int(run_settings.get("fold_seed", (run_settings.get("config") or {}).get("seed", 0)))
    interventions = run_settings.get("interventions") or {}
    provenance = collect_provenance(
        model=run_settings.get("model"), seeds={"seed": seed, "folds": seed},
        wordlists={name: info.get("digest", "n/a") if isinstance(info, Mapping) else str(info)
                   for name, info in interventions.items()},
        parameters={k: v for k, v in run_settings.items() if k not in ("label_gender_counts", "interventions", "model")},
    )
    return FinetuneResult(settings=run_settings, folds=entries, summary=summary, provenance=provenance)


def collect_run(out_dir: str | os.PathLike, *, save: bool = True, confidence: float = 0.95) -> FinetuneResult:
    """Aggregate the finished folds of a run directory into ``metrics.json``, the table and the figure.

    Reads ``run.json`` and every ``folds/fold-NN/fold.json`` (all folds must be finished), calls
    :func:`aggregate_folds`, and with ``save`` writes ``metrics.json``, ``results.md`` and
    ``results.png`` (atomically) and removes leftover checkpoints.
    """
    out = Path(out_dir)
    run_file = out / RUN_FILE
    if not run_file.is_file():
        raise InputFileError(f"{str(out)!r} is not a probekit finetune run directory (no {RUN_FILE})")
    try:
        settings = _read_json(run_file)["settings"]
    except (OSError, ValueError, KeyError) as exc:
        raise InputFileError(f"cannot read {str(run_file)!r}: {exc}") from None
    n = int(settings.get("folds", 0))
    missing = [k for k in range(n) if not (out / fold_dir_name(k) / "fold.json").is_file()]
    if missing:
        raise InputFileError(f"{str(out)!r}: fold(s) {missing} of {n} are not finished (no fold.json); run them first")
    entries = []
    for k in range(n):
        try:
            entries.append(_read_json(out / fold_dir_name(k) / "fold.json"))
        except (OSError, ValueError) as exc:
            raise InputFileError(f"cannot read {str(out / fold_dir_name(k) / 'fold.json')!r}: {exc}") from None
    result = aggregate_folds(entries, settings, confidence=confidence)
    if save and is_main_process():
        result.save(out)
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
    return result

