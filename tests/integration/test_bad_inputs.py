"""Every bad input a clear error, nothing written where it should not be (issue 19).

Each case runs the CLI in-process (``probekit.cli.main.main``) in a scratch directory holding tiny
random checkpoints and input files, and asserts: exit status 2, exactly one line on stderr that
names the option or file, no traceback, and the scratch directory exactly as it was before the
call (an output location absent stays absent, an existing one is unchanged; an empty ``--out``
that the call created is removed).
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from probekit.cli.main import main
from tests.conftest import build_tiny_model

# ------------------------------------------------------------------------------------------ the scratch world


def _save(model, tokenizer, directory: Path, safe: bool = True) -> Path:
    model.save_pretrained(directory, safe_serialization=safe)
    tokenizer.save_pretrained(directory)
    return directory


class _Payload:
    """An object the restricted unpickler must refuse (stands for a malicious payload)."""

    def __reduce__(self):
        return (print, ("payload ran",))


def _make_models(root: Path) -> None:
    import torch

    base, tokenizer = build_tiny_model("base")
    mlm, _ = build_tiny_model("mlm")
    _save(base, tokenizer, root / "tiny")
    _save(mlm, tokenizer, root / "tiny-mlm")
    shutil.copytree(root / "tiny", root / "truncated")
    weights = root / "truncated" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    _save(base, tokenizer, root / "binonly", safe=False)
    (root / "binonly" / "model.safetensors").unlink(missing_ok=True)
    shutil.copytree(root / "binonly", root / "payload")
    torch.save({"weights": _Payload()}, root / "payload" / "pytorch_model.bin")
    (root / "noconfig").mkdir()
    (root / "noconfig" / "model.safetensors").write_bytes(b"x")
    other, _ = build_tiny_model("base", seed=1)
    _save(other, tokenizer, root / "other-base")


def _make_projections(root: Path) -> None:
    from probekit import load_encoder
    from probekit.encoders import OutputProjection, base_record, write_projection_dir

    encoder = load_encoder(str(root / "tiny"), device="cpu")
    projection = OutputProjection(np.eye(32), np.zeros(32))
    method = {"name": "SentDebias", "hyperparameters": {"k": 1}, "attributes": {}}
    write_projection_dir(root / "proj", projection, base=base_record(encoder), method=method)
    other = load_encoder(str(root / "other-base"), device="cpu")
    write_projection_dir(root / "proj-other", projection, base=base_record(other), method=method)
    for name, key, value in (("proj-version", "format_version", "abc"), ("proj-base", "base_model", "tiny")):
        shutil.copytree(root / "proj", root / name)
        config = json.loads((root / name / "projection.json").read_text())
        config[key] = value
        (root / name / "projection.json").write_text(json.dumps(config))


def _make_files(root: Path) -> None:
    (root / "corpus.txt").write_text("she is a nurse .\nhe is an engineer .\nthe weather is nice .\n")
    (root / "neutral.txt").write_text("the weather is nice .\nthe table is red .\n")
    (root / "attr-only.txt").write_text("she went home .\nhe went home .\nthe woman smiled .\nthe man smiled .\n" * 4)
    (root / "empty.txt").write_text("")
    (root / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (root / "preds.csv").write_text("label,prediction,group,id\n1,1,f,a\n0,1,m,b\n1,0,f,c\n0,0,m,d\n")
    (root / "header-only.csv").write_text("label,prediction,group\n")
    (root / "texts.csv").write_text("id,text\n1,she is here\n2,he is there\n")
    (root / "texts.txt").write_text("she is here\nhe is there\n")
    (root / "words.txt").write_text("# only a comment\n")
    (root / "existing-dir").mkdir()
    (root / "existing-dir" / "keep.txt").write_text("keep")
    (root / "a-file").write_text("not a directory")
    np.savez(root / "good.npz", x=np.zeros((3, 4)))
    _huge_npz(root / "huge.npz")
    (root / "binary.toml").write_bytes(b"\xff\xfe\x00[study]\x00\x81")
    toml = {
        "missing-model.toml": '[study]\nfinetune = false\nmethods = ["none"]\n[[encoders]]\nlabel = "x"\nmodel = "./no-such-model"\n',
        "bad-k.toml": '[study]\nfinetune = false\nmethods = ["sent-debias"]\n[methods.sent-debias]\nk = -2\n',
        "bad-perm.toml": '[study]\nfinetune = false\nmethods = ["none"]\n[intrinsic]\nn_permutations = 0\n',
        "bad-corpus.toml": '[study]\nfinetune = false\nmethods = ["none"]\n[corpus]\nfiles = ["no-such-corpus.txt"]\n',
        "newline-label.toml": '[study]\nfinetune = false\nmethods = ["none"]\n[[encoders]]\nlabel = "tiny\\n"\nmodel = "tiny"\n',
        "slash-label.toml": '[study]\nfinetune = false\nmethods = ["none"]\n[[encoders]]\nlabel = "a/b"\nmodel = "tiny"\n',
        "other-base.toml": '[study]\nfinetune = false\nmethods = ["sent-debias"]\n[[encoders]]\nlabel = "t"\n'
                           'model = "./tiny"\ndebiased = { sent-debias = "./proj-other" }\n',
        "bad-folds.toml": '[study]\nfolds = 1\n',
        "unknown-key.toml": '[study]\nfoo = 1\n',
    }
    for name, text in toml.items():
        (root / name).write_text(text)


def _huge_npz(path: Path) -> None:
    """An npz whose header declares 4e10 float64 values in a file of a few hundred bytes."""
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    header["shape"] = (40_000_000_000,)
    import io

    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    buffer.write(b"\0" * 64)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.npy", buffer.getvalue())


def _make_states(root: Path) -> None:
    """A finished run with its checkpoints (CDA, 2 steps) and damaged copies of them."""
    code = main(["debias", "cda", "--model", str(root / "tiny-mlm"), "--corpus", str(root / "corpus.txt"),
                 "--steps", "2", "--batch-size", "2", "--max-length", "16", "--checkpoint-every", "1",
                 "--checkpoint-dir", str(root / "cda-ckpt"), "--out", str(root / "cda-done"), "--no-progress"])
    assert code == 0
    for name, damage in (("ckpt-trunc", "model.safetensors"), ("ckpt-state", "trainer_state.json")):
        shutil.copytree(root / "cda-ckpt", root / name)
        for file in (root / name).rglob(damage):
            file.write_bytes(file.read_bytes()[: max(1, file.stat().st_size // 3)])
    run = root / "ft-run"
    (run / "folds" / "fold-00").mkdir(parents=True)
    (run / "run.json").write_text('{"format": "probekit-finetune", "settings": {}}')
    (run / "folds" / "fold-00" / "fold.json").write_text('{"fold": 0, "metr')
    bad_run = root / "ft-badrun"
    bad_run.mkdir()
    (bad_run / "run.json").write_text('{"format": ')


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad-inputs")
    _make_models(root)
    _make_projections(root)
    _make_files(root)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        _make_states(root)
    finally:
        os.chdir(cwd)
    return root


def _snapshot(root: Path) -> dict[str, tuple]:
    out = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_dir():
            out[key] = ("dir",)
        else:
            stat = path.stat()
            out[key] = ("file", stat.st_size, stat.st_mtime_ns)
    return out


# ---------------------------------------------------------------------------------------------- the cases

M, C = "--model", "--corpus"
MODEL = [M, "tiny"]
CASES = [
    # model loading: one line, never a traceback
    ("info-missing-model", ["info", M, "./no-such-dir"], "'./no-such-dir'"),
    ("info-model-is-file", ["info", M, "./a-file"], "'./a-file'"),
    ("info-no-config", ["info", M, "noconfig"], "config.json"),
    ("info-truncated-safetensors", ["info", M, "truncated"], "could not load the weights"),
    ("info-pickle-payload", ["info", M, "payload"], "could not load the weights"),
    ("info-safetensors-only", ["info", M, "binonly", "--safetensors-only"], "--safetensors-only"),
    ("info-projection-version", ["info", M, "proj-version"], "format_version"),
    ("info-projection-base-string", ["info", M, "proj-base"], "base_model"),
    ("probe-truncated", ["probe", M, "truncated", "--out", "out"], "could not load the weights"),
    ("seat-truncated", ["seat", M, "truncated", "--test", "weat6"], "could not load the weights"),
    ("embed-payload", ["embed", M, "payload", "--words", "she", "--out", "e.npz"], "could not load the weights"),
    ("debias-cda-truncated", ["debias", "cda", M, "truncated", "--out", "cda-out"], "could not load the weights"),
    # output paths checked before any work
    ("probe-out-is-file", ["probe", *MODEL, "--out", "a-file"], "--out"),
    ("probe-out-unwritable", ["probe", *MODEL, "--out", "/proc/x/out"], "'/proc/x/out'"),
    ("probe-out-under-file", ["probe", *MODEL, "--out", "a-file/sub"], "--out"),
    ("metrics-out-unwritable", ["metrics", "preds.csv", "--out", "/proc/x/out.json"], "'/proc/x/out.json'"),
    ("metrics-out-existing-dir", ["metrics", "preds.csv", "--out", "existing-dir"], "--out"),
    ("embed-out-unwritable", ["embed", *MODEL, "--words", "she", "--out", "/proc/x/e.npz"], "'/proc/x/e.npz'"),
    ("embed-out-suffix", ["embed", *MODEL, "--words", "she", "--out", "e.txt"], ".npz"),
    ("embed-out-dir", ["embed", *MODEL, "--words", "she", "--out", "existing-dir"], "--out"),
    ("swap-out-unwritable", ["swap", "texts.txt", "--out", "/proc/x/out.txt"], "'/proc/x/out.txt'"),
    ("swap-report-unwritable", ["swap", "texts.txt", "--out", "out.txt", "--report", "/proc/x/r.json"], "--report"),
    ("swap-out-is-input", ["swap", "texts.txt", "--out", "texts.txt"], "--out"),
    ("scrub-out-unwritable", ["scrub", "texts.txt", "--out", "/proc/x/o.txt"], "--out"),
    ("seat-out-unwritable", ["seat", "--encodings", "good.npz", "--out", "/proc/x/s.json"], "--out"),
    ("finetune-out-unwritable", ["finetune", *MODEL, "--out", "/proc/x"], "'/proc/x'"),
    ("finetune-out-nonempty", ["finetune", *MODEL, "--out", "existing-dir"], "--out"),
    ("finetune-resume-not-run", ["finetune", *MODEL, "--out", "existing-dir", "--resume"], "--out"),
    ("finetune-cache-is-file", ["finetune", *MODEL, "--frozen", "--embedding-cache", "a-file", "--out", "ft"],
     "--embedding-cache"),
    ("debias-out-nonempty", ["debias", "sent-debias", *MODEL, "--out", "existing-dir"], "--out"),
    ("debias-overwrite-foreign", ["debias", "leace", *MODEL, "--out", "existing-dir", "--overwrite"], "--out"),
    ("debias-cda-out-file", ["debias", "cda", *MODEL, "--out", "a-file"], "--out"),
    ("compare-out-file", ["compare", "tiny", "--out", "a-file"], "--out"),
    ("report-missing", ["report", "no-such-dir"], "no-such-dir"),
    # parameter values
    ("embed-batch-tokens-0", ["embed", *MODEL, "--words", "she", "--batch-tokens", "0", "--out", "e.npz"], "--batch-tokens"),
    ("embed-bad-layer", ["embed", *MODEL, "--words", "she", "--layer", "abc", "--out", "e.npz"], "--layer"),
    ("embed-no-words", ["embed", *MODEL, "--out", "e.npz"], "--words"),
    ("embed-empty-words-file", ["embed", *MODEL, "--words-file", "words.txt", "--out", "e.npz"], "--words-file"),
    ("embed-missing-words-file", ["embed", *MODEL, "--words-file", "nope.txt", "--out", "e.npz"], "--words-file"),
    ("sent-debias-k-0", ["debias", "sent-debias", *MODEL, "--k", "0", "--out", "p"], "--k"),
    ("inlp-C-0", ["debias", "inlp", *MODEL, "--C", "0", "--out", "p"], "--C"),
    ("leace-tol-0", ["debias", "leace", *MODEL, "--tol", "0", "--out", "p"], "--tol"),
    ("cda-steps-0", ["debias", "cda", *MODEL, "--steps", "0", "--out", "p"], "--steps"),
    ("cda-max-length-over-limit", ["debias", "cda", M, "tiny-mlm", C, "corpus.txt", "--max-length", "4096",
                                   "--out", "p"], "--max-length"),
    ("finetune-max-length-over-limit", ["finetune", *MODEL, "--max-length", "4096", "--frozen", "--out", "ft"],
     "--max-length"),
    ("finetune-n-examples", ["finetune", *MODEL, "--n-examples", "3", "--frozen", "--out", "ft"], "--n-examples"),
    ("finetune-epochs-0", ["finetune", *MODEL, "--epochs", "0", "--out", "ft"], "--epochs"),
    ("finetune-bios-no-path", ["finetune", *MODEL, "--data", "bios", "--out", "ft"], "--data-path"),
    ("finetune-folds-1", ["finetune", *MODEL, "--folds", "1", "--out", "ft"], "--folds"),
    ("finetune-path-synthetic", ["finetune", *MODEL, "--data-path", "x.csv", "--out", "ft"], "--data-path"),
    ("metrics-bootstrap-neg", ["metrics", "preds.csv", "--bootstrap", "-1", "--out", "m.json"], "--bootstrap"),
    ("metrics-confidence", ["metrics", "preds.csv", "--confidence", "2", "--out", "m.json"], "--confidence"),
    # input files
    ("corpus-missing", ["embed", *MODEL, "--words", "she", C, "nope.txt", "--out", "e.npz"], "nope.txt"),
    ("corpus-binary", ["embed", *MODEL, "--words", "she", C, "binary.bin", "--out", "e.npz"], "binary.bin"),
    ("probe-corpus-no-targets", ["probe", *MODEL, C, "neutral.txt", "--out", "out", "--no-mdl"], "--corpus"),
    ("context-debias-no-stereotype", ["debias", "context-debias", *MODEL, C, "attr-only.txt", "--out", "cd"],
     "--corpus"),
    ("metrics-missing", ["metrics", "nope.csv"], "nope.csv"),
    ("metrics-dir", ["metrics", "existing-dir"], "existing-dir"),
    ("metrics-header-only", ["metrics", "header-only.csv", "--out", "m.json"], "header-only.csv"),
    ("metrics-binary", ["metrics", "binary.bin", "--out", "m.json"], "binary.bin"),
    ("metrics-no-column", ["metrics", "preds.csv", "--label-col", "gold", "--out", "m.json"], "--label-col"),
    ("swap-missing", ["swap", "nope.txt", "--out", "o.txt"], "nope.txt"),
    ("swap-no-column", ["swap", "texts.csv", "--column", "body", "--out", "o.csv"], "body"),
    ("swap-output-column-exists", ["swap", "texts.csv", "--output-column", "id", "--out", "o.csv"], "--output-column"),
    ("swap-unknown-suffix", ["swap", "binary.bin", "--out", "o.bin"], "--format"),
    ("swap-binary-txt", ["swap", "binary.bin", "--format", "txt", "--out", "o.txt"], "binary.bin"),
    ("seat-text-as-npz", ["seat", "--encodings", "texts.txt"], "texts.txt"),
    ("seat-huge-npz", ["seat", "--encodings", "huge.npz"], "huge.npz"),
    ("seat-missing-npz", ["seat", "--encodings", "nope.npz"], "nope.npz"),
    # damaged resume state
    ("cda-resume-finished", ["debias", "cda", M, "tiny-mlm", C, "corpus.txt", "--out", "cda-done", "--resume"],
     "finished"),
    ("cda-resume-truncated-checkpoint", ["debias", "cda", M, "tiny-mlm", C, "corpus.txt", "--steps", "3",
                                         "--batch-size", "2", "--max-length", "16", "--checkpoint-every", "1",
                                         "--checkpoint-dir", "ckpt-trunc", "--out", "cda2", "--resume"],
     "model.safetensors"),
    ("cda-resume-corrupt-state", ["debias", "cda", M, "tiny-mlm", C, "corpus.txt", "--steps", "3",
                                  "--batch-size", "2", "--max-length", "16", "--checkpoint-every", "1",
                                  "--checkpoint-dir", "ckpt-state", "--out", "cda2", "--resume"],
     "trainer_state.json"),
    ("finetune-resume-truncated-fold", ["finetune", *MODEL, "--frozen", "--out", "ft-run", "--resume"], "fold.json"),
    ("finetune-resume-corrupt-run", ["finetune", *MODEL, "--frozen", "--out", "ft-badrun", "--resume"], "run.json"),
    # studies: everything checked before study.json is written
    ("study-binary-toml", ["study", "binary.toml", "--out", "st"], "binary.toml"),
    ("study-missing-toml", ["study", "nope.toml", "--out", "st"], "nope.toml"),
    ("study-bad-k", ["study", "bad-k.toml", "--out", "st"], "[methods.sent-debias] k"),
    ("study-bad-permutations", ["study", "bad-perm.toml", "--out", "st"], "[intrinsic] n_permutations"),
    ("study-missing-model", ["study", "missing-model.toml", "--out", "st"], "model"),
    ("study-missing-corpus", ["study", "bad-corpus.toml", "--out", "st"], "[corpus] files"),
    ("study-newline-label", ["study", "newline-label.toml", "--out", "st"], "label"),
    ("study-slash-label", ["study", "slash-label.toml", "--out", "st"], "label"),
    ("study-other-base", ["study", "other-base.toml", "--out", "st"], "debiased.sent-debias"),
    ("study-folds-1", ["study", "bad-folds.toml", "--out", "st"], "study.folds"),
    ("study-unknown-key", ["study", "unknown-key.toml", "--out", "st"], "study.foo"),
    ("study-out-not-a-study", ["study", "--out", "existing-dir"], "--out"),
    ("study-out-file", ["study", "--out", "a-file"], "--out"),
    ("study-bad-shard", ["study", "--shard", "5/2", "--out", "st"], "--shard"),
    ("compare-no-models", ["compare", "--out", "cmp"], "CKPT"),
    ("compare-missing-model", ["compare", "./no-such-dir", "--out", "cmp"], "no-such-dir"),
]


def test_at_least_sixty_cases():
    assert len(CASES) >= 60
    assert len({name for name, _, _ in CASES}) == len(CASES)


@pytest.mark.parametrize(("name", "argv", "needle"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_clear_line_and_leaves_disk_as_it_was(world, monkeypatch, capsys, name, argv, needle):
    monkeypatch.chdir(world)
    before = _snapshot(world)
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code == 2, captured.err
    assert "Traceback" not in captured.err
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"probekit {argv[0]}: error: "), lines[0]
    assert needle in lines[0], lines[0]
    assert "payload ran" not in captured.out  # a pickled payload is never executed
    assert _snapshot(world) == before, sorted(set(_snapshot(world).items()) ^ set(before.items()))


# ------------------------------------------------------------------------------------- writes outside --out


class _FakeSuiteResult:
    """Stands for a probe-suite result (the suite itself is tested elsewhere; here only paths matter)."""

    def save(self, directory, label=None):
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for name in ("results.json", "summary.md", "probe.png"):
            (directory / name).write_text("{}" if name.endswith(".json") else "x")
        return directory


def _fake_comparison(runs, out, sources=None, random_state=None, **_):
    out = Path(out)
    paths = {"markdown": out / "comparison.md", "overview": out / "comparison.png", "records": out / "comparison.json"}
    for path in paths.values():
        path.write_text("x")
    return paths


@pytest.mark.parametrize(("model", "cwd"), [(".", "m"), ("..", "m/inner"), ("./", "m"), ("../", "m/inner"),
                                            ("we\nird", "."), ("m/inner/", ".")])
def test_compare_never_writes_outside_out(world, tmp_path, monkeypatch, capsys, model, cwd):
    """``compare . --out OUT`` and ``compare .. --out sub/cmp``: every file lands in a named directory under --out."""
    import probekit.intrinsic
    import probekit.report

    shutil.copytree(world / "tiny", tmp_path / "m")
    shutil.copytree(world / "tiny", tmp_path / "m" / "inner")
    shutil.copytree(world / "tiny", tmp_path / "we\nird")
    monkeypatch.setattr(probekit.intrinsic, "run_probe_suite", lambda *a, **k: _FakeSuiteResult())
    monkeypatch.setattr(probekit.report, "write_intrinsic_comparison", _fake_comparison)
    monkeypatch.chdir(tmp_path / cwd)
    before = _snapshot(tmp_path)
    assert main(["compare", model, "--out", "sub/cmp", "--cache-dir", "sub/cmp/cache"]) == 0, capsys.readouterr().err
    out = (tmp_path / cwd / "sub" / "cmp").resolve()
    written = [tmp_path / k for k in set(_snapshot(tmp_path)) - set(before)]
    assert written
    for path in written:  # --out, what lies under it, and the parents created to hold it
        resolved = path.resolve()
        assert resolved == out or out in resolved.parents or (path.is_dir() and resolved in out.parents), path
    per_model = [p for p in out.iterdir() if p.is_dir() and p.name not in ("cache", "figures", "tables")]
    assert len(per_model) == 1 and (per_model[0] / "results.json").is_file()
    assert "\n" not in per_model[0].name and per_model[0].name not in {".", ".."}


@pytest.mark.parametrize("name", [".", "..", "./", "../", "", "a/../..", "tiny\n", "x/y"])
def test_compare_slugs_are_plain_names(name):
    from probekit.cli.compare import _slug

    slug = _slug(name, set())
    assert slug not in {"", ".", ".."} and "/" not in slug and "\n" not in slug


@pytest.mark.parametrize("label", ["tiny\n", "a/b", "../x", ".", ".."])
def test_study_labels_cannot_name_paths(label):
    from probekit.errors import InvalidParameterError
    from probekit.study import parse_config

    with pytest.raises(InvalidParameterError, match="label"):
        parse_config({"encoders": [{"label": label, "model": "default"}]})


def test_huge_npz_in_the_cache_is_rebuilt_not_allocated(tmp_path):
    from probekit.embedding import EmbeddingCache

    cache = EmbeddingCache(tmp_path)
    _huge_npz(cache.path_for("k"))
    assert cache.load("k") is None
    assert not cache.path_for("k").exists()


def test_a_study_directory_without_finished_units_may_be_reused(tmp_path):
    """A config corrected after a failed start reuses its --out; once a unit is finished, it is refused."""
    from probekit.errors import InvalidParameterError
    from probekit.study import parse_config, run_study

    def config(seed):
        return parse_config({"study": {"methods": ["none"], "finetune": False, "seed": seed}})

    out = tmp_path / "st"
    run_study(config(0), out, prepare=True)
    assert (out / "study.json").is_file()
    run_study(config(1), out, prepare=True)  # no unit finished: the new study replaces the manifest
    assert json.loads((out / "study.json").read_text())["config"]["study"]["seed"] == 1
    (out / "units").mkdir(exist_ok=True)
    (out / "units" / "some-unit.json").write_text("{}")
    with pytest.raises(InvalidParameterError, match="--out"):
        run_study(config(2), out, prepare=True)


def test_debiased_paths_built_from_the_encoder_pass_the_fingerprint_check(world, monkeypatch):
    """The fingerprint check refuses only another base: a projection and a CDA checkpoint of the study's
    own encoders are accepted (nothing to build, so ``prepare`` returns at once)."""
    from probekit.study import parse_config, run_study

    monkeypatch.chdir(world)
    for method, model, path in (("sent-debias", "./tiny", "./proj"), ("cda", "./tiny-mlm", "./cda-done")):
        config = parse_config({"study": {"methods": [method], "finetune": False},
                               "encoders": [{"label": "t", "model": model, "debiased": {method: path}}]})
        out = world / f"study-ok-{method}"
        try:
            summary = run_study(config, out, prepare=True)
            assert summary.n_units > 0 and (out / "study.json").is_file()
        finally:
            shutil.rmtree(out, ignore_errors=True)
