"""The report's benchmark tables (SEAT suite, StereoSet, CrowS-Pairs, significance) and LaTeX output,
from small JSON/CSV files written here."""

import csv
import json
import re

import numpy as np
import pytest
from scipy import stats

from probekit.report import (
    benchmark_models,
    benchmark_tables,
    build_report,
    find_benchmark_runs,
    latex_escape,
    latex_table,
    markdown_tables,
)


def _write(directory, results, rows, csv_name):
    directory.mkdir(parents=True)
    (directory / "results.json").write_text(json.dumps(results))
    if rows:
        with open(directory / csv_name, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def _provenance(fingerprint, name, checkpoint=None):
    return {"model": {"fingerprint": fingerprint, "name_or_path": name}, **({"checkpoint": checkpoint} if checkpoint else {})}


BASE_OUTCOMES = [1, 1, 1, 1, 1, 0, 0.5, 1, 0, 1]
DEBIASED_OUTCOMES = [0, 0, 0, 1, 1, 1, 0.5, 0, 0, 1]


def _crows(directory, outcomes, provenance):
    rows = [{"row": k, "bias_type": "gender" if k < 6 else "race", "stereo_antistereo": "stereo", "sent_more": "a",
             "sent_less": "b", "sent_more_score": -1.0, "sent_less_score": -2.0, "outcome": o} for k, o in enumerate(outcomes)]
    k = sum(o == 1 for o in outcomes)
    overall = {"stereotype_score": 100 * k / len(outcomes), "ci_low": 10.0, "ci_high": 90.0, "p_value": 0.5, "n_pairs": len(outcomes)}
    _write(directory, {"benchmark": "crows_pairs", "overall": overall, "by_bias_type": {"gender": overall},
                       "provenance": provenance}, rows, "pairs.csv")


def _stereoset(directory, pro, related, provenance, lms, ss):
    rows = [{"id": f"c{k}", "bias_type": "gender", "target": f"t{k % 2}", "stereotype_preferred": p,
             "n_related_above_unrelated": r} for k, (p, r) in enumerate(zip(pro, related))]
    part = {"lm_score": lms, "ss_score": ss, "icat": lms * min(ss, 100 - ss) / 50, "n_contexts": len(pro),
            "lm_score_ci": [lms - 5, lms + 5], "ss_score_ci": [ss - 5, ss + 5], "icat_ci": [1, 2]}
    _write(directory, {"benchmark": "stereoset_intrasentence", "overall": part, "by_domain": {"gender": part},
                       "provenance": provenance}, rows, "examples.csv")


def _seat(directory, effects, provenance):
    tests = [{"test": f"weat{k}", "effect_size": d, "p_value": 0.1} for k, d in enumerate(effects, start=1)]
    _write(directory, {"benchmark": "seat_suite", "tests": tests, "provenance": provenance,
                       "overall": {"mean_abs_effect_size": float(np.mean(np.abs(effects))), "n_tests": len(effects)}},
           [{"test": t["test"], "effect_size": t["effect_size"]} for t in tests], "tests.csv")


@pytest.fixture
def benchmark_dir(tmp_path):
    root = tmp_path / "cmp"
    base = _provenance("fp-base", "bert_base & co")
    deb = _provenance("fp-cda", "runs/cda", {"label": "cda (cda_run)", "method": "cda", "base_fingerprint": "fp-base"})
    _crows(root / "base" / "crows-pairs", BASE_OUTCOMES, base)
    _crows(root / "cda" / "crows-pairs", DEBIASED_OUTCOMES, deb)
    _stereoset(root / "base" / "stereoset", [1, 1, 1, 0], [2, 2, 1, 2], base, 87.5, 75.0)
    _stereoset(root / "cda" / "stereoset", [1, 0, 1, 0], [2, 1, 1, 2], deb, 75.0, 50.0)
    _seat(root / "base" / "seat-suite", [0.8, -0.4, 0.6], base)
    _seat(root / "cda" / "seat-suite", [0.2, -0.1, 0.9], deb)
    return root


def test_runs_models_and_base(benchmark_dir):
    runs = find_benchmark_runs(benchmark_dir)
    assert len(runs) == 6 and all(r["rows"] for r in runs)
    models = benchmark_models(runs)
    assert [m["label"] for m in models] == ["bert_base & co", "cda (cda_run)"]
    assert models[1]["base"] == "bert_base & co" and models[1]["base_how"] == "recorded base fingerprint"


def test_tables_values(benchmark_dir):
    tables = {t.key: t for t in benchmark_tables(find_benchmark_runs(benchmark_dir), n_bootstrap=200)}
    assert set(tables) == {"seat-suite", "stereoset", "crows-pairs", "benchmark-significance"}
    seat = tables["seat-suite"]
    assert seat.header == ["Test", "bert_base & co d", "cda (cda_run) d", "cda (cda_run) Δ|d|"]
    assert seat.rows[0] == ["weat1", "0.800", "0.200", "-0.600"]
    assert seat.rows[2][3] == "+0.300"
    assert seat.rows[-1][1] == "0.600" and seat.rows[-1][3] == f"{0.4 - 0.6:+.3f}"
    stereo = tables["stereoset"].rows
    cda_overall = next(r for r in stereo if r[0] == "cda (cda_run)" and r[1] == "overall")
    assert cda_overall[4] == "-12.500" and cda_overall[6] == "-25.000" and cda_overall[9] == "-25.000"
    crows = next(r for r in tables["crows-pairs"].rows if r[0] == "cda (cda_run)" and r[1] == "overall")
    assert crows[4] == "10.00" and crows[5] == "-10.000"  # |40 - 50| against |70 - 50|
    significance = tables["benchmark-significance"].records
    score = next(r for r in significance if r["benchmark"] == "crows_pairs" and r["measure"] == "stereotype score")
    assert score["base"] == pytest.approx(70.0) and score["other"] == pytest.approx(40.0)
    assert score["difference"] == pytest.approx(-30.0) and score["ci_low"] <= -30 <= score["ci_high"]
    # pairs 0, 1, 2, 7 flip away from the stereotype, pair 5 towards it (the tie counts as not preferred)
    assert (score["mcnemar_b"], score["mcnemar_c"]) == (4, 1)
    assert score["mcnemar_p_value"] == pytest.approx(stats.binomtest(4, 5, 0.5).pvalue)
    ss = next(r for r in significance if r["benchmark"] == "stereoset_intrasentence" and r["measure"] == "SS")
    # terms t0 (c0, c2) and t1 (c1, c3): base SS = mean(100, 50) = 75, debiased mean(100, 0) = 50
    assert (ss["base"], ss["other"]) == pytest.approx((75.0, 50.0))
    lms = next(r for r in significance if r["measure"] == "LMS")
    assert (lms["base"], lms["other"]) == pytest.approx((87.5, 75.0))
    seat_row = next(r for r in significance if r["benchmark"] == "seat_suite")
    assert seat_row["difference"] == pytest.approx(0.4 - 0.6)


def test_report_writes_benchmark_tables_and_latex(benchmark_dir):
    out = build_report(benchmark_dir, n_bootstrap=50)
    text = (out / "report.md").read_text()
    assert "Standard benchmarks" in text and "McNemar" in text
    assert "cda (cda_run): base bert_base & co (recorded base fingerprint)" in text
    tex = sorted((out / "tables").glob("*.tex"))
    assert len(tex) == len(markdown_tables(text)) >= 4
    body = "\n".join(p.read_text() for p in tex)
    assert r"bert\_base \& co" in body and "\\toprule" in body and "\\bottomrule" in body
    assert (out / "tables" / "benchmark_significance.csv").is_file()


def test_latex_escapes_and_booktabs():
    assert latex_escape("a & b % c _ d # e") == r"a \& b \% c \_ d \# e"
    assert latex_escape("0.1 ± 0.2 — Δ|d|") == r"0.1 $\pm$ 0.2 --- $\Delta$\textbar{}d\textbar{}"
    assert latex_escape("**bold** `x_y`") == r"\textbf{bold} \texttt{x\_y}"
    text = latex_table(["Model", "50%"], [["a_b", "1 & 2"], ["#3"]], caption="T & C", label="tab:x y")
    lines = text.splitlines()
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    assert r"Model & 50\% \\" in lines and r"a\_b & 1 \& 2 \\" in lines and r"\# 3 & \\" not in lines
    assert r"\#3 &  \\" in lines and r"\caption{T \& C}" in lines and r"\label{tab:x-y}" in lines
    assert re.search(r"\\begin\{tabular\}\{lr\}", text)


def test_markdown_tables_read_back_pipes():
    tables = markdown_tables("## T\n\n| a | b |\n|---|---:|\n| x \\| y | 1 |\n\ntext\n")
    assert tables == [{"title": "T", "header": ["a", "b"], "rows": [["x | y", "1"]], "align": "lr"}]
