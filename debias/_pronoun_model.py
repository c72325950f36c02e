r"""Which "her" is an object and which "his" stands alone, where the rules of
:mod:`debias._grammar` are not certain: two small logistic regressions over the words around the
slot, learned without labels from text where the same slot is unambiguous.

Unsupervised labels (the slot word is masked, so a model sees only its context):

- "her": object ("him") vs possessive determiner ("his"), learned from the pairs them/their,
  me/my, us/our and him/his ("gave *them* a book" / "gave *their* book away");
- "his": determiner ("her") vs standalone possessive ("hers"), learned from their/theirs,
  my/mine, your/yours and our/ours, hers as a standalone ("the fault is *ours*, not *hers*").

Each model is a logistic regression (Cox 1958) :math:`P(y=1 \mid x) = \sigma(b + \sum_f w_f)`
over binary features :math:`f` of the context: word identities at offsets -2..+3, suffixes and
shapes, the closed word classes and lexicons of :mod:`debias._word_classes` and the verbs of WordNet
(and their products across the slot), and the grammar's own reading of the slot. The weights ship as JSON
(``debias/data/pronoun_model.json``, never a pickle), written by
``scripts/train_pronoun_model.py``, which rebuilds them exactly from its seed and records the
training texts, their licences, the held-out accuracy and the sha256 of the weights.

Where the grammar is certain it decides alone (punctuation or the end after the slot, a
sentence-initial "Her", a hyphenated compound, a preposition, determiner or pronoun after it), and
so do a few rules of constructions too rare in the training text (:mod:`debias._grammar_constructions`);
everywhere else the model decides, against the grammar's reading only where it is at least
:data:`OVERRIDE` confident. :func:`resolve_pronoun` returns the decision with its source
(``"rule"``, ``"model"`` or ``"grammar"``) and confidence, which :class:`debias.SwapResult` keeps
in its spans.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

from debias import _grammar as g
from debias._gendered_words import is_sentence_initial
from debias._grammar_certain import her_rule_is_certain, his_rule_is_certain
from debias._wordnet_lexicons import word_classes

__all__ = ["PronounModel", "Resolution", "load_pronoun_model", "pronoun_slot_features", "resolve_pronoun"]

MODEL_RESOURCE = "pronoun_model.json"
FORMAT = "probekit-pronoun-model/1"

# Tokens around the slot: words (with an elided tail: "don't"), opening/closing quotes, one
# punctuation mark.
_TOKEN = re.compile(r"\w+(?:['’]\w+)?|``|''|[^\w\s]")
_LEFT_CHARS = 48
_RIGHT_CHARS = 64


def _sigmoid(z: float) -> float:
    return 0.0 if z < -30 else 1.0 / (1.0 + math.exp(-z))


def _shape(token: str) -> str:
    if not token[:1].isalnum():
        return "p"
    if token.isupper() and len(token) > 1:
        return "U"
    if token[:1].isupper():
        return "C"
    return "d" if token[:1].isdigit() else "l"


def _context(text: str, start: int, end: int) -> tuple[list[str], list[str]]:
    """The two tokens before the slot (nearest last) and the three after it, with ``"<s>"`` for
    the edge of the text.
    """
    # plain words split on spaces are the tokens the pattern finds (a word character run is one
    # token): the common case, without the pattern
    pieces = text[max(0, start - _LEFT_CHARS):start].split()
    if len(pieces) >= 2 and pieces[-1].isalnum() and pieces[-2].isalnum():
        left = pieces[-2:]
    else:
        left = _TOKEN.findall(text, max(0, start - _LEFT_CHARS), start)[-2:]
    pieces = text[end:end + _RIGHT_CHARS].split(None, 3)
    if len(pieces) >= 3 and pieces[0].isalnum() and pieces[1].isalnum() and pieces[2].isalnum():
        right = pieces[:3]
    else:
        right = _TOKEN.findall(text, end, end + _RIGHT_CHARS)[:3]
    if start - _LEFT_CHARS > 0 and len(left) < 2:
        left = _TOKEN.findall(text, 0, start)[-2:]
    while len(left) < 2:
        left.insert(0, "<s>")
    while len(right) < 3:
        right.append("<s>")
    return left, right


def pronoun_slot_features(which: str, text: str, start: int, end: int) -> tuple[list[str], bool, bool | None]:
    """The model's features of the "her"/"his" slot ``text[start:end]``, the grammar's decision
    there and the grammar's decision where it is certain (``None`` elsewhere).

    Parameters
    ----------
    which : {"her", "his"}
        Which model's slot ("her": object or determiner; "his": determiner or standalone).
    text : str
        The text, with "her"/"his" (any case) written in the slot.
    start, end : int
        The slot.

    Returns
    -------
    features : list of str
        Context features only: the slot word itself is never one.
    vote : bool
        :func:`debias._grammar.her_is_object` or :func:`debias._grammar.his_stands_alone`.
    certain : bool or None
        The grammar's decision where it is certain (what :func:`resolve_pronoun` uses alone).
    """
    if which == "her":
        vote, certain = g.her_is_object(text, start, end), her_rule_is_certain(text, start, end)
    else:
        vote, certain = g.his_stands_alone(text, start, end), his_rule_is_certain(text, start, end)
    return context_features(text, start, end, vote), vote, certain


def context_features(text: str, start: int, end: int, rule_vote: bool) -> list[str]:
    """The features of the slot ``text[start:end]``: never the slot word itself, only its context
    and ``rule_vote`` (the grammar's decision for the slot).
    """
    (l2, l1), (r1, r2, r3) = _context(text, start, end)
    w2, w1, v1, v2, v3 = l2.lower(), l1.lower(), r1.lower(), r2.lower(), r3.lower()
    c2, c1, d1, d2, d3 = word_classes(w2), word_classes(w1), word_classes(v1), word_classes(v2), word_classes(v3)
    features = [
        "b", f"g={rule_vote:d}", f"-2={w2}", f"-1={w1}", f"+1={v1}", f"+2={v2}", f"+3={v3}",
        f"-1+1={w1}|{v1}", f"+1+2={v1}|{v2}", f"s+1={v1[-3:]}", f"s+2={v2[-3:]}", f"s-1={w1[-3:]}",
        f"h={_shape(l1)}{_shape(r1)}{_shape(r2)}", f"i={is_sentence_initial(text, start):d}",
    ]
    features += [f"c-2={c}" for c in c2]
    features += [f"c-1={c}" for c in c1]
    features += [f"c+1={c}" for c in d1]
    features += [f"c+2={c}" for c in d2]
    features += [f"c+3={c}" for c in d3]
    features += [f"c-1+1={a}|{b}" for a in c1 for b in d1]
    features += [f"c+1+2={a}|{b}" for a in d1 for b in d2]
    features += [f"c-1+1+2={a}|{b}|{c}" for a in c1 for b in d1 for c in d2]
    features += [f"g{rule_vote:d}c+1={b}" for b in d1]
    features += [f"-1c+1={w1}|{b}" for b in d1]
    features += [f"c-1+1w={a}|{v1}" for a in c1]
    features += [f"+1c+2={v1}|{c}" for c in d2]
    return features


# The confidence at which the model overrides the grammar's reading of an uncertain slot, by
# model and direction: (to "no": a "her" determiner, a "his" determiner; to "yes": a "her" object,
# a "his" standalone). Calibrated on the development half of the GCIDE texts (issue 27): the "her"
# model overrides the grammar toward the determiner at any confidence and toward the object only
# at 0.8: the value with the fewest "him" and "his" lost after two swaps (118 of 5,034) among those
# that lose fewer possessive "his" than both the grammar alone and the model alone (13 of 3,896
# against 19 and 26). One threshold of 0.7 both ways lost 16 "his", 0.5 both ways 26. The "his"
# model keeps 0.7 both ways.
OVERRIDE: dict[str, tuple[float, float]] = {"her": (0.5, 0.8), "his": (0.7, 0.7)}


class PronounModel:
    """The two logistic regressions read from the shipped JSON (see the module docstring).

    Parameters
    ----------
    document : dict
        The parsed JSON: ``format``, ``models`` (``"her"`` and ``"his"``, each a ``weights``
        mapping of feature to float), ``training`` (provenance).
    sha256 : str
        The digest of the file's bytes.
    source : str
        Where it was read from.
    """

    FORMAT = FORMAT
    OVERRIDE = OVERRIDE

    def __init__(self, document: dict[str, Any], sha256: str, source: str):
        _check_document(document, source)
        self.weights = {k: dict(v["weights"]) for k, v in document["models"].items()}
        self.training = document.get("training", {})
        self.seed = document.get("seed")
        self.sha256 = sha256
        self.source = source
        self._class_sums: dict[tuple, float] = {}
        self._caches: dict[str, tuple[dict[Any, float], ...]] = {w: tuple({} for _ in range(9)) for w in self.weights}

    def probability(self, which: str, features: list[str]) -> float:
        """:math:`P(y=1)`: "her" is an object, "his" stands alone."""
        get = self.weights[which].get
        z = 0.0
        for f in features:
            z += get(f, 0.0)
        if z < -30:
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))

    def slot_probability(self, which: str, text: str, start: int, end: int, rule_vote: bool) -> float:
        """``probability(which, context_features(text, start, end, rule_vote))``, the fast way:
        the features of one word (its identity, suffix and classes at its offset), of a word and
        the classes of its neighbour, and of classes alone are summed once and cached, so that a
        slot costs a few dictionary lookups.
        """
        z, d1 = self._logit_without_vote(which, text, start, end)
        return _sigmoid(z + self._vote_sum(which, rule_vote, d1))

    def vote_free_probabilities(self, which: str, text: str, start: int, end: int) -> tuple[float, float]:
        """The slot's probability if the grammar's reading were "no" and if it were "yes": where
        both are confident the same way, the decision needs no grammar at all.
        """
        z, d1 = self._logit_without_vote(which, text, start, end)
        return _sigmoid(z + self._vote_sum(which, False, d1)), _sigmoid(z + self._vote_sum(which, True, d1))

    def _logit_without_vote(self, which: str, text: str, start: int, end: int) -> tuple[float, tuple[str, ...]]:
        get = self.weights[which].get
        cache = self._caches[which]
        (l2, l1), (r1, r2, r3) = _context(text, start, end)
        w2, w1, v1, v2, v3 = l2.lower(), l1.lower(), r1.lower(), r2.lower(), r3.lower()
        c1, d1, d2 = word_classes(w1), word_classes(v1), word_classes(v2)
        z = 0.0
        for part, key in ((0, (c1, d1, d2)), (1, w2), (2, w1), (3, v1), (4, v2), (5, v3), (6, (w1, d1)), (7, (c1, v1)),
                          (8, (v1, d2))):
            value = cache[part].get(key)
            if value is None:
                value = self._part_sum(which, part, key)
            z += value
        z += (get(f"-1+1={w1}|{v1}", 0.0) + get(f"+1+2={v1}|{v2}", 0.0)
              + get(f"h={_shape(l1)}{_shape(r1)}{_shape(r2)}", 0.0)
              + get("i=1" if is_sentence_initial(text, start) else "i=0", 0.0))
        return z, d1

    def _part_sum(self, which: str, part: int, key: Any) -> float:
        """The summed weights of one cached part of :meth:`_logit_without_vote` (see
        :func:`context_features` for the features): 0 the classes at -1, +1, +2 and their
        products; 1-5 the word at -2, -1, +1, +2, +3 (identity, suffix or classes); 6-8 a word and
        its neighbour's classes.
        """
        get = self.weights[which].get
        if part == 0:
            c1, d1, d2 = key
            names = ["b"] + [f"c-1={c}" for c in c1] + [f"c+1={c}" for c in d1] + [f"c+2={c}" for c in d2]
            names += [f"c-1+1={a}|{b}" for a in c1 for b in d1] + [f"c+1+2={a}|{b}" for a in d1 for b in d2]
            names += [f"c-1+1+2={a}|{b}|{c}" for a in c1 for b in d1 for c in d2]
        elif part in (1, 5):
            kind = "-2" if part == 1 else "+3"
            names = [f"{kind}={key}"] + [f"c{kind}={c}" for c in word_classes(key)]
        elif part in (2, 3, 4):
            kind = ("-1", "+1", "+2")[part - 2]
            names = [f"{kind}={key}", f"s{kind}={key[-3:]}"]
        elif part == 6:
            names = [f"-1c+1={key[0]}|{b}" for b in key[1]]
        elif part == 7:
            names = [f"c-1+1w={a}|{key[1]}" for a in key[0]]
        else:
            names = [f"+1c+2={key[0]}|{c}" for c in key[1]]
        cache = self._caches[which][part]
        if len(cache) > 50_000:
            cache.clear()  # bounded memory on a long corpus
        total = cache[key] = sum(get(name, 0.0) for name in names)
        return total

    def _vote_sum(self, which: str, vote: bool, d1: tuple[str, ...]) -> float:
        key = (which, "g", vote, d1)
        part = self._class_sums.get(key)
        if part is None:
            get = self.weights[which].get
            part = self._class_sums[key] = get(f"g={vote:d}", 0.0) + sum(get(f"g{vote:d}c+1={b}", 0.0) for b in d1)
        return part

    @staticmethod
    def weights_digest(models: dict[str, Any]) -> str:
        """sha256 of the canonical JSON of the weight maps (what the training script records)."""
        return weights_digest(models)

    def describe(self) -> dict[str, Any]:
        """Provenance: the file, its sha256, the seed and the training record."""
        return {"file": self.source, "sha256": self.sha256, "seed": self.seed,
                "features": {k: len(v) for k, v in self.weights.items()},
                "held_out_accuracy": self.training.get("held_out_accuracy")}


def _check_document(document: Any, source: str) -> None:
    """Refuse anything but the expected plain structure (JSON only: no code is ever run)."""
    ok = isinstance(document, dict) and document.get("format") == FORMAT and isinstance(document.get("models"), dict)
    if ok:
        for which in ("her", "his"):
            model = document["models"].get(which)
            ok = ok and isinstance(model, dict) and isinstance(model.get("weights"), dict) and all(
                isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for k, v in model["weights"].items()
            )
    if not ok:
        raise ValueError(f"{source} is not a {FORMAT} file (a JSON object with 'her' and 'his' weight maps)")


def weights_digest(models: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of the weight maps (what the training script records)."""
    return hashlib.sha256(json.dumps(models, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@lru_cache(maxsize=1)
def load_pronoun_model() -> PronounModel:
    """The shipped model, ``debias/data/pronoun_model.json``, read once with :func:`json.loads`."""
    data = resources.files("debias").joinpath("data", MODEL_RESOURCE).read_bytes()
    return PronounModel(json.loads(data), hashlib.sha256(data).hexdigest(), f"debias/data/{MODEL_RESOURCE}")


class Resolution(NamedTuple):
    """How an ambiguous "her"/"his" was read: ``decision`` ("object"/"determiner" for "her",
    "determiner"/"standalone" for "his"), ``source`` ("rule", "model" or "grammar"; see
    :func:`resolve_pronoun`) and ``confidence`` (the model's probability of the decision; 1.0
    for a rule).
    """

    decision: str
    source: str
    confidence: float



_HER = ("determiner", "object")
_HIS = ("determiner", "standalone")



def resolve_pronoun(which: str, text: str, start: int, end: int) -> Resolution:
    """Read the "her" or "his" at ``text[start:end]``: the grammar where it is certain, the
    shipped model elsewhere.

    Parameters
    ----------
    which : {"her", "his"}
        The pronoun at ``text[start:end]`` (in any case).
    text : str
        The whole text.
    start, end : int
        The slot.

    Returns
    -------
    Resolution
        ``decision`` ("object" or "determiner" for "her"; "determiner" or "standalone" for
        "his"), ``source`` ("rule": the grammar is certain; "model": the model decided, with
        the grammar or against it at the confidence :data:`OVERRIDE` asks or more; "grammar": the
        model disagreed with less confidence, so the grammar's reading stands) and
        ``confidence`` (1.0 for a rule; the model's probability of the decision otherwise,
        below 0.5 where the grammar's reading stood against it).

    Examples
    --------
    >>> resolve_pronoun("her", "They let her leave.", 8, 11).decision
    'object'
    """
    labels = _HER if which == "her" else _HIS
    certain = her_rule_is_certain if which == "her" else his_rule_is_certain
    decided = certain(text, start, end)
    if decided is not None:
        return Resolution(labels[decided], "rule", 1.0)
    vote = g.her_is_object(text, start, end) if which == "her" else g.his_stands_alone(text, start, end)
    return _decide(which, vote, load_pronoun_model().slot_probability(which, text, start, end, vote))


def _decide(which: str, vote: bool, p: float) -> Resolution:
    """The model's reading at probability ``p``, or the grammar's where the model disagrees
    with less confidence than :data:`OVERRIDE` asks of that model in that direction.
    """
    labels = _HER if which == "her" else _HIS
    positive = p >= 0.5
    if positive != vote and max(p, 1.0 - p) < OVERRIDE[which][positive]:
        return Resolution(labels[vote], "grammar", round(p if vote else 1.0 - p, 4))
    return Resolution(labels[positive], "model", round(p if positive else 1.0 - p, 4))


def pronoun_decision(which: str, text: str, start: int, end: int) -> str:
    """``resolve_pronoun(which, text, start, end).decision``, faster: where the model is
    confident whatever the grammar's reading, the grammar is not consulted (the batch path of
    :func:`debias.swap_texts`, which keeps no spans).
    """
    labels = _HER if which == "her" else _HIS
    decided = (her_rule_is_certain if which == "her" else his_rule_is_certain)(text, start, end)
    if decided is not None:
        return labels[decided]
    model = load_pronoun_model()
    p_no, p_yes = model.vote_free_probabilities(which, text, start, end)
    # what _decide answers for each reading of the grammar, without building the Resolutions
    to_no, to_yes = OVERRIDE[which]
    if_no, if_yes = p_no >= 0.5 and p_no >= to_yes, not (p_yes < 0.5 and 1.0 - p_yes >= to_no)
    if if_no == if_yes:
        return labels[if_no]
    vote = g.her_is_object(text, start, end) if which == "her" else g.his_stands_alone(text, start, end)
    return _decide(which, vote, p_yes if vote else p_no).decision
