"""``probekit crows-pairs``, ``probekit stereoset`` and ``probekit seat --suite`` on tiny checkpoints."""

from __future__ import annotations

import json

import pytest

from probekit.cli.main import main
from tests.unit.test_crows_pairs import _write_csv
from tests.unit.test_stereoset import _write as _write_stereoset


def test_crows_pairs_cli(tiny_checkpoints, tmp_path, capsys):
    data = _write_csv(tmp_path / "crows.csv")
    code = main(["crows-pairs", "--model", str(tiny_checkpoints["mlm"]), "--data", str(data), "--out", str(tmp_path / "o"),
                 "--device", "cpu", "--no-progress"])
    assert code == 0
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    assert {"stereotype_score", "stereo_score", "antistereo_score"} <= set(saved["overall"])
    assert "gender" in saved["by_bias_type"] and (tmp_path / "o" / "pairs.csv").is_file()
    assert (tmp_path / "o" / "summary.md").is_file()


def test_headless_checkpoint_exits_2_with_one_line(tiny_checkpoints, tmp_path, capsys):
    data = _write_csv(tmp_path / "crows.csv")
    code = main(["crows-pairs", "--model", str(tiny_checkpoints["base"]), "--data", str(data), "--out", str(tmp_path / "o"),
                 "--device", "cpu", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "masked-LM head" in err[0] and err[0].startswith("probekit crows-pairs: error:")


def test_stereoset_cli(tiny_checkpoints, tmp_path):
    data = _write_stereoset(tmp_path / "dev.json")
    code = main(["stereoset", "--model", str(tiny_checkpoints["mlm"]), "--data", str(data), "--out", str(tmp_path / "o"),
                 "--device", "cpu", "--no-progress", "--n-resamples", "20"])
    assert code == 0
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    assert {"lm_score", "ss_score", "icat"} <= set(saved["overall"]) and "gender" in saved["by_domain"]


def test_seat_suite_cli(tiny_checkpoints, tmp_path, monkeypatch, capsys):
    suite = tmp_path / "suite"
    suite.mkdir()
    roles = {"targ1": ["rose", "tulip", "daisy"], "targ2": ["ant", "wasp", "moth"], "attr1": ["love", "peace"], "attr2": ["hate", "war"]}
    (suite / "tiny1.jsonl").write_text(json.dumps({k: {"category": k, "examples": v} for k, v in roles.items()}))
    args = ["seat", "--suite", "all", "--model", str(tiny_checkpoints["base"]), "--out", str(tmp_path / "o"),
            "--device", "cpu", "--no-progress", "--n-bootstrap", "10", "--two-sided"]
    monkeypatch.delenv("PROBEKIT_SEAT_SUITE", raising=False)
    assert main(args) == 2 and "PROBEKIT_SEAT_SUITE" in capsys.readouterr().err
    monkeypatch.setenv("PROBEKIT_SEAT_SUITE", str(suite))
    assert main(args) == 0
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    assert saved["overall"]["n_tests"] == 1 and saved["overall"]["alternative"] == "two-sided"


@pytest.mark.parametrize("command", ["crows-pairs", "stereoset"])
def test_missing_data_file_exits_2(command, tmp_path, capsys):
    assert main([command, "--data", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert "error:" in capsys.readouterr().err
