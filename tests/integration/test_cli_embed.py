"""``probekit embed`` and ``probekit info`` end to end, in process, on tiny local checkpoints."""

from __future__ import annotations

import json

import numpy as np
import pytest

from probekit.cli.main import main


@pytest.fixture()
def corpus_file(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(
        "The nurse met the engineer.\nAn engineer fixed the engine.\nShe is a nurse.\nNothing here.\n", encoding="utf-8"
    )
    return path


def test_embed_words_writes_npz_with_provenance(tiny_checkpoints, corpus_file, tmp_path, capsys):
    out = tmp_path / "emb.npz"
    with pytest.warns(UserWarning, match="no sentence.*absent"):
        code = main([
            "embed", "--model", str(tiny_checkpoints["base"]), "--corpus", str(corpus_file),
            "--words", "nurse,engineer,absent", "--layer", "0,-1", "--out", str(out), "--no-progress",
        ])
    assert code == 0
    assert "no sentence for: absent" in capsys.readouterr().out
    with np.load(out, allow_pickle=False) as data:
        assert data["embeddings"].shape == (4, 2, 32)
        assert sorted(data["words"].tolist()) == ["engineer", "engineer", "nurse", "nurse"]
        provenance = json.loads(str(data["provenance"]))
    assert provenance["model"]["has_mlm_head"] is False
    assert provenance["parameters"]["layer"] == [0, -1]
    assert provenance["wordlists"]["words"]


def test_embed_sentences(tiny_checkpoints, corpus_file, tmp_path):
    out = tmp_path / "sent.npz"
    assert main(["embed", "--model", str(tiny_checkpoints["mlm"]), "--corpus", str(corpus_file),
                 "--sentences", "--pooling", "cls", "--out", str(out), "--no-progress"]) == 0
    with np.load(out, allow_pickle=False) as data:
        assert data["embeddings"].shape == (4, 32)
        assert data["sentences"][0] == "The nurse met the engineer."


@pytest.mark.parametrize(
    "override, message",
    [
        ({"--layer": "9"}, "layer"),
        ({"--layer": "last"}, "--layer"),
        ({"--pooling": "max"}, "pooling='max'"),
        ({"--words": " , "}, "--words"),
        ({"--out": "NEVER.txt"}, "--out"),
    ],
)
def test_bad_input_exits_nonzero_without_traceback(tiny_checkpoints, corpus_file, tmp_path, capsys, override, message):
    options = {"--model": str(tiny_checkpoints["base"]), "--corpus": str(corpus_file), "--words": "nurse",
               "--out": str(tmp_path / "never.npz")}
    options.update({k: (str(tmp_path / v) if k == "--out" else v) for k, v in override.items()})
    args = ["embed", "--no-progress"] + [item for pair in options.items() for item in pair]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [corpus_file]  # nothing half-written


def test_nonexistent_model_and_non_utf8_corpus(tmp_path, capsys):
    assert main(["embed", "--model", "./missing-model", "--words", "nurse", "--out", str(tmp_path / "a.npz")]) == 2
    assert "does not exist" in capsys.readouterr().err
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("La infirmière.\n".encode("latin-1"))
    assert main(["embed", "--corpus", str(latin), "--words", "nurse", "--out", str(tmp_path / "b.npz")]) == 2
    err = capsys.readouterr().err
    assert "encoding" in err and "Traceback" not in err


def test_words_with_no_sentence_as_error(tiny_checkpoints, corpus_file, tmp_path, capsys):
    code = main(["embed", "--model", str(tiny_checkpoints["base"]), "--corpus", str(corpus_file), "--words", "nurse,absent",
                 "--on-missing", "error", "--out", str(tmp_path / "c.npz"), "--no-progress"])
    assert code == 2 and "absent" in capsys.readouterr().err
    assert not (tmp_path / "c.npz").exists()


def test_info_reports_the_masked_lm_head(tiny_checkpoints, capsys):
    assert main(["info", "--model", str(tiny_checkpoints["mlm"])]) == 0
    out = capsys.readouterr().out
    assert "has_mlm_head   True" in out and "transformers" in out
    assert main(["info", "--model", str(tiny_checkpoints["base"])]) == 0
    assert "no masked-LM head" in capsys.readouterr().out


def test_max_per_word_caps_occurrences(tiny_checkpoints, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(["The nurse and the engineer met."] * 1 + [f"Engineer {i} left." for i in range(5)]) + "\n",
                      encoding="utf-8")
    out = tmp_path / "capped.npz"
    assert main(["embed", "--model", str(tiny_checkpoints["base"]), "--corpus", str(corpus), "--words", "nurse,engineer",
                 "--max-per-word", "1", "--out", str(out), "--no-progress"]) == 0
    with np.load(out, allow_pickle=False) as data:
        assert sorted(data["words"].tolist()) == ["engineer", "nurse"]
