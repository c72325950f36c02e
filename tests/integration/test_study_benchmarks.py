"""The study's [benchmarks] table: CrowS-Pairs, StereoSet, the SEAT suite and pseudo-perplexity as
per (encoder x method) units on tiny random encoders (one with a masked-LM head, one without)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probekit import load_encoder
from probekit.cli.main import main
from probekit.errors import InputFileError, InvalidParameterError
from probekit.intrinsic import crows_pairs, pseudo_perplexity
from probekit.study import dry_run_lines, load_config, parse_config, plan_units, run_study
from tests.conftest import build_tiny_model
from tests.unit.test_crows_pairs import _write_csv
from tests.unit.test_stereoset import _write as _write_stereoset

CONFIG = """
[study]
name = "bench"
methods = {methods}
settings = ["original"]
folds = 2
intrinsic = false
finetune = false

[[encoders]]
label = "mlm"
model = "{mlm}"

[[encoders]]
label = "base"
model = "{base}"

[corpus]
frames_per_word = 2

[methods.sent-debias]
max_sentences = 40

[benchmarks]
{benchmarks}

[run]
device = "cpu"
"""

SEAT_ROLES = {"targ1": ["rose", "tulip", "daisy"], "targ2": ["ant", "wasp", "moth"],
              "attr1": ["love", "peace", "joy"], "attr2": ["hate", "war", "grief"]}


#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("bench")
    paths = {}
    for kind in ("mlm", "base"):
        model, tokenizer = build_tiny_model(kind)
        model.save_pretrained(root / kind)
        tokenizer.save_pretrained(root / kind)
        paths[kind] = root / kind
    paths["crows"] = _write_csv(root / "crows.csv")
    paths["stereoset"] = _write_stereoset(root / "dev.json")
    suite = root / "seat"
    suite.mkdir()
    (suite / "tiny1.jsonl").write_text(json.dumps({k: {"category": k, "examples": v} for k, v in SEAT_ROLES.items()}))
    paths["seat"] = suite
    paths["corpus"] = root / "held_out.txt"
    paths["corpus"].write_text("The traveller missed the last train.\nOtters swim in the river.\n", encoding="utf-8")
    return paths


def write_config(path: Path, files, *, methods=("none", "sent-debias"), benchmarks=None) -> Path:
    if benchmarks is None:
        benchmarks = (f'crows_pairs = "{files["crows"].as_posix()}"\nstereoset = "{files["stereoset"].as_posix()}"\n'
                      f'seat_suite = "{files["seat"].as_posix()}"\npppl_corpus = "{files["corpus"].as_posix()}"\n'
                      "stereoset_n_resamples = 20\nseat_n_permutations = 100\nseat_n_bootstrap = 10\n")
    path.write_text(CONFIG.format(methods=json.dumps(list(methods)), mlm=files["mlm"].as_posix(),
                                  base=files["base"].as_posix(), benchmarks=benchmarks), encoding="utf-8")
    return path


def records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted((out / "units").glob("*.json"))}


@pytest.fixture(scope="module")
def study(files, tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    config = load_config(write_config(root / "study.toml", files))
    out = root / "out"
    return config, out, run_study(config, out)


def test_benchmark_units_end_to_end(study, files):
    config, out, summary = study
    units = plan_units(config)
    assert summary.n_units == len(units) == 2 * 2 * 4 and summary.n_run == len(units) and not summary.failed
    assert all(u.kind == "benchmark" for u in units)
    assert [u.params["benchmark"] for u in units[:4]] == ["crows_pairs", "stereoset", "seat_suite", "pppl"]
    saved = records(out)
    assert sorted(saved) == sorted(u.id for u in units)
    by = {(r["params"]["encoder"], r["params"]["method"], r["params"]["benchmark"]): r["result"] for r in saved.values()}
    # the encoder with a masked-LM head: results.json-like dicts
    crows = by[("mlm", "none", "crows_pairs")]
    assert {"stereotype_score", "stereo_score", "antistereo_score", "p_value"} <= set(crows["overall"])
    assert crows["skipped"] is False and len(crows["examples"]) == crows["overall"]["n_pairs"] + crows["overall"]["n_skipped"]
    assert {"lm_score", "ss_score", "icat"} <= set(by[("mlm", "none", "stereoset")]["overall"])
    seat = by[("mlm", "none", "seat_suite")]
    assert [t["test"] for t in seat["tests"]] == ["tiny1"] and "mean_abs_effect_size" in seat["overall"]
    assert by[("mlm", "none", "pppl")]["overall"]["n_sentences"] == 2
    # equal to the library called directly on the same checkpoint
    encoder = load_encoder(str(files["mlm"]), device="cpu")
    direct = crows_pairs(encoder, files["crows"], progress=False).overall
    assert crows["overall"]["stereotype_score"] == pytest.approx(direct["stereotype_score"])
    assert by[("mlm", "none", "pppl")]["overall"]["pppl"] == pytest.approx(
        pseudo_perplexity(encoder, files["corpus"]).overall["pppl"], rel=1e-9)
    # the debiased version is its own unit with its own numbers
    assert by[("mlm", "sent-debias", "pppl")]["overall"]["pppl"] != by[("mlm", "none", "pppl")]["overall"]["pppl"]
    # the head-less encoder: the masked-LM benchmarks record the skip and why; SEAT needs no head
    for name in ("crows_pairs", "stereoset", "pppl"):
        skipped = by[("base", "none", name)]
        assert skipped["skipped"] is True and "masked-LM head" in skipped["reason"]
    assert by[("base", "none", "seat_suite")]["overall"]["n_tests"] == 1
    # resume: a rerun does nothing and rewrites nothing
    before = {p: p.stat().st_mtime_ns for p in (out / "units").iterdir()}
    again = run_study(config, out)
    assert again.n_already_done == len(units) and again.n_run == 0
    assert {p: p.stat().st_mtime_ns for p in (out / "units").iterdir()} == before


def test_shards_and_ids(study, files, tmp_path):
    config, out, _ = study
    lines = [line for k in range(3) for line in dry_run_lines(config, out, (k, 3))]
    assert sorted(line.split("\t")[0] for line in lines) == sorted(u.id for u in plan_units(config))
    assert all(line.endswith("\tdone") for line in lines)
    # the ids follow the data's content and the options, not the file's location
    def planned(crows: Path) -> list:
        default = (f'crows_pairs = "{files["crows"].as_posix()}"')
        text = (tmp_path / "base.toml")
        write_config(text, files)
        body = text.read_text(encoding="utf-8").replace(default, f'crows_pairs = "{crows.as_posix()}"')
        text.write_text(body, encoding="utf-8")
        return plan_units(load_config(text))

    moved = tmp_path / "elsewhere.csv"
    moved.write_bytes(files["crows"].read_bytes())
    assert [u.id for u in planned(moved)] == [u.id for u in plan_units(config)]
    moved.write_text(files["crows"].read_text() + "9,A man ran.,A woman ran.,stereo,gender\n")
    differ = {u.params["benchmark"] for u, v in zip(planned(moved), plan_units(config)) if u.id != v.id}
    assert differ == {"crows_pairs"}


def test_benchmarks_only_for_the_named_ones(files, tmp_path):
    config = load_config(write_config(tmp_path / "s.toml", files, methods=("none",), benchmarks="pppl = true\n"))
    units = plan_units(config)
    assert [(u.params["encoder"], u.params["benchmark"]) for u in units] == [("mlm", "pppl"), ("base", "pppl")]
    assert "benchmarks" in config.identity() and "benchmarks" not in parse_config({}).identity()


def test_errors_before_anything_is_written(files, tmp_path, capsys):
    out = tmp_path / "out"
    missing = write_config(tmp_path / "m.toml", files, benchmarks=f'crows_pairs = "{(tmp_path / "nope.csv").as_posix()}"\n')
    with pytest.raises(InputFileError, match=r"\[benchmarks\] crows_pairs: no such file"):
        run_study(load_config(missing), out)
    assert not out.exists()
    broken = tmp_path / "broken.csv"
    broken.write_text("a,b\n1,2\n")
    bad = write_config(tmp_path / "b.toml", files, benchmarks=f'crows_pairs = "{broken.as_posix()}"\n')
    assert main(["study", str(bad), "--out", str(out)]) == 2 and not out.exists()
    assert "sent_more" in capsys.readouterr().err
    for table, key in (("crows = 1", "benchmarks.crows"), ("pppl_max_sentences = 0", "pppl_max_sentences"),
                       ('stereoset_domains = ["gender", "age"]', "stereoset_domains"), ("", "benchmarks")):
        with pytest.raises(InvalidParameterError, match=key):
            load_config(write_config(tmp_path / "e.toml", files, benchmarks=table))
    with pytest.raises(InvalidParameterError, match="at least one of them true"):
        parse_config({"study": {"intrinsic": False, "finetune": False}})


def test_ray_backend(files, tmp_path):
    ray = pytest.importorskip("ray")
    config = load_config(write_config(tmp_path / "r.toml", files, methods=("none",), benchmarks=(
        f'pppl_corpus = "{files["corpus"].as_posix()}"\nseat_suite = "{files["seat"].as_posix()}"\n'
        "seat_n_permutations = 100\nseat_n_bootstrap = 10\n")))
    local = run_study(config, tmp_path / "local")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        summary = run_study(config, tmp_path / "ray", backend="ray", ray_cpus_per_unit=1)
    finally:
        ray.shutdown()
    assert summary.n_run == local.n_run == 4 and not summary.failed
    a, b = records(tmp_path / "local"), records(tmp_path / "ray")
    assert sorted(a) == sorted(b)
    for key in a:
        assert a[key]["result"]["overall"] == b[key]["result"]["overall"] if not a[key]["result"]["skipped"] \
            else a[key]["result"]["reason"] == b[key]["result"]["reason"]


def test_report_tables_the_benchmark_units(study, tmp_path):
    from probekit.report import build_report, load_study

    _, out, _ = study
    loaded = load_study(out)
    assert not [p for p in loaded.problems if "unknown kind" in p]
    labels = {run["label"] for run in loaded.benchmarks}
    assert {"none (mlm)", "sent-debias (mlm)"} <= labels  # skipped head-less benchmarks are not tabled
    build_report(out, out=tmp_path / "report")
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "CrowS-Pairs" in text and "StereoSet" in text and "SEAT" in text
    planned = len(json.loads((out / "study.json").read_text(encoding="utf-8"))["units"])
    assert f"{planned} of {planned} planned units finished" in text  # benchmark units counted (skipped ones too)
    # the debiased encoder is tested against the none method of the same encoder
    assert "sent-debias (mlm)" in text and "none (mlm)" in text
