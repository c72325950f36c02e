"""``probekit probe --readers`` and ``compare``: the readers' verdict per layer, on tiny random checkpoints."""

from __future__ import annotations

import json

from probekit.cli.main import main
from probekit.report import upper_bound_runs, verdict_comparison_markdown

CLI = ["--max-per-word", "3", "--seat-tests", "", "--permutations", "200", "--bootstrap", "50",
       "--randomizations", "10", "--no-progress"]


def test_probe_cli_readers_verdict_per_layer(tiny_checkpoints, tmp_path, capsys):
    out = tmp_path / "readers"
    assert main(["probe", "--model", str(tiny_checkpoints["base"]), "--out", str(out), "--layers", "all",
                 "--readers", "mlp,linear", *CLI]) == 0
    results = json.loads((out / "results.json").read_text())
    rows = results["per_layer"]["rows"]
    for row in rows:
        assert set(row["readers"]) == {"linear", "mlp"}
        assert row["verdict"]["verdict"] in {"removed", "linearly hidden", "present"}
        assert "linear" in row["verdict"]["mdl_compression"] and "mlp" in row["verdict"]["mdl_compression"]
        mlp = row["readers"]["mlp"]
        assert mlp["control_balanced_accuracy"] is not None
        assert abs(mlp["selectivity"] - (mlp["balanced_accuracy"] - mlp["control_balanced_accuracy"])) < 1e-12
    # the linear reader uses the gender probe's held-out words
    linear = results["readers"]["linear"]
    assert linear["n_test"] == results["probe"]["n_test"]
    assert results["verdict"] == rows[-1]["verdict"]
    assert results["provenance"]["parameters"]["readers"] == ["linear", "mlp"]
    summary = (out / "summary.md").read_text()
    assert "## Removed or hidden?" in summary and "Rule:" in summary and "MLP control / selectivity" in summary
    assert (out / "verdict_layers.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()


def test_probe_default_verdict_comes_from_the_gender_probe(tiny_checkpoints, tmp_path, capsys):
    out = tmp_path / "default"
    assert main(["probe", "--model", str(tiny_checkpoints["base"]), "--out", str(out), *CLI]) == 0
    results = json.loads((out / "results.json").read_text())
    assert list(results["readers"]) == ["linear"]
    assert results["readers"]["linear"]["balanced_accuracy"] == results["probe"]["gender_accuracy_balanced"]
    assert results["verdict"]["readers_run"] == ["linear"] and "linearly removed" in results["verdict"]["rule"]
    assert results["provenance"]["parameters"]["readers"] is None
    capsys.readouterr()


def test_compare_cli_verdict_table_and_figure(tiny_checkpoints, tmp_path, capsys):
    out = tmp_path / "cmp"
    args = ["compare", str(tiny_checkpoints["base"]), str(tiny_checkpoints["mlm"]), "--out", str(out),
            "--readers", "linear,kernel", "--layers", "0,-1", "--no-mdl", *CLI]
    assert main(args) == 0
    table = (out / "comparison.md").read_text()
    section = table[table.index("Removed or hidden? (readers' verdict)"):]
    assert "| layer 0 | layer 2 |" in section and section.count(str(tiny_checkpoints["base"])) >= 1
    assert (out / "figures" / "verdict_layers.png").is_file()
    capsys.readouterr()


def test_probe_cli_bad_readers(tiny_checkpoints, tmp_path, capsys):
    code = main(["probe", "--model", str(tiny_checkpoints["base"]), "--out", str(tmp_path / "bad"), *CLI,
                 "--readers", "linear,forest"])
    err = capsys.readouterr().err
    assert code == 2 and "--readers" in err and "Traceback" not in err


def test_probe_and_compare_cli_upper_bounds_after_label_aware_erasers(tiny_checkpoints, tmp_path, capsys):
    out = tmp_path / "bounds"
    assert main(["probe", "--model", str(tiny_checkpoints["base"]), "--out", str(out), "--layers", "0",
                 "--upper-bounds", "quadratic-leace,oracle-leace", "--eraser-folds", "2", "--no-mdl", *CLI]) == 0
    results = json.loads((out / "results.json").read_text())
    assert list(results["upper_bounds"]) == ["oracle-leace", "quadratic-leace"]
    n_occurrences = results["words"]["occurrences"]["attributes"]
    for bound in results["upper_bounds"].values():
        assert [row["layer"] for row in bound["rows"]] == [0, 2]  # the probed layer and the headline (last)
        for row in bound["rows"]:
            assert row["readers"]["linear"]["n_test"] == n_occurrences  # every occurrence, out of fold
            assert row["verdict"]["erasure_check"]["n_folds"] == 2 and row["verdict"]["erasure_check"]["word_disjoint"]
    assert results["provenance"]["parameters"]["upper_bounds"] == ["oracle-leace", "quadratic-leace"]
    summary = (out / "summary.md").read_text()
    assert "## Upper bounds: label-aware erasers (not deployable)" in summary
    assert "After oracle LEACE (upper bound)" in summary and "not a deployable method" in summary
    # compare lays each bound out as a row of the methods x layers verdict table (cli/compare.py)
    table = verdict_comparison_markdown([("base", results), *upper_bound_runs([("base", results)])])
    assert "| base + oracle LEACE (upper bound) |" in table and "| base + quadratic LEACE (upper bound) |" in table
    code = main(["probe", "--model", str(tiny_checkpoints["base"]), "--out", str(tmp_path / "bad"), *CLI,
                 "--upper-bounds", "leace"])
    err = capsys.readouterr().err
    assert code == 2 and "--upper-bounds" in err and "oracle-leace,quadratic-leace" in err and "Traceback" not in err
