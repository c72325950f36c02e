"""``probekit probe`` / ``compare`` and the suite behind them, on tiny random checkpoints."""

from __future__ import annotations

import json

import numpy as np
import pytest

from probekit._probe_suite import run_probe_suite
from probekit.cli.main import main

FAST = dict(max_per_word=3, standard_tests=["weat8b"], n_permutations=200, n_bootstrap=20, n_randomizations=10)
FAST_CLI = ["--max-per-word", "3", "--seat-tests", "weat8b", "--permutations", "200", "--bootstrap", "20",
            "--randomizations", "10", "--no-progress"]


def test_suite_with_masked_lm_head_runs_lpbs(tiny_mlm_encoder):
    result = run_probe_suite(tiny_mlm_encoder, progress=False, random_state=3, **FAST).to_dict()
    assert set(result) >= {"seat", "lpbs", "probe", "provenance"}
    for key in ("statistic", "effect_size", "p_value"):
        assert np.isfinite(result["seat"][key])
    assert result["lpbs"]["status"] == "ok"
    assert np.isfinite(result["lpbs"]["attr_lpbs"]) and np.isfinite(result["lpbs"]["target_lpbs"])
    for key in ("gender_accuracy", "stereotype_accuracy", "stereotype_confidence", "randomization_p_value"):
        assert key in result["probe"]
    train = set(result["probe"]["train_words"]["female"]) | set(result["probe"]["train_words"]["male"])
    test = set(result["probe"]["test_words"]["female"]) | set(result["probe"]["test_words"]["male"])
    assert train and test and not train & test
    assert result["provenance"]["model"]["fingerprint"] == tiny_mlm_encoder.fingerprint
    # "maid" is in the paper's attribute and stereotype lists: it is never trained on
    assert result["words"]["removed_from_attributes_as_stereotypes"] == ["maid"]
    assert "maid" not in train | test
    assert "maid" not in result["words"]["female_attributes"]
    assert set(result["provenance"]["wordlists"]) >= {"female_attributes", "male_stereotypes"}
    # at most max_per_word occurrences' sentences per word (a word may occur twice in one sentence)
    assert result["words"]["occurrences"]["stereotypes"] <= 2 * 3 * len(
        result["words"]["female_stereotypes"] + result["words"]["male_stereotypes"]
    )


def test_same_seed_same_numbers(tiny_encoder):
    first = run_probe_suite(tiny_encoder, progress=False, random_state=5, **FAST).to_dict()
    second = run_probe_suite(tiny_encoder, progress=False, random_state=5, **FAST).to_dict()
    for part in ("seat", "probe"):
        assert json.dumps(first[part], sort_keys=True) == json.dumps(second[part], sort_keys=True)
    assert first["lpbs"]["status"] == "skipped" and "masked-LM head" in first["lpbs"]["reason"]


def test_probe_cli_writes_results_summary_and_chart(tiny_checkpoints, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["probe", "--model", str(tiny_checkpoints["base"]), "--out", str(out), *FAST_CLI]) == 0
    results = json.loads((out / "results.json").read_text())
    assert set(results) >= {"seat", "lpbs", "probe", "provenance"}
    assert results["lpbs"]["status"] == "skipped"
    summary = (out / "summary.md").read_text()
    assert "Table 1" in summary and "Table 2" in summary and "skipped" in summary
    assert (out / "probe.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Stereotype acc." in capsys.readouterr().out


def test_compare_cli_one_table_and_reuse(tiny_checkpoints, tmp_path, capsys):
    out = tmp_path / "cmp"
    args = ["compare", str(tiny_checkpoints["base"]), str(tiny_checkpoints["mlm"]), "--out", str(out), *FAST_CLI]
    assert main(args) == 0
    table = (out / "comparison.md").read_text()
    assert table.count("| " + str(tiny_checkpoints["base"]) + " |") == 3  # a row in Tables 1, 2 and the SEAT tests
    assert (out / "comparison.png").is_file()
    capsys.readouterr()
    assert main(args) == 0
    assert capsys.readouterr().out.count("reusing") == 2


@pytest.mark.parametrize("args, message", [
    (["--permutations", "0"], "--permutations"),
    (["--seat-tests", "weat99"], "weat99"),
    (["--layer", "7"], "--layer"),
])
def test_probe_cli_bad_input(tiny_checkpoints, tmp_path, capsys, args, message):
    out = tmp_path / "bad"
    code = main(["probe", "--model", str(tiny_checkpoints["base"]), "--out", str(out), *FAST_CLI, *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not (out / "results.json").exists()
