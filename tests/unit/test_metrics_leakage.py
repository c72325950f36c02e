"""``probekit metrics --representations``: a fine-tuning fold's leakage recomputed from its saved
representations equals the leakage in its fold.json exactly, and the command saved in fold.json
reproduces it; bad inputs are refused with a message naming the option, and nothing is written."""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest
import torch

from probekit.cli.main import main
from probekit.finetune import FinetuneConfig, make_synthetic_bios, run_finetune


@pytest.fixture(scope="module")
def finetuned(tiny_encoder, tmp_path_factory):
    """A 2-fold fine-tuning run of a tiny random model (seed 3, so --seed matters)."""
    data = make_synthetic_bios(40, 8, professions=["nurse", "surgeon"], cue_strength=1.0, random_state=0)["train"]
    config = FinetuneConfig(epochs=1, batch_size=8, learning_rate=1e-3, max_length=32, device="cpu", seed=3)
    torch.manual_seed(0)
    out = tmp_path_factory.mktemp("metrics-leakage") / "run"
    result = run_finetune(tiny_encoder, data, folds=2, config=config, out_dir=out, progress=False, data_name="synthetic")
    return out, result


def test_recomputed_leakage_equals_the_fold_json_exactly(finetuned, tmp_path, capsys):
    out, result = finetuned
    for fold in result.folds:
        saved = json.loads((out / "folds" / f"fold-{fold['fold']:02d}" / "fold.json").read_text())
        target = tmp_path / f"{fold['fold']}.json"
        rc = main(["metrics", str(out / fold["files"]["original"]), "--representations",
                   str(out / fold["files"]["representations"]), "--seed", "3", "--out", str(target)])
        assert rc == 0
        report = json.loads(target.read_text())
        assert report["leakage"] == saved["leakage"]  # every number, interval, C and MDL bit count
        assert report["settings"]["input"]["leakage_seed"] == 3
        printed = capsys.readouterr().out
        bacc = saved["leakage"]["representation"]["balanced_accuracy"]
        assert "Leakage" in printed and (f"{bacc:.4f}" if bacc is not None else "nan") in printed
    other = tmp_path / "seed0.json"  # another seed: another split, so the recorded seed matters
    assert main(["metrics", str(out / result.folds[0]["files"]["original"]), "--representations",
                 str(out / result.folds[0]["files"]["representations"]), "--out", str(other)]) == 0
    assert json.loads(other.read_text())["leakage"]["representation"]["random_state"] == 0
    capsys.readouterr()


def test_the_saved_command_reproduces_the_fold_leakage(finetuned, tmp_path, monkeypatch, capsys):
    out, result = finetuned
    monkeypatch.chdir(out)
    for fold in result.folds:
        command = fold["metrics_commands"]["original"]
        assert "--representations" in command and "--seed 3" in command
        target = tmp_path / f"{fold['fold']}.json"
        assert main([*shlex.split(command)[1:], "--out", str(target)]) == 0
        report = json.loads(target.read_text())
        assert report["leakage"] == fold["leakage"]
        assert report["metrics"]["tprd"] == pytest.approx(fold["metrics"]["tprd"], abs=1e-12)
    capsys.readouterr()


def _npz(path, **arrays):
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    return path


@pytest.mark.parametrize("case", ["missing", "directory", "not-npz", "keys", "rows", "gender", "shape"])
def test_bad_representations_exit_2_naming_the_option_and_write_nothing(finetuned, tmp_path, capsys, case):
    out, result = finetuned
    fold = result.folds[0]
    original = out / fold["files"]["original"]
    saved = dict(np.load(out / fold["files"]["representations"], allow_pickle=False))
    n = len(saved["gender"])
    if case == "missing":
        npz = tmp_path / "absent.npz"
    elif case == "directory":
        npz = tmp_path
    elif case == "not-npz":
        npz = tmp_path / "x.npz"
        npz.write_text("not an npz")
    elif case == "keys":
        npz = _npz(tmp_path / "x.npz", pooled=saved["pooled"], gender=saved["gender"])
    elif case == "rows":
        npz = _npz(tmp_path / "x.npz", **{k: v[: n - 1] for k, v in saved.items()})
    elif case == "gender":
        npz = _npz(tmp_path / "x.npz", **(saved | {"gender": saved["gender"][::-1].copy()
                                                   if (saved["gender"][::-1] != saved["gender"]).any()
                                                   else np.where(saved["gender"] == "female", "male", "female")}))
    else:
        npz = _npz(tmp_path / "x.npz", **(saved | {"pooled": saved["pooled"][:, 0]}))
    target = tmp_path / "out.json"
    rc = main(["metrics", str(original), "--representations", str(npz), "--out", str(target)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "--representations" in err and "Traceback" not in err
    assert not target.exists()
