"""A study of another attribute than gender (``probekit study --attribute race``): the k-class probe per
(encoder, method) through the CLI on a tiny random encoder, equal to :func:`run_attribute_probe` called
directly; the methods debiased for the attribute; benchmarks restricted to it; ids that carry it (and
gender's unchanged); the refusals by name; the report's headings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probekit import load_encoder
from probekit.cli.main import main
from probekit.errors import InvalidParameterError
from probekit.intrinsic import SEAT_ATTRIBUTE_TESTS, read_crows_pairs, run_attribute_probe
from probekit.study import StudyConfig, load_config, parse_config, plan_units
from probekit.text import attribute_corpus
from tests.conftest import build_tiny_model
from tests.unit.test_crows_pairs import _write_csv

DATA = Path(__file__).resolve().parents[1] / "unit" / "data"

CONFIG = """
[study]
name = "attr"
methods = ["none", "leace"]
settings = ["original"]
folds = 2

[[encoders]]
label = "tiny"
model = "{model}"

[[datasets]]
name = "synth"
kind = "synthetic"
n_examples = 24

[finetune]
frozen = true
max_length = 24

[corpus]
frames_per_word = 1

[intrinsic]
max_per_word = 2
n_bootstrap = 20
C = 1.0
mdl = false

[run]
device = "cpu"
"""

PROBE = dict(max_per_word=2, n_bootstrap=20, C=1.0, mdl=False, random_state=0)


@pytest.fixture(scope="module")
def race_study(tmp_path_factory):
    """``probekit study CONFIG --attribute race`` on a tiny encoder without a masked-LM head, then its report."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("race")
    model, tokenizer = build_tiny_model("base")
    model.save_pretrained(root / "tiny")
    tokenizer.save_pretrained(root / "tiny")
    config = root / "study.toml"
    config.write_text(CONFIG.format(model=(root / "tiny").as_posix()), encoding="utf-8")
    try:
        assert main(["study", str(config), "--out", str(root / "out"), "--attribute", "race"]) == 0
        assert main(["report", str(root / "out")]) == 0
        yield root, config
    finally:
        torch.set_num_threads(threads)


def records(out: Path) -> dict[str, dict]:
    units = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((out / "units").glob("intrinsic-*.json"))]
    return {u["params"]["method"]: u for u in units}


def close(a, b, path="result"):
    if isinstance(a, dict):
        assert set(a) == set(b), f"{path}: {sorted(set(a) ^ set(b))}"
        for key in a:
            close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert b == pytest.approx(a, abs=1e-12, nan_ok=True), path
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def test_race_study_runs_the_k_class_probe_as_run_attribute_probe(race_study):
    root, config = race_study
    units = records(root / "out")
    assert sorted(units) == ["leace", "none"]
    assert all("-race-" in u["id"] and u["params"]["attribute"] == "race" for u in units.values())
    folds = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((root / "out" / "units").glob("finetune-*.json"))]
    assert len(folds) == 4 and all("-race-" in f["id"] for f in folds)  # the fine-tuning grid with k race groups
    assert all({"tpr_max_gap", "tpr_rms_gap", "cf"} <= set(f["result"]["metrics"]) for f in folds)
    run = json.loads(next((root / "out" / "runs").glob("tiny-none-*/metrics.json")).read_text(encoding="utf-8"))
    assert run["settings"]["attribute"] == "race" and len(run["settings"]["groups"]) == 4
    encoder = load_encoder(str(root / "tiny"), device="cpu")
    corpus = attribute_corpus("race", frames_per_word=1, random_state=0)
    direct = run_attribute_probe(encoder, "race", corpus, progress=False, **PROBE).to_dict()
    for key in ("attribute", "probe", "readers", "verdict", "words", "lpbs"):
        close(direct[key], units["none"]["result"][key], key)
    assert units["none"]["result"]["attribute"]["k"] == 4 and units["none"]["result"]["probe"]["chance"] == 0.25
    # LEACE was fitted on race's four groups (the projection records it), not on gender's two
    projection = json.loads(next((root / "out" / "shared" / "debiased").glob("tiny-leace-*/projection.json")).read_text())
    assert "race" in json.dumps(projection)
    assert units["leace"]["result"]["attribute"]["name"] == "race"
    assert units["leace"]["result"]["probe"] != units["none"]["result"]["probe"]
    # the ids carry the attribute: the gender study of the same file shares no unit with the race study
    race = {u.id for u in plan_units(load_config(config, attribute="race"))}
    gender = {u.id for u in plan_units(load_config(config))}
    assert race == {u["id"] for u in units.values()} | {f["id"] for f in folds} and not race & gender


def test_a_debiased_directory_fitted_for_another_attribute_is_refused(race_study, tmp_path):
    from probekit.study import run_study

    root, config = race_study
    leace = next((root / "out" / "shared" / "debiased").glob("tiny-leace-*"))
    text = config.read_text(encoding="utf-8").replace('model = "', f'debiased = {{ leace = "{leace.as_posix()}" }}\nmodel = "', 1)
    (tmp_path / "gender.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InvalidParameterError) as caught:  # a gender study given race's LEACE
        run_study(load_config(tmp_path / "gender.toml"), tmp_path / "out")
    assert caught.value.parameter == "encoders[0].debiased.leace" and "fitted for race" in str(caught.value)
    assert not (tmp_path / "out").exists()
    assert run_study(load_config(tmp_path / "gender.toml", attribute="race"), tmp_path / "race", prepare=True).n_run == 0


def test_race_study_report_names_the_attribute(race_study):
    root, _ = race_study
    text = (root / "out" / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Intrinsic bias: race (k-class probe of 4 groups, chance 1/4)" in text
    assert "k-class race probe (chance 1/4)" in text
    assert "Removed or hidden? (race)" in text
    assert "## Extrinsic bias: race (k groups)" in text and "Fine-tuning with race (4 groups): none (tiny), synth" in text
    assert "SEAT" not in text and "gender probe" not in text.lower()
    html = (root / "out" / "report" / "report.html").read_text(encoding="utf-8")
    assert "k-class race probe (chance 1/4)" in html


def test_gender_ids_are_unchanged():
    """The ids main gave the saved gender study are the ids planned now (and an explicit gender is no attribute)."""
    manifest = json.loads((DATA / "study_gender" / "study.json").read_text(encoding="utf-8"))
    config = StudyConfig.from_dict(manifest["config"])
    assert [u.id for u in plan_units(config)] == [u["id"] for u in manifest["units"]]


def test_methods_and_benchmarks_are_made_for_the_attribute(tmp_path):
    crows = _write_csv(tmp_path / "crows.csv")
    seat = tmp_path / "seat"
    seat.mkdir()
    base = {"study": {"methods": ["none", "inlp", "sent-debias", "cda", "self-debias", "dropout"], "finetune": False},
            "benchmarks": {"crows_pairs": str(crows), "stereoset": str(crows), "seat_suite": str(seat)}}
    config = parse_config({**base, "intrinsic": {"attribute": "religion"}})
    assert config.methods["inlp"]["attribute"] == config.methods["cda"]["attribute"] == "religion"
    assert config.methods["self-debias"]["prefixes"] == [
        "The following text discriminates against people because of their religion: "]
    assert "dropout" not in config.methods  # trained on the corpus as it is
    assert config.benchmarks["crows_bias_types"] == ["religion"] and config.benchmarks["stereoset_domains"] == ["religion"]
    assert config.benchmarks["seat_tests"] == list(SEAT_ATTRIBUTE_TESTS["religion"])
    race = parse_config(base, attribute="race")
    assert race.benchmarks["crows_bias_types"] == ["race-color"]
    assert [p.bias_type for p in read_crows_pairs(crows, bias_types=race.benchmarks["crows_bias_types"])] == ["race-color"]
    gender = parse_config(base)
    assert gender.benchmarks["crows_bias_types"] is None and "attribute" not in gender.methods.get("inlp", {})
    assert parse_config({**base, "intrinsic": {"attribute": "gender"}}).intrinsic == gender.intrinsic


@pytest.mark.parametrize("table, parameter", [
    ({"study": {"methods": ["none"]}}, "study.settings"),  # adversarial: a binary gender discriminator
    ({"study": {"methods": ["none"], "settings": ["original"]},
      "datasets": [{"name": "b", "kind": "bios", "path": "bios.jsonl"}]}, "datasets.b.kind"),
    ({"study": {"methods": ["none", "context-debias"], "finetune": False}}, "study.methods"),
    ({"study": {"methods": ["none", "concept-scrubbing"], "finetune": False}}, "study.methods"),
    ({"study": {"methods": ["leace"], "finetune": False}, "methods": {"leace": {"attribute": "gender"}}},
     "methods.leace.attribute"),
    ({"study": {"methods": ["none"], "finetune": False}, "sweep": {"seeds": [0, 1]}}, "[sweep]"),
])
def test_what_has_no_race_form_is_refused_by_name(table, parameter):
    with pytest.raises(InvalidParameterError) as caught:
        parse_config(table, attribute="race")
    assert caught.value.parameter == parameter and "race" in str(caught.value)


def test_a_gender_study_refuses_a_method_fitted_for_race():
    """Every method is labelled with the study's attribute, so it is fitted for it."""
    with pytest.raises(InvalidParameterError, match="methods.inlp.attribute"):
        parse_config({"study": {"methods": ["inlp"]}, "methods": {"inlp": {"attribute": "race"}}})


def test_unknown_attribute_is_refused_on_the_command_line(tmp_path, capsys):
    assert main(["study", "--out", str(tmp_path / "x"), "--attribute", "colour", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "[intrinsic] attribute" in err and "colour" in err and "religion" in err


@pytest.mark.parametrize("option, value", [("n_permutations", 10), ("standard_tests", [])])
def test_gender_suite_options_are_refused_in_a_file_that_names_another_attribute(option, value):
    table = {"study": {"methods": ["none"], "finetune": False}, "intrinsic": {"attribute": "race", option: value}}
    with pytest.raises(InvalidParameterError) as caught:
        parse_config(table)
    assert caught.value.parameter == f"intrinsic.{option}" and "race" in str(caught.value)


def test_gender_suite_options_are_ignored_with_a_warning_when_the_command_line_names_the_attribute(caplog):
    """`probekit study --attribute race` on a gender configuration (the default one names n_permutations)."""
    table = {"study": {"methods": ["none"], "finetune": False}, "intrinsic": {"n_permutations": 10, "max_per_word": 5}}
    with caplog.at_level("WARNING", logger="probekit.study._attribute"):
        config = parse_config(table, attribute="race")
    assert config.intrinsic["attribute"] == "race" and "not used by the k-class probe: n_permutations" in caplog.text
