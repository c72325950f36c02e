"""``probekit metrics``: extrinsic fairness metrics of a predictions CSV file.

Reads one row per example (gold label, prediction, group; optionally class probabilities and a
source-example id for counterfactual test sets), prints a readable table and writes the full report
as JSON (default: ``<stem>.metrics.json`` next to the input). With ``--representations`` (a
fine-tuning fold's ``representations.npz``) it also recomputes the fold's leakage
(:func:`probekit.finetune.fold_leakage` with ``--seed``), exactly as ``fold.json`` holds it.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Compute every extrinsic fairness metric of a predictions file: per-group rates (TPR, FPR, ...),
TPRD/FPRD (group of interest minus reference; female minus male when the groups are f/m or
female/male), FPED/FNED, TPR gap, demographic parity and equalized odds; with --prob-cols the
probability-based metrics (AvgGF, Borkan AUCs and AEGs, Jigsaw score); with --source-col the
counterfactual metrics (CF) and a significance test; with --representations (a fine-tuning fold's
representations.npz) the fold's leakage: the test examples' gender read by the gender probe from the
classifier's pooled vectors and from its probabilities (balanced accuracy with interval, MDL).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "metrics",
        help="extrinsic fairness metrics of a predictions CSV file",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("predictions", metavar="PREDICTIONS.csv", help="CSV file with one row per example")
    p.add_argument("--label-col", default="label", help="column of gold labels (default: %(default)s)")
    p.add_argument("--pred-col", default="prediction", help="column of predicted labels (default: %(default)s)")
    p.add_argument("--group-col", default="group", help="column of protected groups (default: %(default)s)")
    p.add_argument(
        "--prob-cols", nargs="+", metavar="COL",
        help="probability columns, one per class in sorted class order, or CLASS=COL pairs; "
        "for binary tasks a single column is the probability of the positive class",
    )
    p.add_argument("--source-col", help="column of source-example ids (counterfactual test sets)")
    p.add_argument("--pos-label", help="positive class of a binary task (default: the second class in sorted order)")
    p.add_argument("--group-of-interest", help="TPRD/FPRD = rate(this group) - rate(--reference)")
    p.add_argument("--reference", help="reference group of TPRD/FPRD")
    p.add_argument("--smoothing", type=float, default=0.0, help="added to confusion counts (1e-5 reproduces fairlib)")
    p.add_argument("--bootstrap", type=int, default=0, metavar="N", help="bootstrap replicates for confidence intervals (default: none)")
    p.add_argument("--bootstrap-method", choices=("percentile", "bca"), default="percentile")
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--seed", type=int, default=0,
                   help="random seed of the bootstrap and of the leakage probe (default: %(default)s)")
    p.add_argument(
        "--representations", metavar="FILE.npz",
        help="a fine-tuning fold's representations.npz (pooled vectors, probabilities, gender of its test "
        "examples, one per row of PREDICTIONS: the fold's original.csv): recompute the fold's leakage with --seed",
    )
    p.add_argument("--reader", choices=("linear", "mlp", "kernel"), default="linear",
                   help="probe family of the leakage with --representations (default: %(default)s, the gender probe; "
                   "mlp and kernel: the nonlinear readers of probekit.intrinsic, hyperparameters by inner CV)")
    p.add_argument("--gaps", action="store_true",
                   help="also the k-group gap family of TPR and FPR per class (max gap, RMS gap to the overall rate, "
                        "pairwise gaps with simultaneous bootstrap intervals, seeded with --seed): what a "
                        "`probekit finetune --attribute race` fold reports")
    p.add_argument("--sep", default=",", help="CSV field separator (default: ',')")
    p.add_argument("--out", help="JSON output file (default: <stem>.metrics.json next to the input)")
    from probekit.cli._outputs import declare_output

    declare_output(p, "metrics")
    p.set_defaults(func=run)


def _read_csv(path: Path, sep: str) -> Any:
    import pandas as pd

    from probekit.errors import InputFileError

    if not path.exists():
        raise InputFileError(f"predictions file {str(path)!r} does not exist")
    if path.is_dir():
        raise InputFileError(f"predictions file {str(path)!r} is a directory, not a CSV file")
    try:
        frame = pd.read_csv(path, sep=sep, keep_default_na=False, na_values=[""], low_memory=False)
    except pd.errors.EmptyDataError as exc:
        raise InputFileError(f"predictions file {str(path)!r} is empty") from exc
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InputFileError(f"predictions file {str(path)!r} is not a readable CSV file: {exc}") from exc
    except OSError as exc:
        raise InputFileError(f"predictions file {str(path)!r} cannot be read: {exc}") from exc
    if frame.shape[0] == 0:
        raise InputFileError(f"predictions file {str(path)!r} has a header but no rows")
    return frame


def _column(frame: Any, name: str, option: str, path: Path) -> Any:
    from probekit.errors import InputFileError

    if name not in frame.columns:
        available = ", ".join(repr(str(c)) for c in frame.columns)
        raise InputFileError(
            f"column {name!r} ({option}) not found in {str(path)!r}; available columns: {available}"
        )
    col = frame[name]
    missing = col.isna().to_numpy()
    if missing.any():
        lines = (missing.nonzero()[0][:5] + 2).tolist()  # header is line 1
        raise InputFileError(
            f"column {name!r} ({option}) has {int(missing.sum())} empty value(s), e.g. on line(s) {lines} of {str(path)!r}"
        )
    return col


def _probabilities(frame: Any, specs: list[str], classes: list, path: Path) -> Any:
    import numpy as np
    import pandas as pd

    from probekit.errors import InputFileError, InvalidParameterError

    if all("=" in s for s in specs):
        mapping = {}
        for s in specs:
            cls, col = s.split("=", 1)
            mapping[cls] = col
        by_text = {str(c): c for c in classes}
        unknown = [k for k in mapping if k not in by_text]
        if unknown:
            raise InvalidParameterError("--prob-cols", unknown, f"classes among {classes[:20]}")
        missing = [str(c) for c in classes if str(c) not in mapping]
        if missing:
            raise InvalidParameterError(
                "--prob-cols", specs, f"one CLASS=COL pair for every class {classes[:20]}", detail=f"missing {missing[:10]}"
            )
        columns = [mapping[str(c)] for c in classes]
    elif any("=" in s for s in specs):
        raise InvalidParameterError("--prob-cols", specs, "either column names only or CLASS=COL pairs only")
    else:
        columns = list(specs)
        if len(columns) == 1 and len(classes) != 2:
            raise InvalidParameterError("--prob-cols", specs, f"{len(classes)} columns (one per class, in the order {classes[:20]})")
        if len(columns) not in (1, len(classes)):
            raise InvalidParameterError(
                "--prob-cols", specs, f"{len(classes)} columns, one per class in the order {classes[:20]}",
                detail=f"got {len(columns)}",
            )
    values = []
    for col in columns:
        series = _column(frame, col, "--prob-cols", path)
        numeric = pd.to_numeric(series, errors="coerce")
        bad = numeric.isna().to_numpy()
        if bad.any():
            lines = (bad.nonzero()[0][:5] + 2).tolist()
            raise InputFileError(f"column {col!r} (--prob-cols) has non-numeric values, e.g. on line(s) {lines} of {str(path)!r}")
        values.append(numeric.to_numpy(dtype=float))
    return values[0] if len(values) == 1 else np.column_stack(values)


def _labels(true_col: Any, pred_col: Any) -> tuple[Any, Any]:
    """Use text for both columns when one is numeric and the other is not ("1" vs 1)."""
    numeric_t = true_col.dtype.kind in "iufb"
    numeric_p = pred_col.dtype.kind in "iufb"
    if numeric_t != numeric_p:
        return true_col.astype(str).to_numpy(), pred_col.astype(str).to_numpy()
    return true_col.to_numpy(), pred_col.to_numpy()


def _fmt(value: Any) -> str:
    import math

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nan"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _print_report(report: Any, out: Any) -> None:
    import pandas as pd

    settings = report.settings
    print(f"{settings['n_examples']} examples, {len(settings['groups'])} groups, {len(settings['classes'])} classes", file=out)
    with pd.option_context("display.max_columns", 40, "display.width", 160, "display.float_format", "{:.4f}".format):
        if isinstance(report.by_group.columns, pd.MultiIndex):
            print("\nPer group:", file=out)
            print(report.by_group[[("n", "all"), ("accuracy", "all")]].droplevel("class", axis=1).to_string(), file=out)
            print("\nPer class:", file=out)
            print(report.by_class.to_string(), file=out)
        else:
            print(f"\nPer group (class {settings['evaluated_classes'][0]!r} as positive):", file=out)
            print(report.by_group.to_string(), file=out)
    print("\nMetrics:", file=out)
    multiclass = len(settings["evaluated_classes"]) > 1
    names = [k for k in report.metrics if not (multiclass and "[" in k)]
    width = max(len(k) for k in names)
    for name in names:
        line = f"  {name:<{width}}  {_fmt(report.metrics[name])}"
        ci = report.confidence_intervals.get(name)
        if ci:
            line += f"  [{_fmt(ci['low'])}, {_fmt(ci['high'])}]"
        print(line, file=out)
    if report.tests:
        print("\nTests:", file=out)
        for name, test in report.tests.items():
            print(f"  {name}: {test['test']} statistic {_fmt(test['statistic'])}, p = {test['pvalue']:.4g} (n = {test['n']})", file=out)
    for note in report.notes:
        print(f"note: {note}", file=out)


_REPRESENTATION_KEYS = ("pooled", "probabilities", "gender")


def _representations(path: Path, n_rows: int, groups: Any) -> dict[str, Any]:
    """The arrays of a fold's representations.npz, checked against the predictions (one row each)."""
    import zipfile

    import numpy as np

    from probekit.errors import InputFileError
    from probekit.finetune import load_representations

    option = "--representations"
    if not path.is_file():
        raise InputFileError(f"{option}: {str(path)!r} " + ("is a directory" if path.is_dir() else "does not exist")
                             + "; expected a fine-tuning fold's representations.npz")
    try:
        arrays = load_representations(path)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise InputFileError(f"{option}: {str(path)!r} is not a readable .npz file: {exc}") from None
    missing = [k for k in _REPRESENTATION_KEYS if k not in arrays]
    if missing:
        raise InputFileError(f"{option}: {str(path)!r} lacks the array(s) {missing} (it holds {sorted(arrays)}); expected "
                             "a fine-tuning fold's representations.npz with pooled, probabilities and gender")
    gender = np.asarray(arrays["gender"]).astype(str).ravel()
    for key in ("pooled", "probabilities"):
        if np.ndim(arrays[key]) != 2 or len(arrays[key]) != gender.size:
            raise InputFileError(f"{option}: array {key!r} of {str(path)!r} has shape {np.shape(arrays[key])}; "
                                 f"expected one row per gender value ({gender.size} rows)")
    if gender.size != n_rows:
        raise InputFileError(f"{option}: {str(path)!r} has {gender.size} rows, the predictions file {n_rows}; pass the "
                             "representations.npz of the same fold as its original.csv (one row per test example)")
    if not set(gender) <= {"female", "male"}:
        raise InputFileError(f"{option}: gender of {str(path)!r} holds {sorted(set(gender))[:5]}; expected female / male")
    given = np.asarray(groups).astype(str)
    if set(given) <= {"female", "male"} and (given != gender).any():
        raise InputFileError(f"{option}: the gender of {int((given != gender).sum())} row(s) of {str(path)!r} differs from "
                             "the predictions' --group-col; pass the representations.npz of the same fold")
    scrubbed = None  # the scrubbed-test-text control (folds written before it have none)
    if all(k in arrays and np.ndim(arrays[k]) == 2 and len(arrays[k]) == gender.size
           for k in ("scrubbed_pooled", "scrubbed_probabilities")):
        scrubbed = (arrays["scrubbed_pooled"], arrays["scrubbed_probabilities"])
    return {"pooled": arrays["pooled"], "probabilities": arrays["probabilities"], "gender": gender, "scrubbed": scrubbed}


def _print_leakage(leakage: dict[str, Any], out: Any) -> None:
    reader = leakage["representation"].get("reader", "linear")
    print(f"\nLeakage (gender of the test examples read by the {reader} reader on held-out rows):", file=out)
    for source, name in (("representation", "pooled vectors"), ("probabilities", "probabilities"),
                         ("scrubbed_representation", "scrubbed text, pooled"), ("scrubbed_probabilities", "scrubbed text, probs")):
        if source not in leakage:
            continue
        cell = leakage[source]
        low, high = cell.get("interval") or [None, None]
        line = (f"  {name:<22}  balanced accuracy {_fmt(cell.get('balanced_accuracy'))}  [{_fmt(low)}, {_fmt(high)}]"
                f"  MDL compression {_fmt(cell.get('mdl_compression'))}  (n = {cell.get('n')})")
        print(line + (f"  ({cell['reason']})" if cell.get("reason") else ""), file=out)


def _gaps(y_true: Any, y_pred: Any, groups: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The gap family as the fine-tuning fold computes it (:func:`probekit.finetune.group_gap_family`)."""
    import numpy as np

    from probekit.finetune import group_gap_family

    y, pred = np.asarray(y_true).astype(str), np.asarray(y_pred).astype(str)
    classes = sorted(set(y) | set(pred))
    if args.pos_label is not None and len(classes) == 2:
        classes = [c for c in classes if c != str(args.pos_label)] + [str(args.pos_label)]
    family = group_gap_family(y, pred, np.asarray(groups).astype(str), classes, random_state=args.seed)
    return {score: {c: g.to_dict() for c, g in by.items()} for score, by in family.items()}


def _print_gaps(gaps: dict[str, Any], out: Any) -> None:
    print("\nk-group gaps (max gap, RMS gap to overall, pairwise with simultaneous intervals):", file=out)
    for score, by_class in gaps.items():
        for cls, g in by_class.items():
            print(f"  {score.upper()} of {cls}: max gap {_fmt(g['max_gap']['estimate'])}, "
                  f"RMS gap {_fmt(g['rms_gap']['estimate'])}", file=out)
            for p in g["pairwise"]:
                print(f"    {p['group_a']} - {p['group_b']}: {_fmt(p['gap'])} [{_fmt(p['low'])}, {_fmt(p['high'])}]"
                      + (" *" if p["excludes_zero"] else ""), file=out)


def run(args: argparse.Namespace) -> int:
    from probekit.errors import InvalidParameterError
    from probekit.extrinsic import encode_inputs, evaluate_predictions
    from probekit.utils import check_output_file, write_json

    path = Path(args.predictions)
    out_path = Path(args.out) if args.out else path.with_name(path.stem + ".metrics.json")
    check_output_file(out_path, parameter="--out")  # before any work
    frame = _read_csv(path, args.sep)
    y_true_col = _column(frame, args.label_col, "--label-col", path)
    y_pred_col = _column(frame, args.pred_col, "--pred-col", path)
    group_col = _column(frame, args.group_col, "--group-col", path)
    y_true, y_pred = _labels(y_true_col, y_pred_col)
    groups = group_col.to_numpy()
    source = _column(frame, args.source_col, "--source-col", path).to_numpy() if args.source_col else None
    y_prob = None
    if args.prob_cols:
        classes = encode_inputs(y_true, y_pred, groups, min_groups=1).classes.tolist()
        y_prob = _probabilities(frame, args.prob_cols, classes, path)
    if args.bootstrap < 0:
        raise InvalidParameterError("--bootstrap", args.bootstrap, "a non-negative number of replicates")
    representations = (_representations(Path(args.representations), len(frame), groups)
                       if args.representations else None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = evaluate_predictions(
            y_true, y_pred, groups, y_prob=y_prob, source=source, pos_label=args.pos_label,
            group_of_interest=args.group_of_interest, reference=args.reference, smoothing=args.smoothing,
            n_bootstrap=args.bootstrap, confidence=args.confidence, bootstrap_method=args.bootstrap_method,
            random_state=args.seed,
        )
    leakage = None
    if representations is not None:
        from probekit.finetune import fold_leakage

        leakage = fold_leakage(representations["pooled"], representations["probabilities"], representations["gender"],
                               scrubbed=representations["scrubbed"], random_state=args.seed,
                               reader=args.reader)  # as probekit finetune computes it
    gaps = _gaps(y_true, y_pred, groups, args) if args.gaps else None
    for w in caught:
        print(f"probekit metrics: warning: {w.message}", file=sys.stderr)
    report.settings["input"] = {
        "file": str(path),
        "label_col": args.label_col,
        "pred_col": args.pred_col,
        "group_col": args.group_col,
        "prob_cols": args.prob_cols,
        "source_col": args.source_col,
        **({"representations": str(args.representations), "leakage_seed": args.seed, "leakage_reader": args.reader}
           if leakage is not None else {}),
    }
    if report.provenance.get("parameters") is not None:
        report.provenance["parameters"]["input"] = report.settings["input"]
    _print_report(report, sys.stdout)
    extra = {}
    if leakage is not None:
        _print_leakage(leakage, sys.stdout)
        extra["leakage"] = leakage
    if gaps is not None:
        _print_gaps(gaps, sys.stdout)
        extra["group_gaps"] = gaps
    if extra:
        write_json(out_path, report.to_dict() | extra)
    else:
        report.to_json(out_path)
    print(f"\nwrote {out_path}", file=sys.stdout)
    return 0
