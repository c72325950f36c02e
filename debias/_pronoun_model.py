"""Which "her" is an object and which "his" stands alone, where the rules of
:mod:`debias._grammar` are not certain: two small logistic regressions over the words around the
slot, learned without labels from text where the same slot is unambiguous.

Unsupervised labels (the slot word is masked, so a model sees only its context):

- "her": object ("him") vs possessive determiner ("his"), learned from the pairs them/their,
  me/my, us/our and him/his ("gave *them* a book" / "gave *their* book away");
- "his": determiner ("her") vs standalone possessive ("hers"), learned from their/theirs,
  my/mine, your/yours and our/ours, hers as a standalone ("the fault is *ours*, not *hers*").

Each model is a logistic regression (Cox 1958) :math:`P(y=1 \\mid x) = \\sigma(b + \\sum_f w_f)`
over binary features :math:`f` of the context: word identities at offsets -2..+3, suffixes and
shapes, the closed word classes and lexicons of :mod:`debias._grammar` (and their products
across the slot), and the grammar's own decision for the slot. The weights ship as JSON
(``debias/data/pronoun_model.json``, never a pickle), written by
``scripts/train_pronoun_model.py``, which rebuilds them exactly from its seed and records the
training texts, their licences, the held-out accuracy and the sha256 of the weights.

Where the grammar is certain it decides alone (punctuation or the end after the slot, a
sentence-initial "Her", a hyphenated compound, a preposition, determiner or pronoun after it);
everywhere else the model decides. :func:`resolve` returns the decision with its source
(``"rule"`` or ``"model"``) and confidence, which :class:`debias.SwapResult` keeps in its spans.
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

__all__ = ["PronounModel", "Resolution", "load_pronoun_model", "pronoun_slot_features", "resolve_pronoun"]

MODEL_RESOURCE = "pronoun_model.json"
FORMAT = "probekit-pronoun-model/1"

# Tokens around the slot: words (with an elided tail: "don't"), opening/closing quotes, one
# punctuation mark.
_TOKEN = re.compile(r"\w+(?:['’]\w+)?|``|''|[^\w\s]")
_LEFT_CHARS = 48
_RIGHT_CHARS = 64

# Words after which the slot's reading is a guess of the rules ("her will", "her just reward",
# "his ever loyal wife", "her and his"): the model decides these even though they are closed.
_UNCERTAIN_CLOSED = g._words(
    "will may can must being just rather quite somewhat fairly and or ever never always also still "
    "once only even too alone again enough"
)
_CERTAIN_CLOSED = g.PREPOSITIONS | g.DETERMINERS | g.PRONOUNS | g.POSSESSIVES | g.CONJUNCTIONS | g.AUXILIARIES

# Word classes that name a feature: the grammar's lexicons.
_CLASSES: tuple[tuple[str, frozenset[str]], ...] = (
    ("prep", g.PREPOSITIONS), ("conj", g.CONJUNCTIONS), ("det", g.DETERMINERS), ("pron", g.PRONOUNS),
    ("poss", g.POSSESSIVES), ("aux", g.AUXILIARIES), ("part", g.PARTICLES), ("mod", g.MODIFIERS),
    ("say", g.VERBS_OF_SAYING), ("ditr", g.DITRANSITIVES), ("scaus", g.STRONG_CAUSATIVES),
    ("caus", g.CAUSATIVES), ("cnoun", g.CAUSATIVE_NOUNS), ("nverb", g.NOUN_VERBS),
    ("opv", g.OBJECT_PREDICATE_VERBS), ("name", g.NAMING_VERBS), ("role", g.ROLES), ("mass", g.MASS_NOUNS),
    ("padj", g.PREDICATIVE_ADJECTIVES), ("dadj", g.DOUBLE_OBJECT_ADJECTIVES), ("num", g.NUMBER_WORDS),
    ("rel", g.RELATIONAL_NOUNS), ("time", g.TIME_NOUNS), ("verb", g.VERBS), ("vonly", g.VERBS_ONLY),
)


@lru_cache(maxsize=65536)
def word_classes(low: str) -> tuple[str, ...]:
    """The grammar's classes of a lowercase token, and its suffix classes (-ly adverb, participle,
    adjective, number, punctuation).
    """
    out = [name for name, words in _CLASSES if low in words]
    if not low[:1].isalnum() and low[:1] != "_":
        out.append("punct")
    elif low[:1].isdigit():
        out.append("digit")
    else:
        if g._is_ly_adverb(low):
            out.append("ly")
        if g._is_participle(low):
            out.append("ing" if low.endswith("ing") else "ppart")
        if g._is_adjective(low):
            out.append("adj")
        if not out:
            out.append("open")
    return tuple(out)


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
    left = _TOKEN.findall(text, max(0, start - _LEFT_CHARS), start)[-2:]
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
    c1, d1, d2 = word_classes(w1), word_classes(v1), word_classes(v2)
    features = [
        "b", f"g={rule_vote:d}", f"-2={w2}", f"-1={w1}", f"+1={v1}", f"+2={v2}", f"+3={v3}",
        f"-1+1={w1}|{v1}", f"+1+2={v1}|{v2}", f"s+1={v1[-3:]}", f"s+2={v2[-3:]}", f"s-1={w1[-3:]}",
        f"h={_shape(l1)}{_shape(r1)}{_shape(r2)}", f"i={is_sentence_initial(text, start):d}",
    ]
    features += [f"c-1={c}" for c in c1]
    features += [f"c+1={c}" for c in d1]
    features += [f"c+2={c}" for c in d2]
    features += [f"c-1+1={a}|{b}" for a in c1 for b in d1]
    features += [f"c+1+2={a}|{b}" for a in d1 for b in d2]
    features += [f"g{rule_vote:d}c+1={b}" for b in d1]
    return features


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

    def __init__(self, document: dict[str, Any], sha256: str, source: str):
        _check_document(document, source)
        self.weights = {k: dict(v["weights"]) for k, v in document["models"].items()}
        self.training = document.get("training", {})
        self.seed = document.get("seed")
        self.sha256 = sha256
        self.source = source

    def probability(self, which: str, features: list[str]) -> float:
        """:math:`P(y=1)`: "her" is an object, "his" stands alone."""
        get = self.weights[which].get
        z = 0.0
        for f in features:
            z += get(f, 0.0)
        if z < -30:
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))

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
    "determiner"/"standalone" for "his"), ``source`` ("rule" or "model") and ``confidence``
    (the model's probability of its decision; 1.0 for a rule).
    """

    decision: str
    source: str
    confidence: float


_HER = ("determiner", "object")
_HIS = ("determiner", "standalone")


def her_rule_is_certain(text: str, start: int, end: int) -> bool | None:
    """The grammar's decision for "her" where it is certain, else ``None``."""
    if end == len(text) or text[end] in g._CLAUSE_PUNCTUATION:
        return True
    token = g._next(text, end)
    if token.word is None:
        return None if token.quote is not None else True
    if is_sentence_initial(text, start) or token.compound:
        return False
    if token.low in _CERTAIN_CLOSED and token.low not in _UNCERTAIN_CLOSED:
        return g.her_is_object(text, start, end)
    return None


def his_rule_is_certain(text: str, start: int, end: int) -> bool | None:
    """The grammar's decision for "his" where it is certain, else ``None``."""
    if end == len(text) or text[end] in g._CLAUSE_PUNCTUATION:
        return True
    token = g._next(text, end)
    if token.word is None:
        return token.quote is None
    if token.compound:
        return False
    if token.low in _CERTAIN_CLOSED and token.low not in _UNCERTAIN_CLOSED:
        return g.his_stands_alone(text, start, end)
    return None


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
        "his"), ``source`` ("rule" or "model") and ``confidence`` (1.0 for a rule; the model's
        probability of its decision otherwise).

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
    p = load_pronoun_model().probability(which, context_features(text, start, end, vote))
    positive = p >= 0.5
    return Resolution(labels[positive], "model", round(p if positive else 1.0 - p, 4))
