"""The intrinsic suite behind ``probekit probe``: extraction, SEAT, LPBS and the gender probe.

Follows Tokpo et al. (2023), §3: contextual embeddings of the female/male attribute terms W_f,
W_m and the female/male stereotype terms X_f, X_m, taken from every corpus sentence holding the
word (stereotype sentences must hold no attribute word), single-wordpiece words only for
BERT-style models; then SEAT (X, Y = X_f, X_m; A, B = W_f, W_m; word level, Tan & Celis 2019)
and the standard gender tests 6-8b (sentence level, May et al. 2019), attr- and target-LPBS
(Kurita et al. 2019) when the checkpoint has a masked-LM head, and the linear gender probe with
its randomization test, beside the online-code MDL of the gender labels (Voita & Titov 2020).
With ``layers`` the embeddings of every requested hidden layer come from one extraction pass and
the probe, SEAT and MDL run at each layer (the paper's "removed or hidden?" question, layer by
layer).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

import wordlists
from probekit.embedding import embed_selected_words, paper_word_sets, suite_seeds
from probekit.encoders import Encoder
from probekit.intrinsic._attribute_probe import AttributeProbeResult, run_attribute_probe
from probekit.intrinsic._evidence import evidence_report
from probekit.intrinsic._gender_probe import CLASSIFIERS, gender_probe
from probekit.intrinsic._layers import resolve_layers
from probekit.intrinsic._linear_probe import check_C, check_class_weight
from probekit.intrinsic._lpbs import MULTI_PIECE_POLICIES, lpbs_report
from probekit.intrinsic._mdl import mdl_probe
from probekit.intrinsic._named_tests import STANDARD_SEAT_TESTS, is_template_variant, seat_word_sets
from probekit.intrinsic._probe_suite_result import (
    ProbeSuiteResult,
    layer_row,
    probe_reading,
    probe_setting,
)
from probekit.intrinsic._readers import check_readers
from probekit.intrinsic._seat_variants import contextual_seat, published_sentence_seat, sentence_seat
from probekit.intrinsic._upper_bounds import check_upper_bounds, read_upper_bounds
from probekit.intrinsic._verdict import read_layer
from probekit.intrinsic._verdict_erasure import ERASER_FIT_CONSTRAINTS, read_layer_cross_fitted, suite_erasure
from probekit.text import Corpus, template_corpus
from probekit.utils import (
    Interval,
    Options,
    collect_provenance,
    validate_parameters,
)

logger = logging.getLogger(__name__)


def _at_layer(embeddings: Any, index: int | None) -> Any:
    """The 2-D view of one layer of a multi-layer extraction (``index`` into its layers)."""
    if index is None:
        return embeddings
    return dataclasses.replace(embeddings, embeddings=embeddings.embeddings[:, index, :],
                               layers=(embeddings.layers[index],))


def _check_suite_args(
    random_state: Any, max_per_word: Any, C: Any, class_weight: Any, readers: Any = None, eraser_fit: str = "loaded",
    eraser_folds: int = 5,
) -> tuple[Any, Any, tuple[str, ...] | None]:
    """Check the suite's seed and sentence cap (declared below the suite); the checked ``C``,
    ``class_weight`` and reader names (the linear reader always first; ``None`` when none were asked for).
    """
    validate_parameters({"random_state": random_state, "max_per_word": max_per_word, "eraser_fit": eraser_fit,
                         "eraser_folds": eraser_folds},
                        run_probe_suite._parameter_constraints)
    names = None if readers is None else tuple(dict.fromkeys(("linear", *check_readers(readers))))
    return check_C(C), check_class_weight(class_weight), names


@dataclass
class _Extraction:
    """The attribute and stereotype occurrences of one suite run, split by gender."""

    attributes: Any
    stereotypes: Any
    attr_f: Any
    attr_m: Any
    stereo_f: Any
    stereo_m: Any
    attribute_selection: Any
    stereotype_selection: Any

    def by_set(self) -> dict[str, Any]:
        return {"female_attributes": self.attr_f, "male_attributes": self.attr_m,
                "female_stereotypes": self.stereo_f, "male_stereotypes": self.stereo_m}

    def selections(self) -> dict[str, Any]:
        return {"female_attributes": self.attribute_selection, "male_attributes": self.attribute_selection,
                "female_stereotypes": self.stereotype_selection, "male_stereotypes": self.stereotype_selection}

    def at_layer(self, index: int | None) -> dict[str, Any]:
        """The six embedding sets at one layer of the extraction (``None``: single-layer)."""
        return {key: _at_layer(getattr(self, key), index) for key in
                ("attributes", "stereotypes", "attr_f", "attr_m", "stereo_f", "stereo_m")}

    def words_summary(self, sets: dict[str, Any]) -> dict[str, Any]:
        """``results.json["words"]``: words used and dropped, occurrence and sentence counts."""
        return {
            "female_attributes": self.attr_f.vocabulary,
            "male_attributes": self.attr_m.vocabulary,
            "female_stereotypes": self.stereo_f.vocabulary,
            "male_stereotypes": self.stereo_m.vocabulary,
            "dropped_multi_piece": sets["dropped"],
            "removed_from_attributes_as_stereotypes": sets["in_both"],
            "without_sentences": sorted(set(self.attribute_selection.missing) | set(self.stereotype_selection.missing)),
            "occurrences": {"attributes": len(self.attributes), "stereotypes": len(self.stereotypes)},
            "sentences": {"attributes": len(self.attribute_selection.sentences),
                          "stereotypes": len(self.stereotype_selection.sentences)},
        }


def _extract(encoder: Encoder, corpus: Any, sets: dict[str, Any], **common: Any) -> _Extraction:
    """Embed the attribute words and the stereotype words (in sentences free of gendered words)."""
    female_attr, male_attr = sets["female_attributes"], sets["male_attributes"]
    female_stereo, male_stereo = sets["female_stereotypes"], sets["male_stereotypes"]
    attributes, attribute_selection = embed_selected_words(encoder, corpus, female_attr + male_attr, **common)
    stereotypes, stereotype_selection = embed_selected_words(
        encoder, corpus, female_stereo + male_stereo, exclude_words=sorted(sets["all_gendered"]), **common
    )
    logger.info("embedded %d attribute and %d stereotype occurrences", len(attributes), len(stereotypes))

    def by_gender(embeddings, female_words):
        is_female = np.isin(embeddings.words, female_words)
        return embeddings.subset(is_female), embeddings.subset(~is_female)

    attr_f, attr_m = by_gender(attributes, female_attr)
    stereo_f, stereo_m = by_gender(stereotypes, female_stereo)
    return _Extraction(attributes, stereotypes, attr_f, attr_m, stereo_f, stereo_m, attribute_selection,
                       stereotype_selection)


def _analyse_layer(
    ext: _Extraction, sets: dict[str, Any], index: int | None, *, n_permutations: int, n_bootstrap: int,
    classifier: str, C: Any, class_weight: Any, standardize: bool, n_randomizations: int, mdl: bool,
    seeds: dict[str, int], readers: tuple[str, ...] | None = None, erasure: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None, dict[str, Any]]:
    """The paper's SEAT, the gender probe, MDL and the readers' verdict on one layer of the extraction.

    ``erasure`` (an encoder behind an eraser): ``note`` for the verdict and, for the word-disjoint check,
    ``tests`` and ``erased`` (per fold, the occurrences at every extracted layer through that fold's eraser).
    """
    female_attr, male_attr = sets["female_attributes"], sets["male_attributes"]
    at = ext.at_layer(index)
    seat_result = contextual_seat(
        at["stereotypes"], at["attributes"], x_words=sets["female_stereotypes"], y_words=sets["male_stereotypes"],
        a_words=female_attr, b_words=male_attr, aggregate="word", n_permutations=n_permutations,
        n_bootstrap=n_bootstrap, random_state=seeds["seat"], name="paper",
    ).to_dict()
    probe_result = gender_probe(
        at["attr_f"], at["attr_m"], at["stereo_f"], at["stereo_m"], classifier=classifier, C=C,
        class_weight=class_weight, standardize=standardize, n_randomizations=n_randomizations,
        n_bootstrap=n_bootstrap, random_state=seeds["probe"],
    ).to_dict()
    probe_result["setting"] = probe_setting(probe_result)
    mdl_result = None
    if mdl:
        labels = np.where(np.isin(at["attributes"].words, female_attr), "female", "male")
        mdl_result = mdl_probe(
            at["attributes"].embeddings, labels, words=at["attributes"].words, unit="word",
            random_state=seeds["mdl"],
        ).to_dict()
    note = None if erasure is None else erasure["note"]
    labels = np.where(np.isin(at["attributes"].words, female_attr), "female", "male")
    known = {"linear": mdl_result["compression"]} if mdl_result else None
    if erasure is not None and "erased" in erasure:
        position = 0 if index is None else index
        reading = read_layer_cross_fitted(
            [fold[:, position] for fold in erasure["erased"]], erasure["tests"], labels, at["attributes"].words,
            erasure=note, readers=readers or ("linear",), n_bootstrap=n_bootstrap, known_mdl=known,
            random_state=seeds["probe"])
        return seat_result, probe_result, mdl_result, reading
    if readers is None:
        return seat_result, probe_result, mdl_result, probe_reading(probe_result, mdl_result, note)
    reading = read_layer(
        at["attributes"].embeddings, labels, at["attributes"].words, readers=readers,
        mdl=[r for r in readers if r == "mlp"] if mdl else (), n_bootstrap=n_bootstrap,
        test_words=probe_result["test_words"]["female"] + probe_result["test_words"]["male"],
        known_mdl=known, random_state=seeds["probe"], erasure=note,
    )
    return seat_result, probe_result, mdl_result, reading


def _analyse_layers(
    ext: _Extraction, sets: dict[str, Any], extract: list[int], layer_list: list[int], headline: int,
    settings: dict[str, Any],
) -> tuple[tuple[dict[str, Any], ...], list[dict[str, Any]]]:
    """:func:`_analyse_layer` at every extracted layer: the headline layer's results and the
    per-layer rows (:func:`layer_row`) of the requested layers.
    """
    rows = []
    headline_results = None
    for index, hidden in enumerate(extract):
        layer_started = time.perf_counter()
        results = _analyse_layer(ext, sets, index, **settings)
        logger.info("layer %d analysed in %.1f s", hidden, time.perf_counter() - layer_started)
        if hidden == headline:
            headline_results = results
        if hidden in layer_list:
            rows.append(layer_row(hidden, *results))
    assert headline_results is not None
    return headline_results, rows


def _upper_bounds(ext: _Extraction, sets: dict[str, Any], hidden_states: list[int], single: bool,
                  bounds: tuple[str, ...], **settings: Any) -> dict[str, Any]:
    """:func:`probekit.intrinsic.read_upper_bounds` on the suite's attribute occurrences ({} without bounds)."""
    if not bounds:
        return {}
    states = {hidden: ext.at_layer(None if single else i)["attributes"].embeddings for i, hidden in enumerate(hidden_states)}
    labels = np.where(np.isin(ext.attributes.words, sets["female_attributes"]), "female", "male")
    return read_upper_bounds(states, labels, ext.attributes.words, upper_bounds=bounds, **settings)


def _standard_seat_tests(
    encoder: Encoder, tests: Sequence[str], *, layer: int, n_permutations: int, n_bootstrap: int, seed: int,
    progress: bool,
) -> dict[str, Any]:
    """The sentence-level SEAT tests by name (seed ``seed + i`` for the i-th test)."""
    out = {}
    for index, name in enumerate(tests):
        if not is_template_variant(name) and name.strip().lower() != "paper":  # the published sentences
            out[name] = published_sentence_seat(encoder, name, layer=layer, n_permutations=n_permutations,
                                                n_bootstrap=n_bootstrap, random_state=seed + index, name=name,
                                                progress=progress).to_dict()
            continue
        word_sets = seat_word_sets(name)  # "weat7-templates": probekit's templates around the words
        result = sentence_seat(
            encoder, word_sets["X"], word_sets["Y"], word_sets["A"], word_sets["B"], layer=layer,
            n_permutations=n_permutations, n_bootstrap=n_bootstrap, random_state=seed + index,
            name=name, progress=progress,
        )
        out[name] = result.to_dict()
    return out


def _sentence_level(
    encoder: Encoder, sets: dict[str, Any], pairs: Any, tests: Sequence[str], *, layer: int, n_permutations: int,
    n_bootstrap: int, lpbs_multi_piece: str, seeds: dict[str, int], progress: bool,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The sentence-level SEAT tests (:func:`_standard_seat_tests`) and LPBS at the headline layer."""
    standard = _standard_seat_tests(encoder, tests, layer=layer, n_permutations=n_permutations, n_bootstrap=n_bootstrap,
                                    seed=seeds["standard_seat"], progress=progress)
    lpbs = lpbs_report(
        encoder, list(zip(pairs.female, pairs.male)), sets["female_stereotypes"], sets["male_stereotypes"],
        multi_piece=lpbs_multi_piece, n_permutations=n_permutations, random_state=seeds["lpbs"],
    )
    return standard, lpbs


def _wordlist_record(sets: dict[str, Any], pairs: Any) -> dict[str, list[str]]:
    """The word lists as used, for provenance (hashed there)."""
    return {
        "female_attributes": sets["female_attributes"], "male_attributes": sets["male_attributes"],
        "female_stereotypes": sets["female_stereotypes"], "male_stereotypes": sets["male_stereotypes"],
        "attribute_pairs": [f"{f}\t{m}" for f, m in zip(pairs.female, pairs.male)],
    }


#: The suite's options that the k-class attribute probe takes too (:func:`run_attribute_probe`).
_ATTRIBUTE_PROBE_OPTIONS = ("layer", "layers", "max_per_word", "n_bootstrap", "mdl", "eraser_fit", "eraser_folds", "upper_bounds",
                            "lpbs", "lpbs_targets", "random_state", "cache_dir", "progress")


def _by_attribute(suite: Any) -> Any:
    """Run ``suite`` (the paper's) for gender and :func:`run_attribute_probe` for any other attribute;
    ``single_piece_only=None`` becomes the paper's rule (``True``) for gender, ``False`` otherwise.
    """
    @functools.wraps(suite)
    def run(encoder: Encoder, corpus: Any = None, **options: Any) -> Any:
        attribute = options.pop("attribute", "gender")
        if wordlists.get_attribute(attribute).name == "gender":
            options["single_piece_only"] = options.get("single_piece_only") is not False
            return suite(encoder, corpus, **options)
        C, class_weight, readers = _check_suite_args(
            options.get("random_state", 0), options.get("max_per_word", 100), options.get("C", "cv"),
            options.get("class_weight", "balanced"), options.get("readers"), options.get("eraser_fit", "loaded"),
            options.get("eraser_folds", 5))
        kept = {k: v for k, v in options.items() if k in _ATTRIBUTE_PROBE_OPTIONS}
        return run_attribute_probe(encoder, attribute, corpus, single_piece_only=bool(options.get("single_piece_only")),
                                   readers=readers, C=C, class_weight=class_weight, **kept)

    return run


@_by_attribute
def run_probe_suite(
    encoder: Encoder,
    corpus: Corpus | Sequence[str] | None = None,
    *,
    layer: int = -1,
    layers: str | Sequence[int] | None = None,
    max_per_word: int | None = 100,
    single_piece_only: bool | None = None,
    standard_tests: Sequence[str] | None = None,
    n_permutations: int = 100_000,
    n_bootstrap: int = 1000,
    n_randomizations: int = 100,
    classifier: str = "logistic",
    C: float | str = "cv",
    class_weight: str | None = "balanced",
    standardize: bool = True,
    mdl: bool = True,
    readers: str | Sequence[str] | None = None,
    eraser_fit: str = "loaded",
    eraser_folds: int = 5,
    upper_bounds: str | Sequence[str] | None = None,
    lpbs_multi_piece: str = "mask_all",
    random_state: int = 0,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True, attribute: str | wordlists.Attribute = "gender",  # another attribute: _by_attribute
) -> ProbeSuiteResult | AttributeProbeResult:
    """Run SEAT, LPBS and the gender probe on one encoder (Tokpo et al. 2023, Tables 1 and 2).

    Parameters
    ----------
    encoder : Encoder
    corpus : Corpus or sequence of str, optional
        Default: the built-in template corpus.
    layer : int
        Hidden layer of the headline numbers (-1: last; 0: embedding output).
    layers : "all" or sequence of int, optional
        Also run the probe, the paper's SEAT and MDL at each of these hidden layers (``"all"``:
        ``0 .. num_layers``); every layer comes from one extraction pass. The same seeds serve
        every layer (same word split, relabelings and bootstrap draws), so the differences
        between layers are not sampling noise of the procedure. The sentence-level SEAT tests and
        LPBS stay at ``layer`` only.
    max_per_word : int or None
        Sentences kept per word (sampled with the seed); ``None`` keeps all.
    single_piece_only : bool or None
        Keep only words that are one wordpiece, as the paper does for BERT-style models. ``None``
        (default): ``True`` for gender, ``False`` for another ``attribute``.
    standard_tests : sequence of str, optional
        Sentence-level SEAT tests to run; default weat6, 6b, 7, 7b, 8, 8b. Pass ``()`` to skip.
    n_permutations, n_bootstrap : int
        SEAT permutation test size and bootstrap replicates of the effect-size interval (and of
        the probe's word-level intervals).
    n_randomizations, classifier, C, class_weight, standardize
        Gender probe settings (see :func:`probekit.intrinsic.gender_probe`). The defaults train a
        class-balanced, standardized probe with C chosen by word-grouped cross-validation;
        ``**probekit.intrinsic.PAPER_PROBE`` (``C=1.0, class_weight=None, standardize=False``) is
        the paper's exact probe.
    mdl : bool
        Also compute the online-code MDL of the gender labels of the attribute occurrences
        (:func:`probekit.intrinsic.mdl_probe`, by word; Voita & Titov 2020).
    readers : str or sequence of str, optional
        Reader families for the verdict ("linear", "mlp", "kernel"; the linear one is always
        included): each is trained on the gender probe's training words and scored on its held-out
        words with a word-bootstrap interval, beside its control task on word-type random labels
        (Hewitt & Liang 2019) and, with ``mdl``, the MLP family's online code. ``None`` (default):
        the verdict comes from the gender probe alone (linear; no extra fit, no control task).
    eraser_fit : {"loaded", "word-disjoint"}
        For an encoder behind an eraser (a projection directory). ``"loaded"`` (default): the readers run
        on the loaded eraser, which was fitted on every attribute word, the held-out ones included; the
        verdict says the check is not word-disjoint and explains a below-chance accuracy as that
        artefact. ``"word-disjoint"``: the honest check, cross-fitted over ``eraser_folds`` word folds
        (the eraser refitted on each fold's training words, every reader trained on them and scored on
        the fold's words; INLP, LEACE, RLACE and concept scrubbing; see
        :mod:`probekit.intrinsic._verdict_erasure`). The SEAT, the gender probe and MDL stay on the
        loaded eraser. Ignored for an encoder without a projection.
    eraser_folds : int
        Word folds of the word-disjoint check (concept scrubbing costs one encoder pass per hidden
        state and fold).
    upper_bounds : str or sequence of str, optional
        Label-aware erasers ("oracle-leace", "quadratic-leace") after which every reader is also read, at
        every probed hidden state, word-disjoint over ``eraser_folds`` folds: an upper bound on what any
        label-aware edit removes, not a method (:func:`probekit.intrinsic.read_upper_bounds`).
    lpbs_multi_piece : {"mask_all", "skip"}
    random_state : int
        One seed from which the seeds of every random step are derived (recorded in provenance).
    cache_dir : path, optional
        Embedding cache; a rerun with the same inputs reuses it.
    progress : bool
    attribute : str or wordlists.Attribute
        ``"gender"`` (default): the suite above. Any other attribute (``"race"``, ``"religion"``, a
        registered one) runs the k-class probe of its group terms instead
        (:func:`probekit.intrinsic.run_attribute_probe`: readers, MDL and verdict with chance 1/k; the
        gender-only parts -- SEAT, LPBS, stereotypes -- do not apply) and returns its
        :class:`AttributeProbeResult`; ``single_piece_only`` then defaults to ``False``.
    """
    C, class_weight, reader_names = _check_suite_args(random_state, max_per_word, C, class_weight, readers, eraser_fit, eraser_folds)
    bounds = check_upper_bounds(upper_bounds)
    headline = resolve_layers([layer], encoder.num_layers, "layer")[0]
    layer_list = None if layers is None else resolve_layers(layers, encoder.num_layers)
    extract = layer if layer_list is None else sorted(set(layer_list) | {headline})
    seeds = suite_seeds(int(random_state))
    started = time.perf_counter()
    corpus = template_corpus() if corpus is None else corpus

    # The paper lists "maid" both as a female attribute and a female stereotype; stereotype words are
    # never trained on (§3), so a word in both lists stays a stereotype only.
    sets = paper_word_sets(encoder, single_piece_only=single_piece_only)
    pairs = wordlists.load_attribute_pairs()
    selection = dict(max_per_word=max_per_word, selection_seed=seeds["sentence_selection"], cache_dir=cache_dir,
                     progress=progress)
    ext = _extract(encoder, corpus, sets, layer=extract, **selection)
    evidence, evidence_warnings = evidence_report(sets, ext.by_set(), ext.selections())
    erasure = suite_erasure(encoder, corpus, ext.attributes.words, sets["female_attributes"], sets["male_attributes"],
                            [headline] if layer_list is None else list(extract), eraser_fit=eraser_fit,
                            eraser_folds=eraser_folds, random_state=seeds["probe"], selection=selection)
    analyse_settings = dict(
        n_permutations=n_permutations, n_bootstrap=n_bootstrap, classifier=classifier, C=C,
        class_weight=class_weight, standardize=standardize, n_randomizations=n_randomizations, mdl=mdl, seeds=seeds,
        readers=reader_names, erasure=erasure)
    per_layer = None
    if layer_list is None:
        seat, probe, mdl_result, reading = _analyse_layer(ext, sets, None, **analyse_settings)
    else:
        (seat, probe, mdl_result, reading), rows = _analyse_layers(ext, sets, extract, layer_list, headline, analyse_settings)
        seat = dict(seat)
        per_layer = {"layers": layer_list, "headline_layer": headline, "num_layers": encoder.num_layers, "rows": rows}

    bounds_read = _upper_bounds(ext, sets, [headline] if layer_list is None else extract, layer_list is None, bounds,
                                readers=reader_names or ("linear",), n_folds=eraser_folds, n_bootstrap=n_bootstrap, random_state=seeds["probe"])
    tests = STANDARD_SEAT_TESTS if standard_tests is None else tuple(standard_tests)
    seat["standard_tests"], lpbs = _sentence_level(encoder, sets, pairs, tests, layer=layer, n_permutations=n_permutations,
                                                   n_bootstrap=n_bootstrap, lpbs_multi_piece=lpbs_multi_piece,
                                                   seeds=seeds, progress=progress)
    provenance = collect_provenance(
        model=encoder.describe(), seeds={"random_state": int(random_state), **seeds}, wordlists=_wordlist_record(sets, pairs),
        parameters={
            "corpus": getattr(corpus, "name", "sentences"), "corpus_digest": getattr(corpus, "digest", None),
            "corpus_sentences": len(corpus), "layer": layer, "headline_layer": headline,
            "layers": layers if layers is None or isinstance(layers, str) else [int(v) for v in layers],
            "layer_indices": layer_list, "max_per_word": max_per_word, "single_piece_only": single_piece_only,
            "n_permutations": n_permutations, "n_bootstrap": n_bootstrap, "n_randomizations": n_randomizations,
            "classifier": classifier, "C": C, "class_weight": class_weight, "standardize": bool(standardize),
            "mdl": bool(mdl), "readers": None if reader_names is None else list(reader_names),
            "eraser_fit": eraser_fit, "eraser_folds": int(eraser_folds),
            **({"upper_bounds": list(bounds)} if bounds else {}), "lpbs_multi_piece": lpbs_multi_piece,
            "standard_tests": list(tests), "seconds": round(time.perf_counter() - started, 1),
        },
    )
    return ProbeSuiteResult(
        seat=seat, lpbs=lpbs, probe=probe, words=ext.words_summary(sets), provenance=provenance, mdl=mdl_result,
        evidence=evidence, warnings=evidence_warnings, per_layer=per_layer, readers=reading["readers"],
        verdict=reading["verdict"], upper_bounds=bounds_read,
    )


#: The suite's options and their valid values, declared once: ``probekit probe`` and the study's
#: ``[intrinsic]`` table check their values against these (:func:`probekit.utils.declared_constraints`).
run_probe_suite._parameter_constraints = {
    "layer": [Interval(int, None, None)],
    "max_per_word": [Interval(int, 1, None), None],
    "single_piece_only": ["boolean", None],
    "attribute": [str, wordlists.Attribute],
    "n_permutations": [Interval(int, 1, None)],
    "n_bootstrap": [Interval(int, 0, None)],
    "n_randomizations": [Interval(int, 1, None)],
    "classifier": [Options(*CLASSIFIERS)],
    "C": [Interval(float, 0, None, closed="neither"), Options("cv")],
    "class_weight": [Options("balanced", "none"), None],
    "standardize": ["boolean"],
    "mdl": ["boolean"],
    "readers": [str, list, tuple, None],
    **ERASER_FIT_CONSTRAINTS,
    "upper_bounds": [str, list, tuple, None],
    "lpbs_multi_piece": [Options(*MULTI_PIECE_POLICIES)],
    "random_state": ["random_state"],
}
