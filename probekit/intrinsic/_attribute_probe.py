r"""The probe with k groups: is a protected attribute (race, religion, a registered one) readable?

``probekit probe --attribute race`` asks of race what the gender suite asks of gender (Tokpo et al.
2023, §3; Ravfogel et al. 2020 for the multi-class probe): the contextual embeddings of every group
term of the attribute (:func:`wordlists.get_attribute`; race: black, white, asian, latino terms and
the WEAT 3-5 first names) are taken from each corpus sentence holding the term, every occurrence is
labelled with its term's group, and the readers (:func:`probekit.intrinsic.read_layer`) are trained on
some terms and scored on held-out terms:

- balanced accuracy :math:`\frac{1}{K}\sum_{g} \frac{\#\{\text{occurrences of } g \text{ read as } g\}}
  {\#\{\text{occurrences of } g\}}` with a word-bootstrap interval (resampling terms within each
  group), chance :math:`1/K`; C chosen by cross-validation grouped by term; a control task on
  term-type random labels (Hewitt & Liang 2019);
- the online-code MDL of the K-class labels (Voita & Titov 2020), :math:`L_{\text{uniform}} = n\log_2 K`;
- the verdict (removed / linearly hidden / present) with chance :math:`1/K`
  (:func:`probekit.intrinsic.layer_verdict`).

The built-in corpus is :func:`probekit.text.attribute_corpus` (the terms in the template frames, an
adjective such as "black" only before a person noun). In a corpus of your own, a sentence where a word
with a context rule ("black" in "black cat", "Christian" in "Christian Bale") is not a group term is
left out, so that every occurrence probed is one. Gender keeps the paper's suite
(:func:`probekit.intrinsic.run_probe_suite`).
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

import wordlists
from debias import group_context_corpus
from probekit.embedding import attribute_group_embeddings, suite_seeds
from probekit.encoders import Encoder
from probekit.errors import InvalidParameterError
from probekit.intrinsic._layers import resolve_layers
from probekit.intrinsic._lpbs_groups import attribute_lpbs_report
from probekit.intrinsic._mdl import mdl_probe
from probekit.intrinsic._readers import check_readers
from probekit.intrinsic._upper_bounds import check_upper_bounds, read_upper_bounds
from probekit.intrinsic._verdict import read_layer
from probekit.intrinsic._verdict_erasure import ERASER_FIT_CONSTRAINTS, encoder_erasure, read_layer_cross_fitted
from probekit.report import attribute_probe_markdown
from probekit.text import Corpus
from probekit.utils import atomic_write_text, collect_provenance, to_jsonable, validate_parameters, write_json

RESULTS_FILE = "results.json"
SUMMARY_FILE = "summary.md"


@dataclass
class AttributeProbeResult:
    """What ``probekit probe --attribute NAME`` measures on one checkpoint; serializes to ``results.json``.

    Attributes
    ----------
    attribute : dict
        ``name``, ``groups`` (all), ``groups_probed`` (those with at least two terms found), ``k``
        (groups probed), ``digest``, ``source``.
    probe : dict
        The linear reader at the headline layer (:class:`probekit.intrinsic.ReaderResult` fields:
        ``balanced_accuracy``, ``balanced_accuracy_ci``, ``chance`` = 1/k, ``control_balanced_accuracy``,
        ``selectivity``, ``params``, ...).
    readers, verdict : dict
        Every reader and the verdict at the headline layer.
    mdl : dict or None
        :class:`probekit.intrinsic.MdlResult` fields for the k-class labels (linear family).
    lpbs : dict or None
        :func:`probekit.intrinsic.attribute_lpbs_report` (LPBS with k groups; "skipped" without a
        masked-LM head); ``None`` when not asked for.
    words : dict
        Per group: ``listed``, ``used``, ``dropped_multi_piece``, ``without_sentences``,
        ``occurrences``; ``in_several_groups`` (terms left out), ``sentences``.
    per_layer : dict or None
        With ``layers``: ``layers``, ``headline_layer`` and ``rows`` (one per layer).
    warnings : list of str
    provenance : dict
    upper_bounds : dict
        With ``upper_bounds``: :func:`probekit.intrinsic.read_upper_bounds` (absent from ``results.json`` otherwise).
    """

    attribute: dict[str, Any]
    probe: dict[str, Any]
    readers: dict[str, Any]
    verdict: dict[str, Any]
    words: dict[str, Any]
    mdl: dict[str, Any] | None = None
    per_layer: dict[str, Any] | None = None
    lpbs: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    upper_bounds: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The content of ``results.json``."""
        return to_jsonable({"attribute": self.attribute, "probe": self.probe, "readers": self.readers,
                            "verdict": self.verdict, "mdl": self.mdl, "words": self.words,
                            "per_layer": self.per_layer, "lpbs": self.lpbs, "warnings": self.warnings, "provenance": self.provenance}
                           | ({"upper_bounds": self.upper_bounds} if self.upper_bounds else {}))

    def save(self, out_dir: str | os.PathLike, *, label: str | None = None) -> Path:
        """Write ``results.json``, then ``summary.md`` built from that JSON."""
        out = Path(out_dir)
        data = self.to_dict()
        write_json(out / RESULTS_FILE, data)
        atomic_write_text(out / SUMMARY_FILE, attribute_probe_markdown(data, label))
        return out


def _read(X: np.ndarray, labels: np.ndarray, words: np.ndarray, *, readers: tuple[str, ...], mdl: bool,
          n_bootstrap: int, C: Any, class_weight: Any, seeds: dict[str, int], erasure: dict[str, Any] | None = None,
          position: int = 0) -> tuple[dict, dict | None]:
    """The readers' verdict and the linear family's MDL on one layer; behind an eraser, ``erasure``
    (:func:`probekit.intrinsic.encoder_erasure`) says how the readers met it and, word-disjoint, holds
    each fold's refitted occurrences (``position``: this layer's index among them).
    """
    mdl_result = mdl_probe(X, labels, words=words, unit="word", random_state=seeds["mdl"]).to_dict() if mdl else None
    linear = {"C": C, "class_weight": class_weight}
    known = {"linear": mdl_result["compression"]} if mdl_result else None
    settings = dict(readers=readers, n_bootstrap=n_bootstrap, known_mdl=known,
                    reader_params={"linear": linear, "kernel": linear}, random_state=seeds["probe"],
                    erasure=None if erasure is None else erasure["note"])
    if erasure is not None and "erased" in erasure:  # the MDL beside it stays that of the loaded eraser
        folds = [fold[:, position] for fold in erasure["erased"]]
        reading = functools.partial(read_layer_cross_fitted, folds, erasure["tests"], labels, words, **settings)
    else:
        reading = functools.partial(read_layer, X, labels, words, mdl=[r for r in readers if r == "mlp"] if mdl else (),
                                    **settings)
    try:
        return reading(), mdl_result
    except InvalidParameterError as exc:
        # The control task permutes the groups' terms over all terms; a group of three terms can then keep
        # fewer than two training terms, too few to choose C by term-grouped cross-validation.
        if exc.parameter != "C":
            raise
        result = reading(control=False)
        result["verdict"]["flags"].append({"flag": "no control task", "reader": "linear", "message": (
            "the control task was not run: after its random relabeling a group kept fewer than two training "
            "terms (too few to choose C by term-grouped cross-validation)")})
        return result, mdl_result


def _erasure(encoder: Encoder, attribute: wordlists.Attribute, found: Any, probed_layers: list[int], *,
             eraser_fit: str, eraser_folds: int, random_state: int, selection: dict[str, Any]) -> dict[str, Any] | None:
    """:func:`probekit.intrinsic.encoder_erasure` on the attribute's occurrences (k groups; the folds hold
    whole terms, every group in each), re-embedded as :func:`attribute_group_embeddings` selected them.
    """
    def embed(which: Encoder, layer: Any) -> Any:
        cache = selection["cache_dir"] if which is encoder.unprojected else None
        return attribute_group_embeddings(which, attribute, found.corpus, layer=layer,
                                          **{**selection, "cache_dir": cache}).embeddings

    return encoder_erasure(encoder, embed, found.embeddings.words, found.labels, probed_layers, eraser_fit=eraser_fit,
                           eraser_folds=eraser_folds, random_state=random_state, concept=attribute.name)


def _layer_row(layer: int, reading: dict[str, Any], mdl_result: dict[str, Any] | None) -> dict[str, Any]:
    linear = reading["readers"]["linear"]
    return {"layer": int(layer), "balanced_accuracy": linear["balanced_accuracy"],
            "balanced_accuracy_ci": linear["balanced_accuracy_ci"], "chance": linear["chance"],
            "mdl_compression": None if mdl_result is None else mdl_result["compression"],
            "readers": reading["readers"], "verdict": reading["verdict"]}


def run_attribute_probe(
    encoder: Encoder,
    attribute: str | wordlists.Attribute,
    corpus: Corpus | Sequence[str] | None = None,
    *,
    layer: int = -1,
    layers: str | Sequence[int] | None = None,
    max_per_word: int | None = 100,
    single_piece_only: bool = False,
    readers: str | Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    C: float | str = "cv",
    class_weight: str | None = "balanced",
    mdl: bool = True,
    eraser_fit: str = "loaded",
    eraser_folds: int = 5,
    upper_bounds: str | Sequence[str] | None = None,
    lpbs: bool = True,
    lpbs_targets: Sequence[str] | None = None,
    random_state: int = 0,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> AttributeProbeResult:
    """The k-class probe of ``attribute`` on one encoder (module docstring: what is measured).

    Parameters
    ----------
    encoder : Encoder
    attribute : str or wordlists.Attribute
        ``"race"``, ``"religion"`` or a registered attribute (k >= 2 groups).
    corpus : Corpus or sequence of str, optional
        Default: :func:`probekit.text.attribute_corpus` of the attribute.
    layer, layers, max_per_word, random_state, cache_dir, progress
        As :func:`probekit.intrinsic.run_probe_suite` (the same seeds for the same ``random_state``).
    single_piece_only : bool
        Keep only terms of one wordpiece. Default ``False``: the paper's single-wordpiece rule is for
        its gender lists; most race and religion terms (and many names) are several wordpieces, which
        are mean-pooled.
    readers : str or sequence of str, optional
        Reader families ("linear", "mlp", "kernel"; the linear one always included); default linear only.
    n_bootstrap : int
        Word-bootstrap replicates of the balanced-accuracy intervals.
    C, class_weight
        Of the linear (and kernel) reader: ``"cv"`` chooses C by term-grouped cross-validation.
    mdl : bool
        Also compute the online-code MDL of the k-class labels (and the MLP family's with ``mlp``).
    eraser_fit : {"loaded", "word-disjoint"}
        For an encoder behind an eraser (a projection directory, e.g. ``debias leace --attribute race``), as
        :func:`probekit.intrinsic.run_probe_suite`: ``"loaded"`` reads the eraser as saved (fitted on every
        term, the held-out ones included: the verdict says so, and a below-chance accuracy is that artefact);
        ``"word-disjoint"`` refits it per term fold on the other folds' terms with the k group labels and
        scores every reader on the fold's terms (:mod:`probekit.intrinsic._verdict_erasure`). MDL stays on
        the loaded eraser.
    eraser_folds : int
        Term folds of the word-disjoint check (and of ``upper_bounds``); at most the terms of the smallest group
        (race: 4).
    upper_bounds : str or sequence of str, optional
        Label-aware erasers ("oracle-leace", "quadratic-leace") after which every reader is also read with the
        k group labels, at every probed hidden state, term-disjoint: an upper bound, not a method
        (:func:`probekit.intrinsic.read_upper_bounds`).
    lpbs : bool
        Also score LPBS with k groups (:func:`probekit.intrinsic.group_lpbs` on the terms that fit the
        templates) when the checkpoint has a masked-LM head.
    lpbs_targets : sequence of str, optional
        The LPBS targets; default the paper's female and male stereotype words.
    """
    started = time.perf_counter()
    validate_parameters({"eraser_fit": eraser_fit, "eraser_folds": eraser_folds}, ERASER_FIT_CONSTRAINTS)
    attribute, bounds = wordlists.get_attribute(attribute), check_upper_bounds(upper_bounds)
    names = tuple(dict.fromkeys(("linear", *check_readers(readers)))) if readers is not None else ("linear",)
    headline = resolve_layers([layer], encoder.num_layers, "layer")[0]
    layer_list = None if layers is None else resolve_layers(layers, encoder.num_layers)
    extract = layer if layer_list is None else sorted(set(layer_list) | {headline})
    seeds = suite_seeds(int(random_state))
    corpus = None if corpus is None else group_context_corpus(corpus, attribute)
    found = attribute_group_embeddings(encoder, attribute, corpus, layer=extract, max_per_word=max_per_word,
                                       single_piece_only=bool(single_piece_only), random_state=int(random_state),
                                       cache_dir=cache_dir, progress=progress)
    embeddings, labels, probed, corpus = found.embeddings, found.labels, found.groups, found.corpus
    words = np.asarray(embeddings.words, dtype=object)
    erasure = _erasure(encoder, attribute, found, [headline] if layer_list is None else list(extract),
                       eraser_fit=eraser_fit, eraser_folds=int(eraser_folds), random_state=seeds["probe"],
                       selection=dict(max_per_word=max_per_word, single_piece_only=bool(single_piece_only),
                                      random_state=int(random_state), cache_dir=cache_dir, progress=progress))
    settings = dict(readers=names, mdl=bool(mdl), n_bootstrap=int(n_bootstrap), C=C, class_weight=class_weight,
                    seeds=seeds, erasure=erasure)
    rows, headline_result = [], None
    for index, hidden in enumerate([extract] if layer_list is None else extract):
        X = embeddings.embeddings if layer_list is None else embeddings.embeddings[:, index, :]
        result = _read(X, labels, words, position=index, **settings)
        if layer_list is None or hidden == headline:
            headline_result = result
        if layer_list is not None and hidden in layer_list:
            rows.append(_layer_row(hidden, *result))
    assert headline_result is not None
    reading, mdl_result = headline_result
    states = {hidden: embeddings.embeddings if layer_list is None else embeddings.embeddings[:, index, :]
              for index, hidden in enumerate([headline] if layer_list is None else extract)}
    bounds_read = read_upper_bounds(states, labels, words, upper_bounds=bounds, readers=names, n_folds=int(eraser_folds),
                                    n_bootstrap=int(n_bootstrap), random_state=seeds["probe"])
    lpbs_result = attribute_lpbs_report(encoder, attribute, lpbs_targets, progress=progress) if lpbs else None
    words_record = _words_record(found.sets, probed, found.selection, labels, len(corpus))
    provenance = collect_provenance(
        model=encoder.describe(), seeds={"random_state": int(random_state), **seeds},
        wordlists={f"{attribute.name}:{g}": terms for g, terms in probed.items()}, attribute=attribute,
        parameters={"attribute": attribute.name, "corpus": getattr(corpus, "name", "sentences"),
                    "corpus_digest": getattr(corpus, "digest", None), "corpus_sentences": len(corpus),
                    "layer": layer, "headline_layer": headline, "layer_indices": layer_list,
                    "max_per_word": max_per_word, "single_piece_only": bool(single_piece_only),
                    "readers": list(names), "n_bootstrap": int(n_bootstrap), "C": C, "class_weight": class_weight,
                    "mdl": bool(mdl), "eraser_fit": eraser_fit, "eraser_folds": int(eraser_folds), "lpbs": bool(lpbs),
                    **({"upper_bounds": list(bounds)} if bounds else {}),
                    "lpbs_targets": None if lpbs_targets is None else list(lpbs_targets), "seconds": round(time.perf_counter() - started, 1)})
    per_layer = None if layer_list is None else {"layers": layer_list, "headline_layer": headline,
                                                 "num_layers": encoder.num_layers, "rows": rows}
    return AttributeProbeResult(
        attribute={"name": attribute.name, "groups": list(attribute.groups), "groups_probed": list(probed),
                   "k": len(probed), "digest": attribute.digest, "source": attribute.source},
        probe=dict(reading["readers"]["linear"]), readers=reading["readers"], verdict=reading["verdict"],
        words=words_record, mdl=mdl_result, per_layer=per_layer, lpbs=lpbs_result, warnings=found.notes,
        provenance=provenance, upper_bounds=bounds_read)


def _words_record(sets: dict[str, Any], probed: dict[str, list[str]], selection: Any, labels: np.ndarray,
                  n_sentences: int) -> dict[str, Any]:
    missing = {str(w).lower() for w in selection.missing}
    groups = {g: {"listed": sets["listed"][g], "used": probed.get(g, []), "dropped_multi_piece": sets["dropped"][g],
                  "without_sentences": [t for t in sets["groups"][g] if t.lower() in missing],
                  "occurrences": int(np.sum(labels == g))}
              for g in sets["groups"]}
    return {"groups": groups, "in_several_groups": sets["in_several_groups"],
            "sentences": {"corpus": n_sentences, "selected": len(selection.sentences)}}

