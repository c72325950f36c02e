"""The downstream study of one encoder under one data setting: folds, training, predictions, metrics.

Tokpo et al. (2023, §4): 10-fold cross-validation; in each fold the classifier (encoder + one
linear layer) is trained on the training part under one data setting (original, scrubbed,
swapped; :func:`probekit.finetune.apply_setting`) and every test example is scored on itself and on
its gender-swapped counterfactual (:func:`probekit.finetune.counterfactual_dataset`). Folds are
drawn by scikit-learn's ``StratifiedKFold(shuffle=True, random_state=seed)`` over the joint label x
gender strata, so every fold keeps the joint distribution of the pool; a fixed split (a given
test set) is the alternative.

What a run leaves in its output directory::

    run.json                         what the run is (settings, data digest, model fingerprint);
                                     a resumed run must match it
    folds/fold-NN/original.csv       one row per test example: fold, source (example id),
                                     variant, label, prediction, group (gender), text, prob_<class>
    folds/fold-NN/augmented.csv      the same rows plus one per counterfactual (same source,
                                     other group): the counterfactually augmented test set
    folds/fold-NN/representations.npz  the test examples' pooled vectors (what the linear layer
                                     reads), class probabilities, gender and id (float32, no pickle):
                                     what the fold's leakage was computed on
    folds/fold-NN/fold.json          the fold's metrics, leakage (gender read from the pooled vectors
                                     and from the probabilities) and noise floors, written last
    checkpoints/fold-NN/             epoch-end checkpoints of the fold being trained (removed
                                     when the fold is finished)
    metrics.json                     every fold's metrics, mean/std/t-interval over folds (leakage and
                                     noise floors included; per-class diagnostics), provenance
    results.md, results.png          the table (Tables 3-4 layout) and figure, from metrics.json

``probekit metrics folds/fold-00/original.csv`` recomputes TPRD, FPRD, accuracy per group and
macro-F1; ``probekit metrics folds/fold-00/augmented.csv --source-col source --prob-cols ...``
recomputes CF and the CF-* metrics (the exact command is in ``metrics.json``).

The same work as units (for a study runner, or to spread folds over processes and machines):
:func:`run_fold` trains and evaluates one fold into the run directory and returns the fold's result
dict (the content of its ``fold.json``); :func:`aggregate_folds` turns the fold dicts of a run
into its :class:`FinetuneResult`, and :func:`collect_run` does that from the files of a run
directory and writes ``metrics.json``, the table and the figure. :func:`estimate_seconds` gives
the run-time estimate that :func:`run_finetune` reports before it starts.

Where the parts live: the plan (settings, folds, run directory) in :mod:`probekit.finetune._plan`,
one fold in :mod:`probekit.finetune._fold`, the aggregation in :mod:`probekit.finetune._aggregate`,
the run-time estimate in :mod:`probekit.finetune._estimate`; this module runs them in order.

An interrupted run continues with ``resume=True``: finished folds are read from disk, the fold in
progress restarts from its last epoch-end checkpoint, and the predictions are those of an
uninterrupted run (the shared loop's randomness is a function of the seed and the step).
"""


import logging
import math
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from probekit.finetune._aggregate import FinetuneResult, aggregate_folds
from probekit.finetune._embeddings import distinct_texts, frozen_embedder, frozen_text_groups, uncached_groups
from probekit.finetune._estimate import _estimate
from probekit.finetune._fold import _run_fold, fold_dir_name
from probekit.finetune._fold_common import _attribute_readers
from probekit.finetune._plan import _Plan, _prepare, _read_json, _start_run_dir, check_output_dir, datasets_bars_off
from probekit.finetune._train import FinetuneConfig
from probekit.utils import is_main_process, wait_for_everyone

logger = logging.getLogger(__name__)

__all__ = ["run_finetune"]


def run_finetune(
    encoder: Any,
    data: Any,
    *,
    setting: str = "original",
    folds: int = 10,
    test_data: Any = None,
    config: FinetuneConfig | None = None,
    out_dir: str | os.PathLike,
    resume: bool = False,
    progress: bool = True,
    data_name: str = "custom",
    report: Callable[[str], None] | None = None,
    callback: Callable[[int, dict[str, float]], None] | None = None,
    embedding_cache: str | os.PathLike | None = None,
    leakage_readers: str | Sequence[str] | None = None,
    attribute: str = "gender",
    intersect: str | None = None,
    min_cell_size: int = 30,
) -> FinetuneResult:
    """Fine-tune and evaluate a classifier on every fold; write predictions, metrics, table, figure.

    Before the first fold the run time is estimated from a few timed training steps on a
    throwaway copy of the model (or, ``frozen``, from timed embeddings) and passed to ``report``.
    The same work split into units: :func:`run_fold` per fold, then :func:`collect_run`.

    Parameters
    ----------
    encoder : probekit.Encoder
        Plain, weight-debiased, or projection-wrapped (its projection is applied to the pooled
        vector in every forward pass). Its weights are copied per fold, never changed.
    data : datasets.Dataset
        The shared representation (``text``, ``label`` ClassLabel, ``gender`` female/male,
        ``example_id``): :func:`probekit.finetune.make_synthetic_bios` (a split),
        :func:`~probekit.finetune.load_bios`, :func:`~probekit.finetune.load_jigsaw`.
        Cross-validation folds are drawn from it; with ``test_data`` it is the training set.
    setting : {"original", "scrubbed", "swapped", "balanced", "adversarial"}
        Training-data setting (Tokpo et al. 2023, §4), applied to the training part of each fold,
        or task-time baseline (``balanced``: label x gender reweighting; ``adversarial``: gradient
        reversal against a gender discriminator of strength ``config.adversarial_lambda``).
    folds : int
        Number of stratified folds (default 10, the paper's); ignored with ``test_data``.
    test_data : datasets.Dataset, optional
        A fixed test set: one train/test split instead of cross-validation.
    config : FinetuneConfig, optional
        Training hyperparameters (default: the paper's; ``config.seed`` also seeds the folds).
    out_dir : path
        New or empty directory, or (``resume``) the directory of an interrupted run.
    resume : bool
    progress : bool
        tqdm bars (folds, training steps, embeddings).
    data_name : str
        Recorded in the settings (``"synthetic"``, ``"bios"``, ``"jigsaw"``, ...).
    report : callable, optional
        Receives the user-facing status lines (the run-time estimate, each finished fold);
        default: ``logging`` at INFO.
    callback : callable, optional
        Passed to the training loop (``callback(step, values)`` after every step; raising stops
        the run, which ``resume`` continues).
    embedding_cache : path, optional
        Frozen path: a directory for the extraction engine's on-disk cache. The pool, its
        counterfactuals and its scrubbed version are cached separately, so runs of the other
        settings (and resumed runs) over the same data and encoder embed nothing again.
    leakage_readers : str or sequence of str, optional
        Nonlinear readers (``"mlp"``, ``"kernel"``) that also read every fold's leakage from the pooled
        vectors (:func:`probekit.finetune.fold_leakage`), beside the linear gender probe.
    attribute : str
        The protected attribute: ``"gender"`` (default; everything above), or one of k groups
        (``"race"``, ``"religion"``, a registered attribute) whose group each example carries in a
        column of ``data`` named after it (:func:`probekit.finetune.make_synthetic_group_bios`,
        :func:`probekit.finetune.load_jigsaw_groups`). Then the folds are stratified on label x group, the
        settings are those of :mod:`probekit.finetune._groups` (``adversarial`` is refused by name), the
        metrics are the k-group gap family of TPR and FPR per class, the k-group CF and the accuracy
        (:data:`probekit.finetune.GROUP_METRICS`; ``metrics.json``'s ``summary.group_gaps`` adds the gap
        family with intervals over the pooled out-of-fold predictions), leakage is the k-class probe
        (:func:`probekit.finetune.group_leakage`, chance 1/k), and on Jigsaw data with identity columns
        every fold has Borkan et al.'s subgroup AUCs. Recorded in ``run.json`` and every ``fold.json``.
    intersect : str, optional
        With a k-group ``attribute``: a second group column of the data (``"gender"``) whose
        intersection cells with the attribute get the gap family too
        (:func:`probekit.extrinsic.intersectional_gaps`).
    min_cell_size : int
        Intersection cells with fewer test examples are listed and left out of the intersection's gaps.

    Returns
    -------
    FinetuneResult
    """
    config = config or FinetuneConfig()
    out = check_output_dir(out_dir, resume=resume)  # before any work
    readers = _attribute_readers(leakage_readers, attribute)
    with datasets_bars_off():
        plan = _prepare(encoder, data, setting=setting, folds=folds, test_data=test_data, config=config,
                        data_name=data_name, attribute=attribute, intersect=intersect, min_cell_size=min_cell_size)
        return _run(encoder, plan, config=config, out=out, resume=resume, progress=progress,
                    say=report or logger.info, callback=callback, embedding_cache=embedding_cache, leakage_readers=readers)


def _run(encoder: Any, plan: _Plan, *, config: FinetuneConfig, out: Path, resume: bool, progress: bool,
         say: Callable[[str], None], callback: Callable | None, embedding_cache: Any,
         leakage_readers: Sequence[str] = ()) -> FinetuneResult:
    settings = plan.settings
    _start_run_dir(out, settings, resume)
    n = len(plan.splits)
    finished: dict[int, dict[str, Any]] = {}
    for k in range(n):
        fold_file = out / fold_dir_name(k) / "fold.json"
        if resume and fold_file.is_file():
            finished[k] = _read_json(fold_file)
    todo = [k for k in range(n) if k not in finished]
    if finished:
        say(f"resuming: {len(finished)} of {n} fold(s) already finished")

    groups = None
    if config.frozen and todo:
        groups = frozen_text_groups(plan.pool, plan.test_data, settings["setting"], settings.get("attribute", "gender"))
    frozen_texts = distinct_texts(uncached_groups(encoder, config, groups, embedding_cache)) if groups else None
    _, message = _estimate(encoder, plan, config, todo, frozen_texts=frozen_texts)
    say(f"estimate: {message}")
    embed = (frozen_embedder(encoder, config, groups, progress=progress, cache_dir=embedding_cache)
             if groups is not None else None)

    started = time.perf_counter()
    from tqdm.auto import tqdm

    entries = dict(finished)
    with tqdm(total=n, initial=len(finished), desc=f"folds ({settings['setting']})", unit="fold",
              disable=not progress or n < 2) as bar:
        for k in todo:
            entries[k] = _run_fold(k, encoder, plan, config=config, out=out, resume=resume, progress=progress,
                                   embed=embed, callback=callback, leakage_readers=leakage_readers)
            say(_fold_line(k, entries[k], settings.get("attribute", "gender")))
            bar.update(1)
    result = aggregate_folds([entries[k] for k in range(n)], settings)
    result.settings["seconds"] = time.perf_counter() - started
    if is_main_process():
        result.save(out)
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
    wait_for_everyone()
    return result


def _fold_line(k: int, entry: dict[str, Any], attribute: str) -> str:
    m = entry["metrics"]
    leak = ((entry.get("leakage") or {}).get("representation") or {}).get("balanced_accuracy")
    gap = f"TPRD {_fmt(m.get('tprd'))}" if attribute == "gender" else f"{attribute} TPR max gap {_fmt(m.get('tpr_max_gap'))}"
    return (f"fold {k}: accuracy {_fmt(m['accuracy'])}, {gap}, CF {_fmt(m['cf'])}, "
            f"{attribute} leakage {_fmt(leak)} ({entry['seconds']:.0f} s)")


def _fmt(value: Any) -> str:
    return "nan" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{float(value):.3f}"

