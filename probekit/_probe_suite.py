"""The intrinsic suite behind ``probekit probe``: extraction, SEAT, LPBS and the gender probe.

Follows Tokpo et al. (2023), §3: contextual embeddings of the female/male attribute terms W_f,
W_m and the female/male stereotype terms X_f, X_m, taken from every corpus sentence holding the
word (stereotype sentences must hold no attribute word), single-wordpiece words only for
BERT-style models; then SEAT (X, Y = X_f, X_m; A, B = W_f, W_m; word level, Tan & Celis 2019)
and the standard gender tests 6-8b (sentence level, May et al. 2019), attr- and target-LPBS
(Kurita et al. 2019) when the checkpoint has a masked-LM head, and the linear gender probe with
its randomization test.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from probekit._corpus import Corpus, select_sentences, template_corpus
from probekit._embedding import embed_words
from probekit._encoders import Encoder
from probekit._io import atomic_write_text, to_jsonable, write_json
from probekit._provenance import collect_provenance
from probekit._report import plot_probe_chart, summary_markdown
from probekit.errors import InvalidParameterError

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.json"
SUMMARY_FILE = "summary.md"
CHART_FILE = "probe.png"


@dataclass
class ProbeSuiteResult:
    """Everything ``probekit probe`` measures on one checkpoint; serializes to ``results.json``.

    Attributes
    ----------
    seat : dict
        Paper variant (``statistic``, ``effect_size``, ``p_value``, ``effect_size_ci``, ...) plus
        ``standard_tests``: the sentence-level gender tests by name.
    lpbs : dict
        ``status`` "ok" with ``attr_lpbs`` and ``target_lpbs``, or "skipped" with the ``reason``.
    probe : dict
        ``gender_accuracy``, ``stereotype_accuracy``, ``stereotype_confidence``,
        ``randomization_p_value``, ``permutation_p_value``, train/test words, ...
    words : dict
        Words used, words dropped as multi-wordpiece, words without sentences, counts.
    provenance : dict
    """

    seat: dict[str, Any]
    lpbs: dict[str, Any]
    probe: dict[str, Any]
    words: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(
            {"seat": self.seat, "lpbs": self.lpbs, "probe": self.probe, "words": self.words, "provenance": self.provenance}
        )

    def save(self, out_dir: str | os.PathLike, *, label: str | None = None) -> Path:
        """Write ``results.json``, then ``summary.md`` and ``probe.png`` built from that JSON."""
        out = Path(out_dir)
        data = self.to_dict()
        write_json(out / RESULTS_FILE, data)
        labels = [label] if label else None
        atomic_write_text(out / SUMMARY_FILE, summary_markdown([data], labels))
        plot_probe_chart([data], out / CHART_FILE, labels)
        return out


def _pieces_in_context(tokenizer: Any, word: str) -> int:
    """Number of tokens of ``word`` inside running text, located through the offset mapping (so a
    byte-level BPE word counts with its leading space, as it appears in sentences)."""
    text = f"the {word} ."
    start, end = 4, 4 + len(word)
    offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    return sum(1 for s, e in offsets if s < end and e > start and e > s)


def _single_piece(encoder: Encoder, words: Sequence[str]) -> tuple[list[str], list[str]]:
    kept, dropped = [], []
    for word in words:
        (kept if _pieces_in_context(encoder.tokenizer, word) == 1 else dropped).append(word)
    return kept, dropped


def paper_word_sets(encoder: Encoder, *, single_piece_only: bool = True) -> dict[str, Any]:
    """The paper's attribute and stereotype words as the suite uses them (Tokpo et al. 2023, §3).

    A word listed both as an attribute and as a stereotype ("maid") stays a stereotype only
    (stereotype words are never trained on); with ``single_piece_only`` only words that are one
    wordpiece in context are kept.

    Returns
    -------
    dict
        ``female_attributes``, ``male_attributes``, ``female_stereotypes``, ``male_stereotypes``
        (lists), ``all_gendered`` (set: every attribute word and attribute-pair word, before
        filtering), ``dropped`` (multi-wordpiece words by list), ``in_both`` (sorted list).
    """
    import wordlists

    female_attr, male_attr = (list(w) for w in wordlists.load_paper_attributes())
    female_stereo, male_stereo = (list(w) for w in wordlists.load_paper_stereotypes())
    all_gendered = set(female_attr) | set(male_attr)
    pairs = wordlists.load_attribute_pairs()
    all_gendered |= set(pairs.female) | set(pairs.male)
    stereotype_words = set(female_stereo) | set(male_stereo)
    in_both = sorted(stereotype_words & (set(female_attr) | set(male_attr)))
    female_attr = [w for w in female_attr if w not in stereotype_words]
    male_attr = [w for w in male_attr if w not in stereotype_words]
    dropped: dict[str, list[str]] = {}
    if single_piece_only:
        female_attr, dropped["female_attributes"] = _single_piece(encoder, female_attr)
        male_attr, dropped["male_attributes"] = _single_piece(encoder, male_attr)
        female_stereo, dropped["female_stereotypes"] = _single_piece(encoder, female_stereo)
        male_stereo, dropped["male_stereotypes"] = _single_piece(encoder, male_stereo)
    return {
        "female_attributes": female_attr, "male_attributes": male_attr,
        "female_stereotypes": female_stereo, "male_stereotypes": male_stereo,
        "all_gendered": all_gendered, "dropped": dropped, "in_both": in_both,
    }


def embed_selected_words(
    encoder: Encoder,
    corpus: Corpus | Sequence[str],
    words: Sequence[str],
    *,
    exclude_words: Sequence[str] | None = None,
    max_per_word: int | None,
    selection_seed: int,
    layer: int,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> tuple[Any, Any]:
    """Select up to ``max_per_word`` sentences per word and embed each word in its own sentences
    (mean over wordpieces), as the suite does. Returns (WordEmbeddings, SentenceSelection)."""
    case_sensitive = not encoder.do_lower_case
    selection = select_sentences(
        corpus, list(words), exclude_words=exclude_words, max_per_word=max_per_word, random_state=selection_seed,
        case_sensitive=case_sensitive, on_missing="warn",
    )
    embeddings = embed_words(
        encoder, list(selection.sentences), list(words), layer=layer, pooling="mean", case_sensitive=case_sensitive,
        on_missing="ignore", cache_dir=cache_dir, progress=progress,
    ).restrict_to(selection)
    return embeddings, selection


def attribute_embeddings(
    encoder: Encoder,
    corpus: Corpus | Sequence[str] | None = None,
    *,
    layer: int = -1,
    max_per_word: int | None = 100,
    single_piece_only: bool = True,
    random_state: int = 0,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> tuple[Any, list[str], list[str]]:
    """Contextual embeddings of the paper's female and male attribute words, selected exactly as
    :func:`run_probe_suite` selects them with the same ``random_state`` (the data a gender eraser
    such as INLP or LEACE is fitted on). Returns (WordEmbeddings, female words, male words)."""
    sets = paper_word_sets(encoder, single_piece_only=single_piece_only)
    corpus = template_corpus() if corpus is None else corpus
    female, male = sets["female_attributes"], sets["male_attributes"]
    embeddings, _ = embed_selected_words(
        encoder, corpus, female + male, max_per_word=max_per_word, layer=layer, cache_dir=cache_dir,
        selection_seed=_seeds(int(random_state))["sentence_selection"], progress=progress,
    )
    return embeddings, female, male


def _seeds(random_state: int) -> dict[str, int]:
    """Independent seeds for each random step, derived from one user seed."""
    children = np.random.SeedSequence(random_state).generate_state(5)
    names = ("sentence_selection", "seat", "standard_seat", "lpbs", "probe")
    return {name: int(value) for name, value in zip(names, children)}


def run_probe_suite(
    encoder: Encoder,
    corpus: Corpus | Sequence[str] | None = None,
    *,
    layer: int = -1,
    max_per_word: int | None = 100,
    single_piece_only: bool = True,
    standard_tests: Sequence[str] | None = None,
    n_permutations: int = 100_000,
    n_bootstrap: int = 1000,
    n_randomizations: int = 100,
    classifier: str = "logistic",
    C: float = 1.0,
    lpbs_multi_piece: str = "mask_all",
    random_state: int = 0,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> ProbeSuiteResult:
    """Run SEAT, LPBS and the gender probe on one encoder (Tokpo et al. 2023, Tables 1 and 2).

    Parameters
    ----------
    encoder : Encoder
    corpus : Corpus or sequence of str, optional
        Default: the built-in template corpus.
    layer : int
        Hidden layer of the word embeddings (-1: last).
    max_per_word : int or None
        Sentences kept per word (sampled with the seed); ``None`` keeps all.
    single_piece_only : bool
        Keep only words that are one wordpiece, as the paper does for BERT-style models.
    standard_tests : sequence of str, optional
        Sentence-level SEAT tests to run; default weat6, 6b, 7, 7b, 8, 8b. Pass ``()`` to skip.
    n_permutations, n_bootstrap : int
        SEAT permutation test size and bootstrap replicates of the effect-size interval.
    n_randomizations, classifier, C
        Gender probe settings (see :func:`probekit.intrinsic.gender_probe`).
    lpbs_multi_piece : {"mask_all", "skip"}
    random_state : int
        One seed from which the seeds of every random step are derived (recorded in provenance).
    cache_dir : path, optional
        Embedding cache; a rerun with the same inputs reuses it.
    progress : bool
    """
    import wordlists
    from probekit.intrinsic import STANDARD_SEAT_TESTS, contextual_seat, gender_probe, lpbs_report, seat_word_sets, sentence_seat

    if not isinstance(random_state, (int, np.integer)) or isinstance(random_state, bool):
        raise InvalidParameterError("random_state", random_state, "an integer seed")
    if max_per_word is not None and (not isinstance(max_per_word, (int, np.integer)) or max_per_word < 1):
        raise InvalidParameterError("max_per_word", max_per_word, "a positive integer or None")
    seeds = _seeds(int(random_state))
    started = time.perf_counter()
    corpus = template_corpus() if corpus is None else corpus

    # The paper lists "maid" both as a female attribute and a female stereotype; stereotype words are
    # never trained on (§3), so a word in both lists stays a stereotype only.
    sets = paper_word_sets(encoder, single_piece_only=single_piece_only)
    female_attr, male_attr = sets["female_attributes"], sets["male_attributes"]
    female_stereo, male_stereo = sets["female_stereotypes"], sets["male_stereotypes"]
    dropped, in_both = sets["dropped"], sets["in_both"]
    pairs = wordlists.load_attribute_pairs()

    common = dict(max_per_word=max_per_word, selection_seed=seeds["sentence_selection"], layer=layer,
                  cache_dir=cache_dir, progress=progress)
    attributes, attribute_selection = embed_selected_words(encoder, corpus, female_attr + male_attr, **common)
    stereotypes, stereotype_selection = embed_selected_words(
        encoder, corpus, female_stereo + male_stereo, exclude_words=sorted(sets["all_gendered"]), **common
    )
    logger.info("embedded %d attribute and %d stereotype occurrences", len(attributes), len(stereotypes))

    paper_seat = contextual_seat(
        stereotypes, attributes, x_words=female_stereo, y_words=male_stereo, a_words=female_attr, b_words=male_attr,
        aggregate="word", n_permutations=n_permutations, n_bootstrap=n_bootstrap, random_state=seeds["seat"],
        name="paper",
    )
    seat = paper_seat.to_dict()
    seat["standard_tests"] = {}
    tests = STANDARD_SEAT_TESTS if standard_tests is None else tuple(standard_tests)
    for index, name in enumerate(tests):
        sets = seat_word_sets(name)
        result = sentence_seat(
            encoder, sets["X"], sets["Y"], sets["A"], sets["B"], layer=layer, n_permutations=n_permutations,
            n_bootstrap=n_bootstrap, random_state=seeds["standard_seat"] + index, name=name, progress=progress,
        )
        seat["standard_tests"][name] = result.to_dict()

    lpbs = lpbs_report(
        encoder, list(zip(pairs.female, pairs.male)), female_stereo, male_stereo,
        multi_piece=lpbs_multi_piece, n_permutations=n_permutations, random_state=seeds["lpbs"],
    )

    def by_gender(embeddings, female_words):
        is_female = np.isin(embeddings.words, female_words)
        return embeddings.subset(is_female), embeddings.subset(~is_female)

    attr_f, attr_m = by_gender(attributes, female_attr)
    stereo_f, stereo_m = by_gender(stereotypes, female_stereo)
    probe = gender_probe(
        attr_f, attr_m, stereo_f, stereo_m, classifier=classifier, C=C, n_randomizations=n_randomizations,
        random_state=seeds["probe"],
    ).to_dict()

    words = {
        "female_attributes": attr_f.vocabulary,
        "male_attributes": attr_m.vocabulary,
        "female_stereotypes": stereo_f.vocabulary,
        "male_stereotypes": stereo_m.vocabulary,
        "dropped_multi_piece": dropped,
        "removed_from_attributes_as_stereotypes": in_both,
        "without_sentences": sorted(set(attribute_selection.missing) | set(stereotype_selection.missing)),
        "occurrences": {"attributes": len(attributes), "stereotypes": len(stereotypes)},
        "sentences": {"attributes": len(attribute_selection.sentences), "stereotypes": len(stereotype_selection.sentences)},
    }
    provenance = collect_provenance(
        model=encoder.describe(),
        seeds={"random_state": int(random_state), **seeds},
        wordlists={
            "female_attributes": female_attr, "male_attributes": male_attr,
            "female_stereotypes": female_stereo, "male_stereotypes": male_stereo,
            "attribute_pairs": [f"{f}\t{m}" for f, m in zip(pairs.female, pairs.male)],
        },
        parameters={
            "corpus": getattr(corpus, "name", "sentences"), "corpus_digest": getattr(corpus, "digest", None),
            "layer": layer, "max_per_word": max_per_word, "single_piece_only": single_piece_only,
            "n_permutations": n_permutations, "n_bootstrap": n_bootstrap, "n_randomizations": n_randomizations,
            "classifier": classifier, "C": C, "lpbs_multi_piece": lpbs_multi_piece,
            "standard_tests": list(tests), "seconds": round(time.perf_counter() - started, 1),
        },
    )
    return ProbeSuiteResult(seat=seat, lpbs=lpbs, probe=probe, words=words, provenance=provenance)
