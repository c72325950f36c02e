"""The k-class attribute probe (``probekit probe --attribute race|religion|FILE``) on a tiny random model."""

from __future__ import annotations

import json
import math

import pytest

import wordlists
from debias import find_group_terms, group_context_corpus
from probekit.cli.main import main
from probekit.errors import InvalidParameterError
from probekit.intrinsic import AttributeProbeResult, run_probe_suite
from probekit.text import attribute_corpus

FAST = dict(max_per_word=2, n_bootstrap=20, progress=False)


def test_attribute_corpus_holds_one_group_term_per_sentence_in_group_context():
    corpus = attribute_corpus("race")
    race = wordlists.get_attribute("race")
    sample = corpus.sentences[::37]
    for sentence in sample:
        found = find_group_terms(sentence, race)
        assert len(found) == 1, (sentence, found)
    # "black" only ever before a person noun, never as a colour
    assert "A black person was waiting outside when the doors opened." in corpus.sentences
    assert not any("black" in s.lower().split() and not ("black person" in s.lower() or "black people" in s.lower())
                   for s in corpus.sentences)
    assert wordlists.attribute_term_slots("religion")["islam"] == "mass_noun"


def test_own_corpus_keeps_only_sentences_where_a_ruled_word_is_a_group_term():
    sentences = ["The black women spoke first.", "A black cat crossed the road.", "Christian Bale was there.",
                 "The Christian family moved in.", "White wine was served."]
    kept = group_context_corpus(sentences, "race").sentences
    assert kept == ("The black women spoke first.", "Christian Bale was there.", "The Christian family moved in.")
    assert group_context_corpus(sentences, "religion").sentences == (
        "The black women spoke first.", "A black cat crossed the road.", "The Christian family moved in.",
        "White wine was served.")


def test_race_probe_is_k_class_with_chance_one_over_k(tiny_encoder, tmp_path):
    result = run_probe_suite(tiny_encoder, attribute="race", random_state=2, **FAST)
    assert isinstance(result, AttributeProbeResult)
    data = result.to_dict()
    assert data["attribute"]["groups_probed"] == ["black", "white", "asian", "latino"] and data["attribute"]["k"] == 4
    linear = data["readers"]["linear"]
    assert linear["chance"] == pytest.approx(0.25) and data["probe"] == linear
    assert 0.0 <= linear["balanced_accuracy_ci"][0] <= linear["balanced_accuracy"] <= linear["balanced_accuracy_ci"][1]
    n = sum(g["occurrences"] for g in data["words"]["groups"].values())
    assert n == linear["n_train"] + linear["n_test"]
    # the uniform code of K = 4 classes: n log2 4 bits
    assert data["mdl"]["n_classes"] == 4 and data["mdl"]["uniform_codelength"] == pytest.approx(n * math.log2(4))
    # the verdict reads chance 1/4: above chance iff the interval's lower end exceeds 0.25
    assert ("linear" in data["verdict"]["above_chance"]) == (linear["balanced_accuracy_ci"][0] > 0.25)
    assert data["provenance"]["attribute"]["name"] == "race"
    assert data["provenance"]["parameters"]["single_piece_only"] is False
    # terms of several wordpieces are kept by default ("asian-american", "Darnell")
    assert "asian-american" in data["words"]["groups"]["asian"]["used"]
    summary = (result.save(tmp_path) / "summary.md").read_text()
    assert "# probekit intrinsic probe: race" in summary and "## race: groups and terms" in summary
    assert "gender" not in summary.lower()


def test_probe_cli_attribute_from_a_table_of_ones_own(tiny_checkpoints, tmp_path, capsys):
    table = tmp_path / "age.tsv"
    table.write_text("young\told\nyoung\told\nteenager\tretiree\nyouth\telderly\nteen\tpensioner\n", encoding="utf-8")
    common = ["--model", str(tiny_checkpoints["base"]), "--max-per-word", "2", "--bootstrap", "10", "--no-progress"]
    out = tmp_path / "age"
    assert main(["probe", "--attribute", str(table), "--out", str(out), "--upper-bounds", "oracle-leace",
                 "--eraser-folds", "2", *common]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["attribute"]["groups_probed"] == ["young", "old"] and results["probe"]["chance"] == 0.5
    bound = results["upper_bounds"]["oracle-leace"]["rows"][0]["readers"]["linear"]
    assert bound["chance"] == 0.5 and bound["n_test"] == sum(g["occurrences"] for g in results["words"]["groups"].values())
    summary = (out / "summary.md").read_text()
    assert "# probekit intrinsic probe: age" in summary and "Removed or hidden? (age)" in summary
    assert "Upper bounds: label-aware erasers (not deployable; age)" in summary
    assert "gender" not in summary.lower() and not (out / "probe.png").exists()
    wordlists.unregister_attribute("age")
    assert main(["probe", "--attribute", "caste", "--out", str(tmp_path / "x"), *common]) == 2
    assert "--attribute" in capsys.readouterr().err
    assert main(["probe", "--lpbs-targets", "nurse", "--out", str(tmp_path / "y"), *common]) == 2  # gender: the paper's
    assert "--lpbs-targets" in capsys.readouterr().err


def test_attribute_probe_needs_two_groups_with_two_terms(tiny_encoder):
    with pytest.raises(InvalidParameterError, match="corpus"):
        run_probe_suite(tiny_encoder, ["The black people arrived.", "The white people arrived."],
                        attribute="race", **FAST)


def test_compare_cli_attribute_one_row_per_checkpoint(tiny_checkpoints, tmp_path):
    out = tmp_path / "cmp"
    table_file = tmp_path / "age.tsv"
    table_file.write_text("young\told\nyoung\told\nteenager\tretiree\nyouth\telderly\n", encoding="utf-8")
    assert main(["compare", str(tiny_checkpoints["base"]), str(tiny_checkpoints["mlm"]), "--attribute", str(table_file),
                 "--max-per-word", "2", "--bootstrap", "10", "--no-mdl", "--lpbs-targets", "nurse,doctor", "--no-progress",
                 "--out", str(out)]) == 0
    wordlists.unregister_attribute("age")
    table = (out / "comparison.md").read_text()
    assert "# probekit comparison: age" in table and "gender" not in table.lower()
    for checkpoint in ("base", "mlm"):
        results = json.loads(next(out.glob(f"*{checkpoint}*/results.json")).read_text())
        assert results["attribute"]["name"] == "age"
        assert f"{results['probe']['balanced_accuracy']:.3f} [" in table
        # LPBS with k groups where a masked-LM head defines it ("skipped" on the base checkpoint)
        lpbs = results["lpbs"]
        assert lpbs["status"] == ("ok" if checkpoint == "mlm" else "skipped")
    assert set(lpbs["attr"]["per_group"]) == {"young", "old"} and lpbs["attr"]["targets"] == ["nurse", "doctor"]
    assert lpbs["attr_lpbs"] == pytest.approx(sum(lpbs["attr"]["per_target"].values()) / len(lpbs["attr"]["targets"]))
    summary = next(out.glob("*mlm*/summary.md")).read_text()
    assert "## LPBS with 2 age groups" in summary
    assert main(["compare", str(tiny_checkpoints["base"]), "--attribute", "race", "--benchmarks",
                 f"seat-suite={tmp_path}", "--out", str(tmp_path / "x")]) == 2

