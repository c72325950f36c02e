"""SEAT sentence pooling: ``"mean-with-special"`` is the public code's definition (sent-bias,
bias-bench: ``model(**tokenizer(text)).last_hidden_state.mean(dim=1)``, [CLS] and [SEP] included),
checked against raw transformers outputs; the default ``"mean"`` leaves the special tokens out."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from probekit.cli.main import main
from probekit.embedding import embed_sentences
from probekit.errors import InvalidParameterError
from probekit.intrinsic import SEAT_POOLINGS, SeatSuiteTest, run_seat_suite

SENTENCES = ["This is John.", "Amy is here.", "That is a tulip and a daisy.", "war", "Peace is good.", "hate"]
ROLES = {
    "X": ("This is John.", "Here is Tom.", "That is Paul."),
    "Y": ("Amy is here.", "This is Sarah.", "That is Lisa."),
    "A": ("This is a career.", "Salary matters.", "An office."),
    "B": ("This is a family.", "Home is here.", "Children play."),
}


def _public_code_vectors(encoder, texts):
    """Each text alone, the last layer averaged over every position (special tokens included)."""
    rows = []
    for text in texts:
        with torch.no_grad():
            state = encoder.model(**encoder.tokenizer(text, return_tensors="pt")).last_hidden_state
        rows.append(state.mean(dim=1)[0].double().numpy())
    return np.stack(rows)


def _effect_size(X, Y, A, B):
    unit = [m / np.linalg.norm(m, axis=1, keepdims=True) for m in (X, Y, A, B)]
    W = np.vstack(unit[:2])
    s = (W @ unit[2].T).mean(1) - (W @ unit[3].T).mean(1)
    return (s[: len(X)].mean() - s[len(X):].mean()) / s.std(ddof=1)


def test_mean_with_special_equals_raw_transformers(tiny_encoder):
    ours = embed_sentences(tiny_encoder, SENTENCES, pooling="mean-with-special", progress=False, batch_tokens=64)
    want = _public_code_vectors(tiny_encoder, SENTENCES)
    np.testing.assert_allclose(ours, want, atol=1e-6, rtol=0)
    default = embed_sentences(tiny_encoder, SENTENCES, progress=False)
    assert np.abs(default - ours).max() > 1e-3  # special tokens change the average


def test_suite_pooling_option_and_provenance(tiny_encoder, tmp_path):
    test = SeatSuiteTest("tiny", {r: r for r in "XYAB"}, {r: ROLES[r] for r in "XYAB"})
    settings = dict(n_bootstrap=0, n_permutations=1000, progress=False)
    public = run_seat_suite(tiny_encoder, [test], pooling="mean-with-special", **settings)
    default = run_seat_suite(tiny_encoder, [test], **settings)
    want = _effect_size(*(_public_code_vectors(tiny_encoder, ROLES[r]) for r in "XYAB"))
    assert public.tests[0]["effect_size"] == pytest.approx(want, abs=1e-5)
    assert abs(default.tests[0]["effect_size"] - public.tests[0]["effect_size"]) > 1e-4
    assert public.overall["pooling"] == "mean-with-special" and default.overall["pooling"] == "mean"
    assert public.provenance["parameters"]["pooling"] == "mean-with-special"
    public.save(tmp_path / "o")
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    assert saved["provenance"]["parameters"]["pooling"] == "mean-with-special"
    assert "mean-with-special" in (tmp_path / "o" / "summary.md").read_text()
    with pytest.raises(InvalidParameterError, match="pooling"):
        run_seat_suite(tiny_encoder, [test], pooling="max", **settings)
    assert "mean-with-special" in SEAT_POOLINGS


def test_cli_pooling_flag(tiny_checkpoints, tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    names = {"X": "targ1", "Y": "targ2", "A": "attr1", "B": "attr2"}
    (suite / "tiny.jsonl").write_text(json.dumps({names[r]: {"category": r, "examples": list(ROLES[r])} for r in "XYAB"}))
    code = main(["seat", "--suite", str(suite), "--model", str(tiny_checkpoints["base"]), "--out", str(tmp_path / "o"),
                 "--device", "cpu", "--no-progress", "--n-bootstrap", "0", "--pooling", "mean-with-special"])
    assert code == 0
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    assert saved["overall"]["pooling"] == "mean-with-special"
    assert saved["provenance"]["parameters"]["pooling"] == "mean-with-special"


def _compare_script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "compare_debiasing.py"
    spec = importlib.util.spec_from_file_location("compare_debiasing_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compare_script_table_shows_seat_change_and_head_skips():
    script = _compare_script()
    seat = lambda mean: {"overall": {"mean_abs_effect_size": mean, "n_tests": 46, "n_significant_05": 20,  # noqa: E731
                                     "pooling": "mean"}}
    skipped = {"benchmark": "pppl", "skipped": True, "reason": script.NO_HEAD}
    rows = [("base", {"_has_head": False, "seat_suite": seat(0.5), "pppl": skipped}),
            ("inlp", {"_has_head": False, "seat_suite": seat(0.25), "pppl": skipped}),
            ("cda", {"_has_head": True, "seat_suite": seat(0.75),
                     "pppl": {"overall": {"pppl": 12.345}}})]
    table = script.benchmarks_markdown(rows)
    lines = {line.split(" | ")[0].strip("| "): line for line in table.splitlines() if line.startswith("| ")}
    assert "| 0.500 | — | 20 / 46 | skipped: no masked-LM head |" in lines["base"]  # CrowS not given, no head
    assert "| 0.250 | -0.250 |" in lines["inlp"] and lines["inlp"].count("skipped: no masked-LM head") == 5
    assert "| 0.750 | +0.250 |" in lines["cda"] and "| not run |" in lines["cda"] and lines["cda"].endswith("| 12.35 |")
    assert "change vs base" in table and "sentence pooling mean" in table
