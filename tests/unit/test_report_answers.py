"""The "In short" paragraphs of the study report: each verdict follows from the numbers it cites."""

from __future__ import annotations

from probekit.report import answers_markdown


def _group(method, tprds, *, leakage=None, floor=None):
    folds = [{"fold": k, "metrics": {"tprd": t}} for k, t in enumerate(tprds)]
    summary = {"metrics": {"tprd": {"mean": sum(tprds) / len(tprds)}}}
    if leakage is not None:
        summary["leakage"] = {"representation": {"balanced_accuracy": leakage}}
    if floor is not None:
        summary["noise_floor"] = {"tprd": floor}
    return {"encoder": "enc", "method": method, "dataset": "synth", "setting": "original",
            "run": {"folds": folds, "summary": summary}}


RECORDS = [{"encoder": "enc", "method": "none", "gender_accuracy": 0.95},
           {"encoder": "enc", "method": "inlp", "gender_accuracy": 0.52},
           {"encoder": "enc", "method": "leace", "gender_accuracy": 0.50}]


def test_each_question_gets_its_paragraph_and_verdict():
    groups = [
        _group("none", [0.30, 0.32, 0.31], floor={"exceeds": True, "floor": {"mean": 0.12}}),
        _group("inlp", [0.20, 0.21, 0.22], leakage={"mean": 0.81, "low": 0.74, "high": 0.88}),
        _group("leace", [0.31, 0.29, 0.33], leakage={"mean": 0.52, "low": 0.44, "high": 0.60}),
    ]
    correlations = [{"spearman": 0.9, "spearman_p": 0.01, "n": 3, "intrinsic": "probe", "extrinsic": "tprd"},
                    {"spearman": 0.1, "spearman_p": 0.8, "n": 3, "intrinsic": "seat", "extrinsic": "tprd"}]
    text = "\n".join(answers_markdown(RECORDS, groups, correlations))
    assert text.startswith("## In short")
    # INLP hid gender (0.52 intrinsically) but the classifier reads it back above chance; LEACE does not
    assert "inlp (enc): intrinsic gender probe accuracy 0.52 (base 0.95)" in text
    assert "0.81 balanced accuracy ([0.74, 0.88], above chance): gender is still there downstream" in text
    assert "0.52 balanced accuracy ([0.44, 0.60], chance inside): no gender found downstream" in text
    assert "1 of 2 intrinsic x extrinsic rank correlations have p < 0.05" in text
    assert "TPRD 0.310, above its shuffled-gender noise floor (0.120)" in text
    # paired over folds: INLP lowers TPRD by 0.10 on every fold; LEACE's differences straddle 0
    assert "inlp: TPRD -0.100 [" in text and "(lower, beyond fold noise)" in text
    assert "leace: TPRD +0.000 [" in text and "(no difference beyond fold noise)" in text


def test_missing_results_are_said_not_invented():
    text = "\n".join(answers_markdown([{"encoder": "enc", "method": "none", "gender_accuracy": 0.9}], [], []))
    assert "Not answered: the study has no debiased encoder" in text
    assert "Not answered: too few encoder x method" in text
    assert "Not answered: no fine-tuning of the base encoder" in text
    assert answers_markdown([], [], []) == []


def test_the_base_cf_floor_and_every_task_time_intervention_get_a_verdict():
    base = _group("none", [0.30, 0.32, 0.31], floor={"exceeds": True, "floor": {"mean": 0.12}})
    base["run"]["summary"]["metrics"]["cf"] = {"mean": 0.22}
    base["run"]["summary"]["noise_floor"]["cf"] = {"exceeds": True, "floor": {"mean": 0.08}}
    balanced = _group("none", [0.18, 0.21, 0.19]) | {"setting": "balanced"}
    adversarial = _group("none", [0.33, 0.29, 0.31]) | {"setting": "adversarial"}
    other_method = _group("inlp", [0.2, 0.2, 0.2]) | {"setting": "balanced"}  # not a base-encoder intervention
    text = "\n".join(answers_markdown(RECORDS, [base, balanced, adversarial, other_method], []))
    assert "TPRD 0.310, above its shuffled-gender noise floor (0.120); CF 0.220, above its same-gender renaming floor (0.080)." in text
    assert "balanced training (base encoder): TPRD -0.117 [" in text
    line = next(row for row in text.splitlines() if row.startswith("- balanced training"))
    assert line.endswith("(lower, beyond fold noise).")
    line = next(row for row in text.splitlines() if row.startswith("- adversarial training"))
    assert "TPRD +0.000 [" in line and line.endswith("(no difference beyond fold noise).")
    assert "inlp training" not in text and "- inlp: " not in text  # INLP has no original-data run here


def test_leakage_intervals_are_clipped_to_the_range_of_a_balanced_accuracy():
    groups = [_group("none", [0.3, 0.3, 0.3]),
              _group("inlp", [0.2, 0.2, 0.2], leakage={"mean": 0.99, "low": 0.96, "high": 1.02})]
    text = "\n".join(answers_markdown(RECORDS, groups, []))
    assert "0.99 balanced accuracy ([0.96, 1.00], above chance)" in text
