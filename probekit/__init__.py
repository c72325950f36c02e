"""probekit: does debiasing an encoder remove gender information or only hide it?

The public API is listed in ``__all__``; everything else lives in private modules. Extrinsic
fairness metrics are in :mod:`probekit.extrinsic`, intrinsic tests also in :mod:`probekit.intrinsic`,
word lists in the :mod:`wordlists` package.
"""

from probekit._corpus import (
    Corpus,
    SentenceSelection,
    load_hf_corpus,
    load_text_corpus,
    select_sentences,
    split_sentences,
    template_corpus,
    template_frames,
)
from probekit._embedding import WordEmbeddings, embed_sentences, embed_words
from probekit._encoders import DEFAULT_MODEL_NAME, Encoder, load_encoder
from probekit._probe_suite import ProbeSuiteResult, run_probe_suite
from probekit._version import __version__
from probekit.errors import ProbekitError
from probekit.intrinsic import (
    GenderProbe,
    GenderProbeResult,
    LpbsResult,
    MdlResult,
    PAPER_PROBE,
    SeatResult,
    attr_lpbs,
    contextual_seat,
    gender_probe,
    lpbs,
    lpbs_report,
    mdl_probe,
    seat_test,
    seat_word_sets,
    sentence_seat,
    target_lpbs,
)

__all__ = [
    "__version__",
    "DEFAULT_MODEL_NAME",
    "Corpus",
    "Encoder",
    "GenderProbe",
    "GenderProbeResult",
    "LpbsResult",
    "MdlResult",
    "PAPER_PROBE",
    "ProbeSuiteResult",
    "ProbekitError",
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
