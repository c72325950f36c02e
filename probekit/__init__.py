"""probekit: does debiasing an encoder remove gender information or only hide it?

The public API is listed in ``__all__``. Each name is imported on first use (PEP 562), so that
``import probekit.errors``, ``import wordlists`` or ``import probekit.extrinsic`` load no torch.

Where things live (a folder per concern, layered from the bottom up; see README "Layout"):
:mod:`probekit.utils` (files, provenance, checks, processes), :mod:`probekit.stats`,
:mod:`probekit.text` (corpora, templates, sentence selection), :mod:`probekit.encoders`,
:mod:`probekit.training` (the one training loop), :mod:`probekit.embedding` (the extraction
engine), :mod:`probekit.extrinsic` (the metric engine), :mod:`probekit.report` (rendering),
:mod:`probekit.intrinsic` (SEAT, LPBS, the gender probe, MDL, the probe suite),
:mod:`probekit.finetune`, :mod:`probekit.study` and :mod:`probekit.cli`; debiasing methods are in
the :mod:`debias` package, word lists in :mod:`wordlists`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from probekit._version import __version__
from probekit.errors import ProbekitError
from probekit.lazy import lazy_exports

if TYPE_CHECKING:  # what the lazy names resolve to, for type checkers and IDEs
    from probekit.embedding import WordEmbeddings, embed_sentences, embed_words
    from probekit.encoders import DEFAULT_MODEL_NAME, Encoder, load_encoder
    from probekit.intrinsic import (
        PAPER_PROBE,
        GenderProbe,
        GenderProbeResult,
        LpbsResult,
        MdlResult,
        ProbeSuiteResult,
        SeatResult,
        attr_lpbs,
        contextual_seat,
        gender_probe,
        lpbs,
        lpbs_report,
        mdl_probe,
        run_probe_suite,
        seat_test,
        seat_word_sets,
        sentence_seat,
        target_lpbs,
    )
    from probekit.text import (
        Corpus,
        SentenceSelection,
        load_hf_corpus,
        load_text_corpus,
        select_sentences,
        split_sentences,
        template_corpus,
        template_frames,
    )

#: Public name -> the package that defines it.
_LAZY = {
    **dict.fromkeys(
        ("Corpus", "SentenceSelection", "load_hf_corpus", "load_text_corpus", "select_sentences",
         "split_sentences", "template_corpus", "template_frames"),
        "probekit.text",
    ),
    **dict.fromkeys(("WordEmbeddings", "embed_sentences", "embed_words"), "probekit.embedding"),
    **dict.fromkeys(("DEFAULT_MODEL_NAME", "Encoder", "load_encoder"), "probekit.encoders"),
    **dict.fromkeys(
        ("GenderProbe", "GenderProbeResult", "LpbsResult", "MdlResult", "PAPER_PROBE", "ProbeSuiteResult",
         "SeatResult", "attr_lpbs", "contextual_seat", "gender_probe", "lpbs", "lpbs_report", "mdl_probe",
         "run_probe_suite", "seat_test", "seat_word_sets", "sentence_seat", "target_lpbs"),
        "probekit.intrinsic",
    ),
}

__all__ = [
    "__version__",
    "ProbekitError",
    "Corpus",
    "DEFAULT_MODEL_NAME",
    "Encoder",
    "GenderProbe",
    "GenderProbeResult",
    "LpbsResult",
    "MdlResult",
    "PAPER_PROBE",
    "ProbeSuiteResult",
    "SeatResult",
    "SentenceSelection",
    "WordEmbeddings",
    "attr_lpbs",
    "contextual_seat",
    "embed_sentences",
    "embed_words",
    "gender_probe",
    "load_encoder",
    "load_hf_corpus",
    "load_text_corpus",
    "lpbs",
    "lpbs_report",
    "mdl_probe",
    "run_probe_suite",
    "seat_test",
    "seat_word_sets",
    "select_sentences",
    "sentence_seat",
    "split_sentences",
    "target_lpbs",
    "template_corpus",
    "template_frames",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals(), __all__)
