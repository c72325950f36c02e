"""The one method registry (debias.DEBIAS_METHODS) and the one settings table
(probekit.finetune.SETTING_TABLE), and the lists elsewhere that must not drift from them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import debias
from debias import DEBIAS_METHODS, PROJECTION_METHODS, TRAINING_METHODS, build_debiased, get_method, is_debiased_dir
from probekit.errors import InvalidParameterError
from probekit.finetune import DATA_SETTINGS, SETTING_TABLE
from probekit.report import METHOD_ORDER, SETTING_ORDER, checkpoint_method
from tests.conftest import REPO_ROOT


def test_every_entry_is_complete():
    # dropout (and self-debias) added by issue #17
    # rlace and concept-scrubbing added by issue #25
    assert list(DEBIAS_METHODS)[:7] == ["sent-debias", "inlp", "leace", "rlace", "concept-scrubbing", "cda", "context-debias"]
    assert list(DEBIAS_METHODS)[7:] == ["dropout", "self-debias"]
    for name, method in DEBIAS_METHODS.items():
        assert method.name == name and method.kind in debias.METHOD_KINDS
        assert method.marker == {"projection": "projection.json", "training": "debias.json",
                                 "inference": "self_debias.json"}[method.kind]
        assert method.citation and method.help and method.estimator is getattr(debias, method.class_name)
    assert PROJECTION_METHODS == ("sent-debias", "inlp", "leace", "rlace", "concept-scrubbing") and TRAINING_METHODS == ("cda", "context-debias", "dropout")
    assert getattr(debias.CDA, "method", "cda") == "cda" and debias.ContextDebias.method == "context-debias"


def test_unknown_method_names_the_valid_ones():
    with pytest.raises(InvalidParameterError, match="sent-debias"):
        get_method("hard-debias")


def test_report_method_order_lists_exactly_the_registry():
    """probekit.report may not import debias, so it keeps its own order; it must not drift."""
    assert set(METHOD_ORDER) == {"none", "pretrained", *DEBIAS_METHODS}
    assert len(METHOD_ORDER) == len(set(METHOD_ORDER))
    assert [m for m in METHOD_ORDER if m in DEBIAS_METHODS] == list(DEBIAS_METHODS)


def test_report_reads_every_projection_class_name(tmp_path):
    for name in PROJECTION_METHODS:
        directory = tmp_path / name
        directory.mkdir()
        record = {"format": "probekit-output-projection", "method": {"name": get_method(name).class_name}}
        (directory / "projection.json").write_text(json.dumps(record), encoding="utf-8")
        assert checkpoint_method(directory)["method"] == name


def test_report_setting_order_is_the_settings_table():
    assert tuple(SETTING_ORDER) == DATA_SETTINGS == tuple(SETTING_TABLE)
    for name, setting in SETTING_TABLE.items():
        assert setting.name == name and setting.description and setting.training_data


def test_study_and_cli_read_the_tables():
    from probekit.cli.finetune import SETTING_CHOICES
    from probekit.study import METHODS, SETTINGS

    assert METHODS == ("none", *DEBIAS_METHODS) and tuple(SETTINGS) == DATA_SETTINGS
    assert tuple(SETTING_CHOICES) == DATA_SETTINGS and "scrubbed" in SETTING_CHOICES


def test_the_registry_and_the_cli_parsers_load_no_torch():
    code = ("import sys, debias; from probekit.cli.main import build_parser; build_parser(); "
            "assert 'torch' not in sys.modules, 'torch loaded'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT)


def test_build_debiased_writes_a_marked_directory_with_provenance(tiny_encoder, tmp_path):
    corpus = ["she is a nurse .", "he is a nurse .", "the woman works .", "the man works .",
              "her mother sings .", "his father sings ."] * 3
    out = tmp_path / "sd"
    built = build_debiased("sent-debias", tiny_encoder, corpus, out, options={"k": 1, "max_sentences": 10}, seed=3,
                           command="test", progress=False)
    assert built.path == out and is_debiased_dir(out, "sent-debias") and not is_debiased_dir(out, "cda")
    saved = json.loads((out / "projection.json").read_text(encoding="utf-8"))
    parameters = saved["provenance"]["parameters"]
    assert parameters["command"] == "test" and parameters["k"] == 1 and parameters["max_sentences"] == 10
    assert parameters["random_state"] == 3 and saved["provenance"]["seeds"] == {"seed": 3}


def test_build_debiased_refuses_an_unknown_option(tiny_encoder, tmp_path):
    with pytest.raises(InvalidParameterError, match="options.steps"):
        build_debiased("leace", tiny_encoder, None, tmp_path / "x", options={"steps": 3})
