"""A [sweep] study on a tiny random encoder: alpha = 0 is the base exactly, alpha = 1 the full
method, the cached path equals re-extraction, resume, the analysis and its report."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from debias import LinearEraser, apply_projection
from probekit import load_encoder, run_probe_suite
from probekit.embedding import embed_sentences
from probekit.finetune import FinetuneConfig, run_fold
from probekit.intrinsic import crows_pairs, read_seat_suite, run_seat_suite, stereoset
from probekit.report import build_report
from probekit.report._dose_response import MEASURE_NAMES
from probekit.study import (
    ANALYSIS_FILE,
    MAX_NAMES,
    Workspace,
    aligned_word_sets,
    collect_points,
    dose_response_analysis,
    extract_aligned_words,
    extract_words,
    interpolate,
    interpolated_projection,
    load_config,
    plan_units,
    point_intrinsic,
    point_readers,
    run_study,
)
from tests.conftest import build_tiny_model
from tests.unit.test_crows_pairs import _write_csv as _write_crows
from tests.unit.test_stereoset import _write as _write_stereoset
from wordlists import load_names

CONFIG = """
[study]
name = "tiny-sweep"
methods = ["none", "sent-debias", "leace", "cda"]
settings = ["original"]
folds = 2

[[encoders]]
label = "tiny"
model = "{model}"

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
n_randomizations = 2
n_bootstrap = 0
C = 1.0

[methods.sent-debias]
max_sentences = 40

[methods.leace]
max_per_word = 4

[methods.cda]
add_mlm_head = true
head_warmup_steps = 0
batch_size = 4
max_length = 16

[benchmarks]
seat_suite = "{suite}"
crows_pairs = "{crows}"
stereoset = "{stereoset}"

[sweep]
seeds = [0]
alpha = [0.0, 0.5, 1.0]
cda.steps = [1, 2]
n_bootstrap = 200

[run]
device = "cpu"
"""


@pytest.fixture(scope="module")
def sweep(tmp_path_factory, one_torch_thread):
    root = tmp_path_factory.mktemp("sweep")
    model, tokenizer = build_tiny_model("mlm", seed=0)  # with a masked-LM head: CrowS-Pairs and StereoSet per point
    model.save_pretrained(root / "enc")
    tokenizer.save_pretrained(root / "enc")
    suite = root / "seat"
    suite.mkdir()
    for name, (x, y) in {"sent-tiny1": (("flowers", "roses"), ("insects", "ants")),
                         "sent-tiny2": (("doctors", "nurses"), ("poets", "singers"))}.items():
        test = {"targ1": {"category": "X", "examples": [f"These are {w}." for w in x] + [f"I like {x[0]}."]},
                "targ2": {"category": "Y", "examples": [f"These are {w}." for w in y] + [f"I like {y[0]}."]},
                "attr1": {"category": "A", "examples": ["This is lovely.", "This is pleasant.", "She is here."]},
                "attr2": {"category": "B", "examples": ["This is awful.", "This is nasty.", "He is here."]}}
        (suite / f"{name}.jsonl").write_text(json.dumps(test), encoding="utf-8")
    path = root / "study.toml"
    crows, stereo = _write_crows(root / "crows.csv"), _write_stereoset(root / "dev.json")
    path.write_text(CONFIG.format(model=(root / "enc").as_posix(), suite=suite.as_posix(), crows=crows.as_posix(),
                                  stereoset=stereo.as_posix()), encoding="utf-8")
    config = load_config(path)
    out = root / "out"
    summary = run_study(config, out)
    records = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (out / "units").glob("*.json")}
    return config, out, summary, records


def _point(records, method, alpha=None):
    for record in records.values():
        if record["params"]["method"] == method and record["params"]["strength"].get("alpha") == alpha:
            return record
    raise KeyError((method, alpha))


def _eraser(out: Path, method: str, base):
    (directory,) = [d for d in (out / "shared" / "sweep").iterdir() if f"-{method}-" in d.name]
    return LinearEraser.load(directory, encoder=base)


def test_every_point_runs_and_alpha_0_is_the_base_exactly(sweep):
    config, out, summary, records = sweep
    assert summary.n_run == len(plan_units(config)) == 9 and not summary.failed
    base = _point(records, "none")["result"]
    for method in ("sent-debias", "leace"):
        zero = _point(records, method, 0.0)["result"]
        assert zero["intrinsic"] == base["intrinsic"] and zero["extrinsic"] == base["extrinsic"]
        assert zero["folds"] == base["folds"]
        assert _point(records, method, 1.0)["result"]["intrinsic"] != base["intrinsic"]
    assert run_study(config, out).n_already_done == 9  # resumable: a rerun skips every point


def test_alpha_1_is_the_full_method_and_cached_equals_re_extraction(sweep):
    config, out, _, records = sweep
    workspace = Workspace(config, out)
    base = load_encoder(config.encoders[0]["model"], device="cpu")
    options = dict(config.intrinsic)
    for method in ("sent-debias", "leace"):
        eraser = _eraser(out, method, base)
        full = apply_projection(base, eraser)
        # the full method re-extracted (the grid's encoder) gives the alpha = 1 point's numbers
        words = extract_words(full, workspace.corpus(), max_per_word=4, selection_seed=_selection_seed(), layer=-1,
                              cache_dir=None, progress=False)
        expected = point_intrinsic(words, None, 1.0, seed=0, options=options)
        got = _point(records, method, 1.0)["result"]["intrinsic"]
        assert got["seat_effect_size"] == pytest.approx(expected["seat_effect_size"], abs=1e-5)
        assert got["probe_gender_accuracy"] == pytest.approx(expected["probe_gender_accuracy"], abs=1e-9)
        # cached vectors mapped with alpha = 0.5 equal an encoder with the interpolated map, re-extracted
        half = base.with_output_projection(interpolated_projection(eraser, 0.5))
        texts = list(workspace.dataset("synth")["text"][:12])
        cached = embed_sentences(base, texts, progress=False)
        assert np.allclose(interpolate(cached, eraser.transform, 0.5), embed_sentences(half, texts, progress=False),
                           atol=1e-5)
        cached_words = extract_words(base, workspace.corpus(), max_per_word=4, selection_seed=_selection_seed(),
                                     layer=-1, cache_dir=None, progress=False)
        direct = extract_words(half, workspace.corpus(), max_per_word=4, selection_seed=_selection_seed(), layer=-1,
                               cache_dir=None, progress=False)
        assert np.allclose(interpolate(cached_words["attributes"].embeddings, eraser.transform, 0.5),
                           direct["attributes"].embeddings, atol=1e-5)


def test_extrinsic_cached_path_equals_re_extraction(sweep, tmp_path):
    config, out, _, records = sweep
    workspace = Workspace(config, out)
    base = load_encoder(config.encoders[0]["model"], device="cpu")
    eraser = _eraser(out, "leace", base)
    half = base.with_output_projection(interpolated_projection(eraser, 0.5))
    settings = FinetuneConfig(**config.finetune, seed=0, device="cpu")  # as the point builds it
    point = _point(records, "leace", 0.5)["result"]
    for fold in range(2):  # embed=None: the fold embeds its texts through the interpolated encoder itself
        entry = run_fold(half, workspace.dataset("synth"), fold, setting="original", folds=2, config=settings,
                         out_dir=tmp_path / "direct", progress=False, data_name="synth")
        for metric in ("tprd", "fprd", "cf", "accuracy"):
            assert entry["metrics"][metric] == pytest.approx(point["folds"][fold][metric], abs=1e-6)


def _brute_force_seat_d(words) -> float:
    """|d| of the word-level SEAT from per-word mean vectors, by hand (Caliskan et al. 2017, ddof = 1)."""
    sets = words["sets"]

    def means(emb, group):
        return np.array([emb.embeddings[np.asarray(emb.words) == w].mean(0) for w in group], dtype=np.float64)

    def unit(v):
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    x, y = (unit(means(words["targets"], sets[k])) for k in ("female_targets", "male_targets"))
    a, b = (unit(means(words["names"], sets[k])) for k in ("female_names", "male_names"))
    s_x, s_y = ((t @ a.T).mean(1) - (t @ b.T).mean(1) for t in (x, y))
    return abs((s_x.mean() - s_y.mean()) / np.concatenate([s_x, s_y]).std(ddof=1))


def test_aligned_measures_use_the_task_words_and_equal_re_extraction(sweep):
    config, out, _, records = sweep
    workspace = Workspace(config, out)
    data = workspace.dataset("synth")
    sets = aligned_word_sets(data)
    # professions split by the gender that dominates them in these data; names of the data's texts
    assert sorted(sets["female_targets"]) == ["dietitian", "nurse"] and sorted(sets["male_targets"]) == ["architect", "surgeon"]
    names = load_names()
    text = " ".join(data["text"])
    for gender, pool in (("female", names.female), ("male", names.male)):
        assert 2 <= len(sets[f"{gender}_names"]) <= MAX_NAMES
        assert all(n in pool and n in text for n in sets[f"{gender}_names"])
    base = load_encoder(config.encoders[0]["model"], device="cpu")
    half = base.with_output_projection(interpolated_projection(_eraser(out, "leace", base), 0.5))
    direct = extract_aligned_words(half, data, max_per_word=4, selection_seed=_selection_seed(), layer=-1,
                                   cache_dir=None, progress=False)
    got = _point(records, "leace", 0.5)["result"]["intrinsic"]
    assert got["seat_aligned_effect_size_abs"] == pytest.approx(_brute_force_seat_d(direct), abs=1e-4)
    assert 0 <= got["probe_aligned_stereotype_accuracy"] <= 1 and 0 <= got["probe_aligned_gender_accuracy"] <= 1
    assert got["seat_aligned_effect_size_abs"] != _point(records, "none")["result"]["intrinsic"]["seat_aligned_effect_size_abs"]


def test_nonlinear_reader_per_point_equals_the_probe_suite(sweep):
    config, out, _, records = sweep
    base = load_encoder(config.encoders[0]["model"], device="cpu")
    corpus = Workspace(config, out).corpus()
    options = {**config.intrinsic, "readers": ["linear", "mlp"]}  # [intrinsic] readers (here on one point only: cost)
    words = extract_words(base, corpus, max_per_word=4, selection_seed=_selection_seed(), layer=-1, cache_dir=None,
                          progress=False)
    got = point_intrinsic(words, None, 1.0, seed=0, options=options)
    # the probe suite's own mlp reader on the same encoder (its extraction, its word split, its seed)
    headless = dataclasses.replace(base, mlm_model=None)  # no LPBS, no MLP-family MDL: only the readers cost
    suite = run_probe_suite(headless, corpus, random_state=0, progress=False, mdl=False, **options)
    assert got["probe_gender_accuracy_mlp"] == pytest.approx(suite.readers["mlp"]["balanced_accuracy"], abs=1e-12)
    # linear only (the default): no extra reader is fitted and no extra measure appears
    assert not any(k.startswith("probe_gender_accuracy_") for k in _point(records, "none")["result"]["intrinsic"])
    held_out = {"female": ["she"], "male": ["he"]}
    assert point_readers(None, np.array([True, False]), held_out, None, seed=0) == {}
    assert point_readers(None, np.array([True, False]), held_out, ["linear"], seed=0) == {}
    # a reader's measure is a row of the analysis
    rows = [{**row, "probe_gender_accuracy_mlp": 0.5 + 0.01 * k} for k, row in enumerate(collect_points(out))]
    assert "probe_gender_accuracy_mlp" in dose_response_analysis(rows, n_bootstrap=100)["intrinsic_measures"]
    assert MEASURE_NAMES["probe_gender_accuracy_mlp"] == "probe: gender accuracy (mlp)"


def test_crows_pairs_and_stereoset_per_point_score_the_map_inside_the_model(sweep):
    config, out, _, records = sweep
    base = load_encoder(config.encoders[0]["model"], device="cpu")
    half = base.with_output_projection(interpolated_projection(_eraser(out, "leace", base), 0.5))
    got = _point(records, "leace", 0.5)["result"]["intrinsic"]
    crows = crows_pairs(half, config.benchmarks["crows_pairs"], progress=False).overall["stereotype_score"]
    stereo = stereoset(half, config.benchmarks["stereoset"], n_resamples=0, progress=False).overall["ss_score"]
    assert got["crows_pairs_stereotype_score"] == pytest.approx(crows, abs=1e-9)
    assert got["crows_pairs_abs_bias"] == pytest.approx(abs(crows - 50), abs=1e-9)
    assert got["stereoset_ss_score"] == pytest.approx(stereo, abs=1e-9)
    assert got["stereoset_abs_bias"] == pytest.approx(abs(stereo - 50), abs=1e-9)
    assert _point(records, "leace", 0.0)["result"]["intrinsic"]["stereoset_ss_score"] == pytest.approx(
        stereoset(base, config.benchmarks["stereoset"], n_resamples=0, progress=False).overall["ss_score"], abs=1e-9)
    steps = sorted((r for r in records.values() if r["params"]["method"] == "cda"),
                   key=lambda r: r["params"]["strength"]["cda.steps"])
    assert all("crows_pairs_abs_bias" in r["result"]["intrinsic"] for r in steps)  # the step checkpoints have the head
    (none,) = [u for u in plan_units(config) if u.params["method"] == "none"]  # the data are part of the point's id
    assert [b["name"] for b in none.spec["benchmarks"]] == ["crows_pairs", "stereoset"]


def test_training_steps_are_points_of_one_run(sweep):
    config, out, _, records = sweep
    cda = sorted((r for r in records.values() if r["params"]["method"] == "cda"),
                 key=lambda r: r["params"]["strength"]["cda.steps"])
    assert [r["params"]["strength"] for r in cda] == [{"cda.steps": 1}, {"cda.steps": 2}]
    (run,) = [d for d in (out / "shared" / "sweep").iterdir() if "-cda-" in d.name]
    assert (run / "step-1").is_dir() and (run / "step-2").is_dir() and not (run / "checkpoints").exists()
    # the step-2 point is measured on the run's step-2 encoder: its words re-extracted give its SEAT
    encoder = load_encoder(str(run / "step-2"), device="cpu")
    words = extract_words(encoder, Workspace(config, out).corpus(), max_per_word=4, selection_seed=_selection_seed(),
                          layer=-1, cache_dir=None, progress=False)
    expected = point_intrinsic(words, None, 1.0, seed=0, options=dict(config.intrinsic))
    assert cda[1]["result"]["intrinsic"]["seat_effect_size"] == pytest.approx(expected["seat_effect_size"], abs=1e-6)
    assert cda[0]["result"]["intrinsic"] != cda[1]["result"]["intrinsic"]


def test_seat_suite_mean_d_per_point_equals_re_extraction(sweep):
    config, out, _, records = sweep
    base = load_encoder(config.encoders[0]["model"], device="cpu")
    half = base.with_output_projection(interpolated_projection(_eraser(out, "leace", base), 0.5))
    tests = read_seat_suite(config.benchmarks["seat_suite"])
    expected = run_seat_suite(half, tests, n_permutations=10, n_bootstrap=0, progress=False)
    got = _point(records, "leace", 0.5)["result"]["intrinsic"]["seat_suite_mean_abs_d"]
    assert got == pytest.approx(expected.overall["mean_abs_effect_size"], abs=1e-4)


def _selection_seed() -> int:
    from probekit.embedding import suite_seeds

    return suite_seeds(0)["sentence_selection"]


def test_analysis_and_report(sweep):
    _, out, _, _ = sweep
    analysis = json.loads((out / ANALYSIS_FILE).read_text(encoding="utf-8"))
    assert analysis["n_points"] == 9 and len(analysis["pairs"]) == 10 * 5  # 8 + CrowS-Pairs and StereoSet
    # clusters: none, the sent-debias fit, the LEACE fit over their alphas, the CDA run over its steps
    assert analysis["n_clusters"] == 4
    pair = analysis["pairs"][0]
    assert {"estimate", "low", "high", "p_value", "p_holm", "p_bh", "min_detectable_80"} <= set(pair["spearman"])
    report = build_report(out)
    text = (report / "report.md").read_text(encoding="utf-8")
    assert "Does intrinsic bias predict downstream bias?" in text
    assert r"CrowS-Pairs \|score - 50\|" in text and r"StereoSet \|SS - 50\|" in text  # rows of the table
    assert "SEAT |d| (aligned)" in text and "4 fitted models resampled as clusters" in text
    assert (report / "figures" / "dose_response_matrix.png").is_file()
    assert any("rank_correlations" in p.name for p in (report / "tables").glob("*.tex"))
    assert "dose_response" in json.loads((report / "report.json").read_text(encoding="utf-8"))
