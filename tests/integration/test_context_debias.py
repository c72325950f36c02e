"""Context-debias on tiny random models: loss terms against brute force, training, resume, output, CLI."""

from __future__ import annotations

import re

import pytest
import torch

from debias import ContextDebias, attribute_vectors, orthogonality_term, read_debias_record
from debias._context_debias import (
    _ATTRIBUTE,
    _STEREOTYPE,
    ContextDebiasCollator,
    ContextDebiasObjective,
    _tokenize_with_words,
    context_debias_layers,
)
from probekit import load_encoder, run_probe_suite
from probekit.cli.main import main
from probekit.encoders import Encoder
from probekit.text import template_corpus
from tests.conftest import build_tiny_model

FEMALE = ["she", "woman", "mother", "girl", "her"]
MALE = ["he", "man", "father", "boy", "his"]
STEREOTYPES = ["nurse", "engineer", "receptionist", "carpenter", "scientist", "pretty"]
PROBE = dict(n_permutations=100, n_bootstrap=50, standard_tests=(), max_per_word=5, progress=False)


#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def corpus():
    return template_corpus(FEMALE + MALE + STEREOTYPES, frames_per_word=10, random_state=0)


@pytest.fixture(scope="module")
def held_out(corpus):
    seen = set(corpus)
    return [s for s in template_corpus(STEREOTYPES, frames_per_word=25, random_state=1) if s not in seen]


def _encoder(kind: str, seed: int = 0) -> Encoder:
    model, tokenizer = build_tiny_model(kind, seed=seed)
    return Encoder.from_model(model, tokenizer, name=f"tiny-{kind}", device="cpu")


def _weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _fast(**overrides) -> ContextDebias:
    settings = dict(steps=30, batch_size=16, learning_rate=2e-3, dev_size=12, seed=0)
    settings.update(overrides)
    return ContextDebias(**settings)


def _pieces(tokenizer, sentence: str, words) -> list[tuple[int, list[int]]]:
    """Brute force: (word index in ``words``, wordpiece positions) of each whole-word occurrence."""
    encoded = tokenizer(sentence, return_offsets_mapping=True)
    found = []
    for w, word in enumerate(words):
        for m in re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", sentence, flags=re.IGNORECASE):
            positions = [i for i, (s, e) in enumerate(encoded["offset_mapping"]) if e > s and s < m.end() and e > m.start()]
            found.append((w, positions))
    return found


def _hidden(model, tokenizer, sentence: str) -> torch.Tensor:
    encoded = tokenizer(sentence, return_tensors="pt")
    with torch.no_grad():
        return torch.stack(model(**encoded, output_hidden_states=True).hidden_states)[:, 0]  # (layers, length, hidden)


def test_attribute_vectors_equal_a_forward_pass_per_sentence(corpus):
    encoder = _encoder("base")
    sentences = ([s for s in corpus if _pieces(encoder.tokenizer, s, FEMALE)][:20]
                 + [s for s in corpus if _pieces(encoder.tokenizer, s, MALE)][:20])
    vectors = attribute_vectors(encoder, sentences, FEMALE, MALE)
    sums, counts = torch.zeros_like(vectors, dtype=torch.float64), torch.zeros(2)
    for sentence in sentences:
        hidden = _hidden(encoder.model, encoder.tokenizer, sentence)
        for w, positions in _pieces(encoder.tokenizer, sentence, FEMALE + MALE):
            group = 0 if w < len(FEMALE) else 1
            sums[group] += hidden[:, positions].mean(1)
            counts[group] += 1
    torch.testing.assert_close(vectors, (sums / counts[:, None, None]).float(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("level", ["token", "sentence"])
def test_loss_terms_equal_brute_force_without_padding(corpus, level):
    """A padded batch of both kinds gives the sums of unpadded single-sentence forward passes."""
    original = _encoder("base")
    trained = _encoder("base", seed=1).model  # another model, so the regularizer is not zero
    tokenizer = original.tokenizer
    stereotype = [s for s in corpus if any(_pieces(tokenizer, s, STEREOTYPES))][:5]
    attribute = [s for s in corpus if any(_pieces(tokenizer, s, FEMALE))][:5]
    examples = (_tokenize_with_words(tokenizer, stereotype, STEREOTYPES, kind=_STEREOTYPE, max_length=64, case_sensitive=False)
                + _tokenize_with_words(tokenizer, attribute, FEMALE, kind=_ATTRIBUTE, max_length=64, case_sensitive=False))
    assert len({len(e.ids) for e in examples}) > 1  # padding is really there
    vectors = torch.randn(2, 3, 32, generator=torch.Generator().manual_seed(0))
    layers = context_debias_layers("all", 2)
    objective = ContextDebiasObjective(trained, original.model, vectors, layers, 0.2, 0.8).eval()
    with torch.no_grad():
        orth, n_orth, reg, n_reg = objective.sums(**ContextDebiasCollator(tokenizer.pad_token_id, level)(examples))

    expected_orth, expected_n_orth, expected_reg, expected_n_reg = 0.0, 0, 0.0, 0
    for sentence in stereotype:
        hidden = _hidden(trained, tokenizer, sentence)
        if level == "token":
            units = [hidden[:, p].mean(1) for _, p in _pieces(tokenizer, sentence, STEREOTYPES)]
        else:
            units = [hidden[:, t] for t in range(hidden.shape[1])]
        for unit in units:  # (layers, hidden)
            expected_orth += float(((vectors * unit).sum(-1) ** 2).sum())
            expected_n_orth += len(layers)
    for sentence in attribute:
        difference = _hidden(trained, tokenizer, sentence) - _hidden(original.model, tokenizer, sentence)
        expected_reg += float((difference ** 2).sum())
        expected_n_reg += difference.shape[0] * difference.shape[1]
    assert (n_orth, n_reg) == (expected_n_orth, expected_n_reg)
    assert float(orth) == pytest.approx(expected_orth, rel=1e-4)
    assert float(reg) == pytest.approx(expected_reg, rel=1e-4)


def test_layer_choices():
    assert context_debias_layers("first", 6) == (0,) and context_debias_layers("last", 6) == (6,)
    assert context_debias_layers("all", 6) == tuple(range(7))
    with pytest.raises(ValueError, match="layers"):
        _fast(layers="middle").fit(_encoder("base"), ["she is here"], progress=False)


def test_training_shrinks_the_orthogonality_term_on_held_out_sentences(corpus, held_out, tmp_path):
    encoder = _encoder("base")
    debiaser = _fast().fit(encoder, corpus, progress=False)
    history = debiaser.history_
    assert sum(history.losses[-5:]) < sum(history.losses[:5])
    assert history.best_value == min(v for _, v in history.eval_history)
    assert history.best_step == min(history.eval_history, key=lambda e: e[1])[0]

    vectors = debiaser.attribute_vectors_
    before = orthogonality_term(encoder, held_out, STEREOTYPES, vectors)
    after = orthogonality_term(debiaser.to_encoder(), held_out, STEREOTYPES, vectors)
    assert after < 0.5 * before

    out = debiaser.save(tmp_path / "context-debias")
    record = read_debias_record(out)
    assert record["method"] == "context-debias" and record["hyperparameters"]["alpha"] == 0.2
    assert record["base_model"]["fingerprint"] == encoder.fingerprint
    assert record["data"]["n_dev_sentences"] == {"stereotype": 12, "attribute": 12}
    loaded = load_encoder(out, device="cpu")
    assert not loaded.has_mlm_head and loaded.fingerprint == record["fingerprint"]
    for key, value in _weights(loaded.model).items():
        assert torch.equal(value, _weights(debiaser.model_)[key]), key
    result = run_probe_suite(loaded, **PROBE).to_dict()
    assert result["lpbs"]["status"] == "skipped" and "gender_accuracy" in result["probe"]


def test_masked_lm_head_is_kept_and_stays_tied(corpus, tmp_path):
    encoder = _encoder("mlm")
    debiaser = _fast(steps=3, layers="last", level="sentence").fit(encoder, corpus, progress=False)
    model = debiaser.model_
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight
    assert not torch.equal(model.get_input_embeddings().weight, encoder.mlm_model.get_input_embeddings().weight)
    loaded = load_encoder(debiaser.save(tmp_path / "out"), device="cpu")
    assert loaded.has_mlm_head


def test_resume_equals_an_uninterrupted_run(corpus, tmp_path):
    settings = dict(steps=9, checkpoint_every=3, eval_every=2)
    full = _fast(**settings).fit(_encoder("base"), corpus, progress=False)

    class Interrupt(Exception):
        pass

    def stop(step, values):
        if step == 5:
            raise Interrupt

    with pytest.raises(Interrupt):
        _fast(**settings).fit(_encoder("base"), corpus, checkpoint_dir=tmp_path, callback=stop, progress=False)
    resumed = _fast(**settings).fit(_encoder("base"), corpus, checkpoint_dir=tmp_path, resume=True, progress=False)
    assert resumed.history_.resumed_from == 3
    assert resumed.history_.eval_history == full.history_.eval_history
    expected = _weights(full.model_)
    for key, value in _weights(resumed.model_).items():
        assert torch.equal(value, expected[key]), key


def _one_line_error(capsys, *needles: str) -> str:
    captured = capsys.readouterr()
    error = captured.err.strip()
    assert "Traceback" not in captured.err and len(error.splitlines()) == 1, captured.err
    assert error.startswith("probekit debias: error:"), error
    for needle in needles:
        assert needle in error, (needle, error)
    return error


def _cli_args(model, corpus_file, out, *extra) -> list[str]:
    return ["debias", "context-debias", "--model", str(model), "--corpus", str(corpus_file), "--steps", "4",
            "--batch-size", "8", "--dev-size", "4", "--max-per-word", "0", "--checkpoint-every", "2", "--no-progress",
            "--out", str(out), *extra]


def test_cli_context_debias(tiny_checkpoints, corpus, tmp_path, capsys):
    corpus_file = corpus.to_text_file(tmp_path / "corpus.txt")
    out = tmp_path / "out"
    args = _cli_args(tiny_checkpoints["base"], corpus_file, out)
    assert main(args) == 0
    assert "best dev loss" in capsys.readouterr().out
    record = read_debias_record(out)
    assert record["method"] == "context-debias" and record["training"]["steps"] == 4
    assert record["hyperparameters"]["max_per_word"] is None and record["data"]["digest"] == corpus.digest
    assert load_encoder(out, device="cpu").fingerprint == record["fingerprint"]
    assert not (tmp_path / "out.checkpoints").exists()
    assert main(args) == 2
    _one_line_error(capsys, "--out", "already holds files")


def test_cli_interrupted_run_resumes_to_the_same_checkpoint(tiny_checkpoints, corpus, tmp_path, capsys, monkeypatch):
    """Ctrl-C mid-run: exit 130, no output directory, checkpoints kept; --resume finishes it to the
    weights of an uninterrupted run; without --resume the kept checkpoints are refused."""
    import debias._context_debias as module

    corpus_file = corpus.to_text_file(tmp_path / "corpus.txt")
    model = tiny_checkpoints["base"]
    assert main(_cli_args(model, corpus_file, tmp_path / "full")) == 0

    real_train = module.train

    def interrupted_train(*args, callback=None, **kwargs):
        def stop(step, values):
            if step == 3:
                raise KeyboardInterrupt
        return real_train(*args, callback=stop, **kwargs)

    out = tmp_path / "out"
    monkeypatch.setattr(module, "train", interrupted_train)
    assert main(_cli_args(model, corpus_file, out)) == 130
    monkeypatch.setattr(module, "train", real_train)
    assert not out.exists() and (tmp_path / "out.checkpoints" / "step-00000002").is_dir()
    capsys.readouterr()

    assert main(_cli_args(model, corpus_file, out)) == 2
    _one_line_error(capsys, "--resume", "out.checkpoints")
    assert main(_cli_args(model, corpus_file, out, "--resume")) == 0
    assert read_debias_record(out)["training"]["resumed_from"] == 2
    resumed, full = load_encoder(out, device="cpu"), load_encoder(tmp_path / "full", device="cpu")
    expected = _weights(full.model)
    for key, value in _weights(resumed.model).items():
        assert torch.equal(value, expected[key]), key
    assert not (tmp_path / "out.checkpoints").exists()


@pytest.mark.parametrize(
    "bad, needle",
    [
        (["--steps", "0"], "--steps"),
        (["--lr", "-1"], "--lr"),
        (["--alpha=-0.5"], "--alpha"),
        (["--dev-size", "0"], "--dev-size"),
        (["--max-per-word", "-1"], "--max-per-word"),
        (["--eval-every", "0"], "--eval-every"),
        (["--stereotype-file", "/nonexistent/stereotypes.txt"], "stereotypes.txt"),
        (["--attribute-files", "/nonexistent/f.txt", "/nonexistent/m.txt"], "f.txt"),
    ],
)
def test_cli_bad_arguments_write_nothing(tiny_checkpoints, tmp_path, capsys, bad, needle):
    out = tmp_path / "run" / "out"
    args = ["debias", "context-debias", "--model", str(tiny_checkpoints["base"]), "--no-progress", "--out", str(out)]
    assert main([*args, *bad]) == 2
    _one_line_error(capsys, needle)
    assert not (tmp_path / "run").exists()  # neither --out nor a checkpoint directory (nor their parent: issue 19)


def test_cli_defaults_are_the_library_defaults():
    import inspect

    from probekit.cli.main import build_parser

    library = {k: v.default for k, v in inspect.signature(ContextDebias).parameters.items()}
    args = build_parser().parse_args(["debias", "context-debias", "--out", "x"])
    cli = dict(steps=args.steps, batch_size=args.batch_size, learning_rate=args.lr, max_length=args.max_length,
               alpha=args.alpha, beta=args.beta, layers=args.layers, level=args.level, dev_size=args.dev_size,
               eval_every=args.eval_every, max_per_word=args.max_per_word or None)
    assert cli == {k: library[k] for k in cli}
