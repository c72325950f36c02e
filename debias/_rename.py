r"""Same-gender renaming: every first name replaced by another first name of the same gender.

The control of gender swapping. A counterfactual :math:`x_{cf}` (:func:`debias.swap`) changes
two things at once: *which* words stand in the text and *what gender* they carry. Renaming
changes the first names only, keeping every name's gender (and every pronoun, title and gendered
word), so :math:`|P(\hat y = y \mid x) - P(\hat y = y \mid x_{rn})|` measures how much a
classifier moves when names change but gender does not. CF's noise floor compares the two
(:func:`probekit.finetune.cf_noise_floor`).

Which name replaces which: the first names that :func:`debias.swap` pairs across genders, taken
per gender in list order (frequency rank for the census names), are paired with their neighbour
of the same gender -- the 1st female name with the 2nd, the 3rd with the 4th, ... (likewise for
male names; an odd last name is paired with the one before it, one way). Neighbours in the
ranking are about equally common, so a renamed text is as ordinary as its source. A name is
recognized in exactly the places where :func:`debias.swap` swaps it (the same context rules), so
the two perturbations touch the same name occurrences. Renaming twice gives the text back, except
for that odd last name.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable
from typing import Any

from debias._gendered_words import GenderedVocabulary, NameSpec, get_vocabulary, recase
from debias._interventions_io import intervene_dataset
from probekit.errors import InvalidParameterError

__all__ = ["rename", "rename_texts", "rename_dataset", "describe_rename", "same_gender_partners"]

# per vocabulary object (not its id: get_vocabulary may drop one and a new one reuse the id)
_PARTNERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def same_gender_partners(vocabulary: GenderedVocabulary) -> dict[str, str]:
    """``{lowercase name: its same-gender partner as stored}`` for the paired names of ``vocabulary``."""
    cached = _PARTNERS.get(vocabulary)
    if cached is not None:
        return cached
    partners: dict[str, str] = {}
    for gender in ("female", "male"):
        ranked = [t for t in vocabulary.terms.values()
                  if t.kind == "name" and t.gender == gender and t.counterpart is not None]
        ranked = list({t.word: t for t in ranked}.values())  # curly-apostrophe aliases share a term
        for i in range(0, len(ranked) - 1, 2):
            first, second = ranked[i], ranked[i + 1]
            partners[first.word] = _stored(vocabulary, second)
            partners[second.word] = _stored(vocabulary, first)
        if len(ranked) % 2 and len(ranked) > 1:
            partners[ranked[-1].word] = _stored(vocabulary, ranked[-2])
    _PARTNERS[vocabulary] = partners
    return partners


def _stored(vocabulary: GenderedVocabulary, term: Any) -> str:
    """A name as the list writes it ("McKenzie"): the counterpart of its cross-gender partner."""
    partner = vocabulary.terms.get(term.counterpart.lower())
    written = None if partner is None else partner.counterpart
    return written if written and written.lower() == term.word else term.word[:1].upper() + term.word[1:]


def _rename_text(vocabulary: GenderedVocabulary, partners: dict[str, str], text: str) -> str:
    pieces: list[str] = []
    position = 0
    for start, end, key in vocabulary.find(text):
        partner = partners.get(key)
        if partner is None or not vocabulary.accepts(vocabulary.terms[key], text, start, end):
            continue
        pieces += [text[position:start], recase(text[start:end], partner)]
        position = end
    if not pieces:
        return text
    pieces.append(text[position:])
    return "".join(pieces)


def rename(text: str, *, names: NameSpec = "census", names_case: str = "capitalized") -> str:
    """``text`` with every first name replaced by its same-gender partner (see the module docstring).

    Parameters
    ----------
    text : str
    names, names_case : see :func:`debias.swap`

    Returns
    -------
    str

    Examples
    --------
    >>> rename("Mary said she met John.")  # doctest: +SKIP
    'Patricia said she met Robert.'
    """
    if not isinstance(text, str):
        raise InvalidParameterError("text", type(text).__name__, "a string")
    vocabulary = get_vocabulary(names, names_case)
    return _rename_text(vocabulary, same_gender_partners(vocabulary), text)


def rename_texts(texts: Iterable[str], *, names: NameSpec = "census", names_case: str = "capitalized") -> list[str]:
    """:func:`rename` over many texts (``None`` entries passed through)."""
    if isinstance(texts, str):
        raise InvalidParameterError("texts", texts, "a list of strings, not one string (use rename for one text)")
    vocabulary = get_vocabulary(names, names_case)
    partners = same_gender_partners(vocabulary)
    out = []
    for text in texts:
        if text is not None and not isinstance(text, str):
            raise InvalidParameterError("texts", f"an entry of type {type(text).__name__}", "strings (or None)")
        out.append(None if text is None else _rename_text(vocabulary, partners, text))
    return out


def rename_dataset(dataset: Any, column: str = "text", *, names: NameSpec = "census", names_case: str = "capitalized",
                   batch_size: int = 1000, **map_kwargs: Any) -> Any:
    """:func:`rename` over ``dataset[column]`` with a batched ``datasets`` map (other columns unchanged)."""
    get_vocabulary(names, names_case)  # bad arguments fail before the map
    function = functools.partial(rename_texts, names=names, names_case=names_case)
    return intervene_dataset(dataset, function, column=column, batch_size=batch_size, **map_kwargs)


def describe_rename(names: NameSpec = "census", names_case: str = "capitalized") -> dict[str, Any]:
    """Provenance of :func:`rename`: the name list and its digest, and how names are paired."""
    vocabulary = get_vocabulary(names, names_case)
    name_list = vocabulary.describe()["name_list"]
    return {"intervention": "rename", "name_list": name_list, "names_case": names_case,
            "pairing": "same gender, neighbours in list order (1st-2nd, 3rd-4th, ...)",
            "n_renamed_names": len(same_gender_partners(vocabulary))}
