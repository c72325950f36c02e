"""The study runner on tiny random encoders: the grid end to end, SIGKILL and resume, shards,
--dry-run, config errors, the Ray backend, shared work built once."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from probekit.cli.main import main
from probekit.study import dry_run_lines, load_config, plan_units, run_study, shard_units
from tests.conftest import REPO_ROOT, build_tiny_model

CONFIG = """
[study]
name = "tiny"
methods = {methods}
settings = {settings}
folds = 2
intrinsic = {intrinsic}

{encoders}

[[datasets]]
name = "synth"
kind = "synthetic"
n_examples = 40
professions = ["nurse", "surgeon", "dietitian", "architect"]

[corpus]
frames_per_word = 2

[finetune]
frozen = true
max_length = 24

[intrinsic]
max_per_word = 4
n_permutations = 100
n_bootstrap = 20
n_randomizations = 5
standard_tests = []
C = 1.0
mdl = false

[methods.sent-debias]
max_sentences = 40

[methods.cda]
steps = 3
head_warmup_steps = 1
batch_size = 4

[run]
device = "cpu"
"""

VOLATILE = {"seconds", "wall_s", "provenance", "fold_seconds"}


#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """Two tiny random encoders without a masked-LM head (so the intrinsic suite skips LPBS)."""
    root = tmp_path_factory.mktemp("encoders")
    paths = []
    for seed in (0, 1):
        model, tokenizer = build_tiny_model("base", seed=seed)
        model.save_pretrained(root / f"enc{seed}")
        tokenizer.save_pretrained(root / f"enc{seed}")
        paths.append(root / f"enc{seed}")
    return paths


def write_config(path: Path, checkpoints, *, methods=("none", "sent-debias"), settings=("original", "scrubbed", "swapped"),
                 n_encoders=2, intrinsic=True, readers=None) -> Path:
    encoders = "\n".join(f'[[encoders]]\nlabel = "enc{i}"\nmodel = "{checkpoints[i].as_posix()}"\n' for i in range(n_encoders))
    text = CONFIG.format(methods=json.dumps(list(methods)), settings=json.dumps(list(settings)),
                         intrinsic=str(intrinsic).lower(), encoders=encoders)
    if readers is not None:  # [intrinsic] readers: also the nonlinear readers of downstream leakage
        text = text.replace("mdl = false\n", f"mdl = false\nreaders = {json.dumps(list(readers))}\n", 1)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def study(checkpoints, tmp_path_factory):
    """The 2-encoder x 2-method x 3-setting x 2-fold study, run once to the end (the reference)."""
    root = tmp_path_factory.mktemp("study")
    config_path = write_config(root / "study.toml", checkpoints)
    out = root / "out"
    summary = run_study(load_config(config_path), out)
    return config_path, out, summary


def unit_records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted((out / "units").glob("*.json"))}


def stable(value):
    """A unit record without timings and provenance (what must not differ between runs)."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def assert_close(a, b, rel=0.0, path="record"):
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), f"{path}: keys {sorted(set(a) ^ set(b))}"
        for key in a:
            assert_close(a[key], b[key], rel, f"{path}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_close(x, y, rel, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float) and rel:
        assert b == pytest.approx(a, rel=rel, abs=rel), path
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def test_study_runs_end_to_end(study):
    config_path, out, summary = study
    units = plan_units(load_config(config_path))
    assert summary.n_units == len(units) == 2 * 2 * (1 + 3 * 2) and summary.n_run == len(units) and not summary.failed
    records = unit_records(out)
    assert sorted(records) == sorted(u.id for u in units)
    manifest = json.loads((out / "study.json").read_text(encoding="utf-8"))
    assert [u["id"] for u in manifest["units"]] == [u.id for u in units]
    assert manifest["config"]["study"]["methods"] == ["none", "sent-debias"]
    kinds = {"intrinsic": 0, "finetune": 0}
    for unit in units:
        record = records[unit.id]
        assert set(record) == {"id", "kind", "params", "result", "provenance", "wall_s"}
        assert record["id"] == unit.id and record["kind"] == unit.kind and record["params"] == unit.params
        kinds[unit.kind] += 1
        if unit.kind == "intrinsic":
            assert {"seat", "lpbs", "probe", "words", "provenance"} <= set(record["result"])
            assert record["result"]["lpbs"]["status"] == "skipped"  # no masked-LM head
        else:
            result = record["result"]
            assert result["fold"] == unit.params["fold"] and result["setting"] == unit.params["setting"]
            assert 0.0 <= result["metrics"]["accuracy"] <= 1.0 and "tprd" in result["metrics"] and "cf" in result["metrics"]
            run_dir = out / record["provenance"]["parameters"]["run_dir"]
            assert (run_dir / result["files"]["augmented"]).is_file()
    assert kinds == {"intrinsic": 4, "finetune": 24}
    # shared work: one projection per encoder, built once; every fine-tuning run aggregated
    assert len(list((out / "shared" / "debiased").iterdir())) == 2
    assert len(list((out / "runs").glob("*/metrics.json"))) == 2 * 2 * 3
    # the projected encoder changed the numbers (sent-debias is not a copy of none)
    none = [r for r in records.values() if r["kind"] == "intrinsic" and r["params"]["method"] == "none"]
    debiased = [r for r in records.values() if r["kind"] == "intrinsic" and r["params"]["method"] == "sent-debias"]
    assert {r["params"]["encoder"] for r in none} == {"enc0", "enc1"}
    assert none[0]["result"]["seat"] != debiased[0]["result"]["seat"]
    # a rerun skips every finished unit and changes no file
    before = {p: p.stat().st_mtime_ns for p in (out / "units").iterdir()}
    again = run_study(load_config(config_path), out)
    assert again.n_already_done == len(units) and again.n_run == 0
    assert {p: p.stat().st_mtime_ns for p in (out / "units").iterdir()} == before



def test_metrics_json_and_the_study_report_hold_the_same_numbers(study, tmp_path):
    """One run summary (probekit.stats.summarize_run): each run's metrics.json and the study report's
    group of the same fold units agree number for number (the report's JSON and its CSV rows)."""
    from probekit.report import build_report, finetune_groups
    from probekit.utils import dumps_json

    _, out, _ = study
    units = [r for r in unit_records(out).values() if r["kind"] == "finetune"]
    run_dirs = {(u["params"]["encoder"], u["params"]["method"], u["params"]["dataset"], u["params"]["setting"]):
                u["provenance"]["parameters"]["run_dir"] for u in units}
    groups = finetune_groups(units)
    report = build_report(out, out=tmp_path / "report")
    rows = json.loads((report / "report.json").read_text(encoding="utf-8"))["extrinsic"]
    assert len(groups) == len(rows) == len(run_dirs) == 2 * 2 * 3
    for group, row in zip(groups, rows):
        key = (group["encoder"], group["method"], group["dataset"], group["setting"])
        assert key == (row["encoder"], row["method"], row["dataset"], row["setting"])
        saved = json.loads((out / run_dirs[key] / "metrics.json").read_text(encoding="utf-8"))["summary"]
        assert json.loads(dumps_json(group["run"]["summary"])) == saved
        assert {"metrics", "per_class", "leakage", "noise_floor"} <= set(saved)
        for metric, cell in saved["metrics"].items():
            for part in ("mean", "margin", "low", "high", "std", "n"):
                assert row[f"{metric}_{part}"] == cell[part], (key, metric, part)
        for source, cells in saved["leakage"].items():
            for name, cell in cells.items():
                assert row[f"leakage_{source}_{name}_mean"] == cell["mean"], (key, source, name)
        assert saved["leakage"]["scrubbed_representation"]["balanced_accuracy"]["n"] == 2  # the scrubbed-text control
    hidden = json.loads((report / "report.json").read_text(encoding="utf-8"))["hidden_vs_leakage"]
    assert hidden and all(0.0 <= r["leakage_scrubbed"] <= 1.0 for r in hidden)
    assert "Leakage, scrubbed text (repr.)" in (report / "report.md").read_text(encoding="utf-8")


KILLER = """
import os, signal, sys
import torch
torch.set_num_threads(1)
import probekit.study._work as work
from probekit.cli.main import main

original, calls = work.run_fold_unit, []
ready_fd = int(sys.argv[4])

def slow_unit(*args, **kwargs):
    entry = original(*args, **kwargs)   # the fold's predictions and fold.json are written ...
    calls.append(1)
    if len(calls) == int(sys.argv[3]):  # ... but the unit is not finished: SIGKILL arrives here
        os.write(ready_fd, b"ready")      # the event the test waits on
        os.close(ready_fd)
        while True:
            signal.pause()                # until the SIGKILL; no clock involved
    return entry

work.run_fold_unit = slow_unit
sys.exit(main(["study", sys.argv[1], "--out", sys.argv[2]]))
"""


def test_sigkill_in_the_middle_of_a_unit_then_resume(study, checkpoints, tmp_path):
    """One encoder of the reference study (its units have the same ids: an id does not depend on
    the other encoders), killed with SIGKILL inside a unit, then resumed.

    The test waits on an event, not on a clock: the study writes to a pipe when it reaches the unit
    to kill (and the pipe closes if it dies first), so a loaded machine only makes it slower.
    """
    _, reference, _ = study
    config_path = write_config(tmp_path / "one.toml", checkpoints, n_encoders=1)
    out = tmp_path / "out"
    script = tmp_path / "killer.py"
    script.write_text(KILLER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    kill_at = 7  # the 7th fine-tune: the first of the second (encoder, method), after its projection is built
    read_end, write_end = os.pipe()
    with open(tmp_path / "stderr.txt", "wb") as stderr:  # a file: a full stderr pipe could block the study
        process = subprocess.Popen([sys.executable, str(script), str(config_path), str(out), str(kill_at), str(write_end)],
                                   env=env, stdout=subprocess.DEVNULL, stderr=stderr, pass_fds=(write_end,))
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as ready:
            signal_seen = ready.read(5)  # blocks until the study reaches the unit, or exits (end of file)
        assert signal_seen == b"ready", (tmp_path / "stderr.txt").read_text(errors="replace")[-2000:]
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait() == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    units = plan_units(load_config(config_path))
    done_before = set(unit_records(out))
    assert len(done_before) == (kill_at - 1) + 2  # the fine-tunes before it and the two intrinsic units before it
    killed = [u for u in units if u.kind == "finetune"][kill_at - 1]
    assert killed.id not in done_before
    # the resumed run redoes what is missing, and only that
    summary = run_study(load_config(config_path), out)
    assert summary.n_already_done == len(done_before) and summary.n_run == len(units) - len(done_before)
    records, expected = unit_records(out), unit_records(reference)
    assert sorted(records) == sorted(u.id for u in units)  # none missing, none twice
    assert set(records) < set(expected)
    assert not [p.name for p in (out / "units").iterdir() if not p.name.endswith(".json") or p.name.startswith(".")]
    for unit_id, record in records.items():
        assert_close(stable(record), stable(expected[unit_id]), path=unit_id)


def dry_run(args, capsys) -> tuple[list[str], str]:
    assert main(["study", *args, "--dry-run"]) == 0
    captured = capsys.readouterr()
    return captured.out.splitlines(), captured.err


def test_dry_run_prints_one_line_per_unit_and_shards_cover_every_unit_once(study, tmp_path, capsys):
    config_path, out, _ = study
    units = plan_units(load_config(config_path))
    lines, err = dry_run([str(config_path), "--out", str(out)], capsys)
    assert len(lines) == len(units) and "28 unit(s)" in err
    pattern = re.compile(r"^(\S+)\t(\{.*\})\t(done|todo)$")
    for line, unit in zip(lines, units):
        match = pattern.match(line)
        assert match, line
        assert match.group(1) == unit.id and json.loads(match.group(2)) == unit.params and match.group(3) == "done"
    # a new directory: everything to do, and nothing written there
    fresh = tmp_path / "fresh"
    lines, _ = dry_run([str(config_path), "--out", str(fresh)], capsys)
    assert [line.rsplit("\t", 1)[1] for line in lines] == ["todo"] * len(units) and not fresh.exists()
    # shards 0/2 and 1/2: every unit exactly once
    shard_ids = []
    for index in range(2):
        lines, err = dry_run([str(config_path), "--out", str(out), "--shard", f"{index}/2"], capsys)
        assert f"shard {index}/2" in err
        shard_ids.append([line.split("\t")[0] for line in lines])
    assert sorted(shard_ids[0] + shard_ids[1]) == sorted(u.id for u in units)
    assert not set(shard_ids[0]) & set(shard_ids[1]) and abs(len(shard_ids[0]) - len(shard_ids[1])) <= 1
    for n in (1, 3, 5, 40):  # any n: a partition of the grid
        parts = [u.id for i in range(n) for u in shard_units(units, (i, n))]
        assert parts == [u.id for u in units]
    assert main(["study", str(config_path), "--out", str(out), "--dry-run", "--shard", "2/2"]) == 2
    assert "--shard" in capsys.readouterr().err


def test_ids_are_deterministic_and_follow_the_options(checkpoints, tmp_path):
    first = plan_units(load_config(write_config(tmp_path / "a.toml", checkpoints)))
    second = plan_units(load_config(write_config(tmp_path / "b.toml", checkpoints)))
    assert [u.id for u in first] == [u.id for u in second]
    text = (tmp_path / "b.toml").read_text(encoding="utf-8").replace("n_examples = 40", "n_examples = 44")
    (tmp_path / "b.toml").write_text(text, encoding="utf-8")
    changed = plan_units(load_config(tmp_path / "b.toml"))
    same = {u.id for u in first} & {u.id for u in changed}
    assert same == {u.id for u in first if u.kind == "intrinsic"}  # the dataset is not part of the intrinsic units


def test_config_errors_name_the_key_and_list_the_valid_ones(checkpoints, tmp_path, capsys):
    path = write_config(tmp_path / "bad.toml", checkpoints)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("folds = 2", "folds = 2\nfold = 3"), encoding="utf-8")
    assert main(["study", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "study.fold" in err
    for key in ("name", "seed", "methods", "settings", "folds", "intrinsic", "finetune"):
        assert key in err
    path.write_text(text.replace("n_permutations = 100", "n_permutation = 100"), encoding="utf-8")
    assert main(["study", str(path), "--out", str(tmp_path / "out"), "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "intrinsic.n_permutation" in captured.err and "n_permutations" in captured.err
    path.write_text(text.replace('methods = ["none", "sent-debias"]', 'methods = ["none", "hard-debias"]'), encoding="utf-8")
    assert main(["study", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "context-debias" in capsys.readouterr().err
    path.write_text(text.replace("[finetune]", "[fine_tune]"), encoding="utf-8")
    assert main(["study", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "finetune" in capsys.readouterr().err and not (tmp_path / "out").exists()
    # a dataset file that is not there: one line naming it and --data-path, before anything is written
    bios = text.replace('kind = "synthetic"\nn_examples = 40\nprofessions = ["nurse", "surgeon", "dietitian", "architect"]',
                        'kind = "bios"\npath = "PATH/TO/bios.csv"')
    assert bios != text
    path.write_text(bios, encoding="utf-8")
    assert main(["study", str(path), "--out", str(tmp_path / "out2")]) == 2
    err = capsys.readouterr().err
    assert "PATH/TO/bios.csv" in err and "--data-path synth=PATH" in err and not (tmp_path / "out2").exists()
    assert main(["study", str(path), "--out", str(tmp_path / "out2"), "--data-path", "bios=x.csv", "--dry-run"]) == 2
    assert "synth" in capsys.readouterr().err  # the names of the config's datasets


def test_another_config_in_the_same_directory_is_refused(study, tmp_path):
    config_path, out, _ = study
    other = tmp_path / "other.toml"
    other.write_text(config_path.read_text(encoding="utf-8").replace("folds = 2", "folds = 3"),
                     encoding="utf-8")
    with pytest.raises(Exception, match="study"):
        run_study(load_config(other), out)


def test_weight_changing_method_is_built_once_and_reused(checkpoints, tmp_path):
    """CDA (an added masked-LM head on a head-less encoder): one checkpoint under shared/, loaded by every unit."""
    config = load_config(write_config(tmp_path / "cda.toml", checkpoints, methods=("cda",), settings=("swapped",),
                                      n_encoders=1, intrinsic=False))
    out = tmp_path / "out"
    prepared = run_study(config, out, prepare=True)  # --prepare: the shared work only
    built = list((out / "shared" / "debiased").iterdir())
    assert prepared.n_run == 0 and len(built) == 1 and not list((out / "units").glob("*.json"))
    summary = run_study(config, out)
    assert summary.n_run == 2 and not summary.failed
    assert list((out / "shared" / "debiased").iterdir()) == built
    assert len(built) == 1 and (built[0] / "debias.json").is_file()
    assert not list((out / "shared" / "work").iterdir())  # training checkpoints removed after the build
    fingerprints = {r["provenance"]["model"]["fingerprint"] for r in unit_records(out).values()}
    base = json.loads((built[0] / "debias.json").read_text(encoding="utf-8"))
    assert fingerprints == {base["fingerprint"]}


def test_ray_backend_gives_the_local_results(study, checkpoints, tmp_path):
    """A local Ray instance started here; its units (a subset of the reference study's, same ids)
    have the numbers of the local backend's."""
    ray = pytest.importorskip("ray")
    _, reference, _ = study
    config = load_config(write_config(tmp_path / "ray.toml", checkpoints, methods=("none", "sent-debias"),
                                      settings=("swapped",), n_encoders=1))
    out = tmp_path / "ray"
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        summary = run_study(config, out, backend="ray", ray_cpus_per_unit=1)
    finally:
        ray.shutdown()
    assert summary.n_run == len(plan_units(config)) == 2 * (1 + 2) and not summary.failed
    records, expected = unit_records(out), unit_records(reference)
    assert set(records) == {u.id for u in plan_units(config)} and set(records) < set(expected)
    for unit_id in records:
        assert_close(stable(records[unit_id]), stable(expected[unit_id]), path=unit_id)
    assert len(list((out / "shared" / "debiased").iterdir())) == 1  # built by one Ray task
    assert [line.rsplit("\t", 1)[1] for line in dry_run_lines(config, out)] == ["done"] * len(records)


def test_shards_write_into_one_directory(checkpoints, tmp_path, capsys):
    """Two shard runs (as two SLURM array tasks) fill one study directory; the second one to finish
    a fine-tuning run's last fold aggregates it."""
    config_path = write_config(tmp_path / "shards.toml", checkpoints, methods=("none",), settings=("original",),
                               n_encoders=1, intrinsic=False, readers=("linear", "mlp"))
    out = tmp_path / "out"
    assert main(["study", str(config_path), "--out", str(out), "--shard", "1/2"]) == 0
    assert len(list((out / "units").glob("*.json"))) == 1 and not list((out / "runs").glob("*/metrics.json"))
    assert main(["study", str(config_path), "--out", str(out), "--shard", "0/2"]) == 0
    assert len(list((out / "units").glob("*.json"))) == 2 and len(list((out / "runs").glob("*/metrics.json"))) == 1
    # [intrinsic] readers = ["linear", "mlp"]: every fold's leakage is also read by the MLP reader
    leakage = [r["result"]["leakage"] for r in unit_records(out).values()]
    assert all(entry["representation_mlp"]["reader"] == "mlp" for entry in leakage)
    summary = json.loads(next((out / "runs").glob("*/metrics.json")).read_text(encoding="utf-8"))["summary"]
    assert summary["leakage"]["representation_mlp"]["balanced_accuracy"]["n"] == 2
    capsys.readouterr()
    lines, _ = dry_run([str(config_path), "--out", str(out)], capsys)
    assert [line.rsplit("\t", 1)[1] for line in lines] == ["done", "done"]
