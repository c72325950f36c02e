"""The study report names its attribute; a gender study's report is byte-identical to the one main
wrote before attributes reached the study (saved units of a tiny gender study, its report.md and
tables/intrinsic.csv as main rendered them)."""

from __future__ import annotations

import shutil
from pathlib import Path

from probekit import __version__
from probekit.report import build_report

DATA = Path(__file__).resolve().parent / "data"


def test_gender_study_report_is_unchanged(tmp_path):
    study = tmp_path / "study"
    shutil.copytree(DATA / "study_gender", study)
    report = build_report(study)
    expected = (DATA / "study_gender_report.md").read_text(encoding="utf-8")
    expected = expected.replace("{root}", str(study)).replace("{version}", __version__)
    assert (report / "report.md").read_text(encoding="utf-8") == expected
    assert (report / "tables" / "intrinsic.csv").read_text(encoding="utf-8") == (
        DATA / "study_gender_intrinsic.csv").read_text(encoding="utf-8")
