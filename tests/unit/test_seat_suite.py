"""The SEAT suite: the reader on the published release (../shared/reference/seat_suite, read in place,
never copied), and each test's numbers against a computation by hand from raw transformers outputs."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import torch

from probekit.errors import InputFileError, InvalidParameterError
from probekit.intrinsic import read_seat_suite, read_seat_test, run_seat_suite

WEAT_NAMES = [f"weat{k}" for k in range(1, 11)] + ["weat3b", "weat5b", "weat6b", "weat7b", "weat8b"]


@pytest.fixture(scope="module")
def seat_dir(shared_reference):
    path = shared_reference / "seat_suite"
    if not path.is_dir():
        pytest.skip("../shared/reference/seat_suite (the published SEAT release, CC BY-NC 4.0) is not present")
    return path


def test_reader_loads_the_published_release(seat_dir):
    suite = read_seat_suite(seat_dir)
    names = [t.name for t in suite]
    assert set(WEAT_NAMES) | {f"sent-{n}" for n in WEAT_NAMES} <= set(names)
    assert {"angry_black_woman_stereotype", "heilman_double_bind_competent_one_word", "sent-heilman_double_bind_likable_one_word"} <= set(names)
    assert names.index("weat9") < names.index("weat10")  # natural order, as the public runner sorts
    weat6 = read_seat_test(seat_dir / "sent-weat6.jsonl")
    assert weat6.categories == {"X": "MaleNames", "Y": "FemaleNames", "A": "Career", "B": "Family"}
    assert (len(weat6.examples["X"]), len(weat6.examples["A"]), len(weat6.examples["B"])) == (64, 101, 112)
    assert weat6.examples["X"][0] == "This is John."
    assert [t.name for t in read_seat_suite(seat_dir, tests=["weat7", "weat6"])] == ["weat7", "weat6"]
    with pytest.raises(InvalidParameterError, match="tests"):
        read_seat_suite(seat_dir, tests=["weat99"])


def _embed_by_hand(encoder, texts):
    tokenizer, model = encoder.tokenizer, encoder.model
    rows = []
    for text in texts:
        inputs = tokenizer(text, return_tensors="pt", return_special_tokens_mask=True)
        keep = inputs.pop("special_tokens_mask")[0] == 0
        with torch.no_grad():
            states = model(**inputs).last_hidden_state[0].double()
        rows.append(states[keep].mean(0).numpy())
    return np.stack(rows)


def _stat_by_hand(s, in_x):
    return s[in_x].sum() - s[~in_x].sum()


def test_published_test_equals_hand_computation(seat_dir, tiny_encoder):
    result = run_seat_suite(tiny_encoder, seat_dir, tests=["weat6", "weat8b"], alternative="two-sided",
                            n_bootstrap=50, progress=False)
    assert result.overall["n_tests"] == 2
    for row in result.tests:
        test = read_seat_test(seat_dir / f"{row['test']}.jsonl")
        X, Y, A, B = (_embed_by_hand(tiny_encoder, test.examples[r]) for r in "XYAB")
        unit = [m / np.linalg.norm(m, axis=1, keepdims=True) for m in (X, Y, A, B)]
        W = np.vstack(unit[:2])
        s = (W @ unit[2].T).mean(1) - (W @ unit[3].T).mean(1)
        n_x = len(X)
        effect = (s[:n_x].mean() - s[n_x:].mean()) / s.std(ddof=1)
        assert row["effect_size"] == pytest.approx(effect, abs=1e-5)
        # exact two-sided p by enumerating every re-partition (C(16, 8) = 12870)
        observed = s[:n_x].sum() - s[n_x:].sum()
        stats_all = []
        for chosen in itertools.combinations(range(len(s)), n_x):
            in_x = np.zeros(len(s), bool)
            in_x[list(chosen)] = True
            stats_all.append(_stat_by_hand(s, in_x))
        stats_all = np.asarray(stats_all)
        tol = 1e-10 * max(1.0, abs(observed))
        p_ge, p_le = np.mean(stats_all >= observed - tol), np.mean(stats_all <= observed + tol)
        assert row["exact"] and row["p_greater"] == pytest.approx(p_ge)
        assert row["p_value"] == pytest.approx(min(1.0, 2 * min(p_ge, p_le)))
        assert row["ci_low"] <= row["effect_size"] <= row["ci_high"]
    assert result.overall["mean_abs_effect_size"] == pytest.approx(np.mean([abs(r["effect_size"]) for r in result.tests]))


def test_small_suite_written_here_and_outputs(tiny_encoder, tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    roles = {"targ1": ["rose", "tulip", "daisy"], "targ2": ["ant", "wasp", "moth"], "attr1": ["love", "peace"], "attr2": ["hate", "war"]}
    (suite / "tiny1.jsonl").write_text(json.dumps({k: {"category": k.upper(), "examples": v} for k, v in roles.items()}))
    (suite / "tiny10.jsonl").write_text(json.dumps({k: {"category": k, "examples": v[::-1]} for k, v in roles.items()}))
    result = run_seat_suite(tiny_encoder, suite, n_bootstrap=20, progress=False)
    assert [r["test"] for r in result.tests] == ["tiny1", "tiny10"]
    assert result.overall["alternative"] == "greater"
    paths = result.save(tmp_path / "out")
    saved = json.loads(paths["results"].read_text())
    assert saved["overall"]["mean_abs_effect_size"] == pytest.approx(result.overall["mean_abs_effect_size"])
    assert "tiny10" in paths["summary"].read_text() and paths["tests"].read_text().count("\n") == 3
    (suite / "broken.jsonl").write_text(json.dumps({"targ1": {"examples": ["a"]}}))
    with pytest.raises(InputFileError, match="targ1"):
        read_seat_suite(suite)
    with pytest.raises(InvalidParameterError, match="alternative"):
        run_seat_suite(tiny_encoder, suite, tests=["tiny1"], alternative="less")
