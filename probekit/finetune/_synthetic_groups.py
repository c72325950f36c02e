r"""Synthetic biographies with k race groups and a planted race or intersection-only shortcut.

A binary task (two professions of the synthetic biographies; label 1 = the second) whose examples
carry a gender (pronouns, title, first name) and a race (a closing sentence: "She grew up in a Black
family."; race terms of :func:`wordlists.get_attribute` ``("race")``). In the training
split the share of label 1 in every (gender, race) cell is planted exactly (rounded counts, as
:func:`probekit.finetune.make_synthetic_bios` plants the gender skew); the test split has 1/2 in
every cell:

* ``shortcut=None``: 1/2 everywhere -- no shortcut;
* ``shortcut="race"``: :math:`s` for the first race, :math:`1 - s` for the second, 1/2 for the
  others, whatever the gender -- race predicts the label;
* ``shortcut="intersection"``: :math:`s` for (female, race 1) and (male, race 2), :math:`1 - s`
  for (male, race 1) and (female, race 2), 1/2 elsewhere. Every race and every gender alone has
  exactly 1/2 (with equal cells), so the shortcut is visible only in the intersection.

:func:`simulate_shortcut_predictions` stands in for a classifier that learned the shortcut to a
given degree, so the planted answer can be checked with the metric engine without training.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

import wordlists
from probekit.errors import InvalidParameterError
from probekit.finetune._synthetic import _biography
from probekit.finetune._synthetic_tables import _BY_NAME
from probekit.text import indefinite_article
from probekit.utils import Interval, Options, check_positive_int, resolve_seed, spawn_generators, validate_parameters

if TYPE_CHECKING:
    import datasets

__all__ = ["GROUP_SHORTCUTS", "group_shortcut_plan", "make_synthetic_group_bios", "simulate_shortcut_predictions"]

GROUP_SHORTCUTS = (None, "race", "intersection")
_GENDERS = ("female", "male")
_RACE_WORDS = {"black": "Black", "white": "white", "asian": "Asian", "latino": "Latino"}
_RACE_FRAMES = (
    "{first} grew up in {a} {race} family.",
    "{first} was raised by {a} {race} family.",
    "{first} comes from {a} {race} family.",
)


def _cell_shares(shortcut: str | None, strength: float, races: Sequence[str]) -> dict[tuple[str, str], float]:
    """P(label = 1) of every (gender, race) cell under the planted shortcut."""
    shares = {cell: 0.5 for cell in itertools.product(_GENDERS, races)}
    r1, r2 = races[0], races[1]
    if shortcut == "race":
        for g in _GENDERS:
            shares[(g, r1)], shares[(g, r2)] = strength, 1.0 - strength
    elif shortcut == "intersection":
        shares[("female", r1)], shares[("male", r1)] = strength, 1.0 - strength
        shares[("female", r2)], shares[("male", r2)] = 1.0 - strength, strength
    return shares


def _check_plan(shortcut: Any, races: Sequence[str] | None) -> tuple[str, ...]:
    if shortcut not in GROUP_SHORTCUTS:
        raise InvalidParameterError("shortcut", shortcut, GROUP_SHORTCUTS)
    known = wordlists.get_attribute("race").groups
    chosen = tuple(known if races is None else races)
    unknown = [r for r in chosen if r not in _RACE_WORDS]
    if unknown or len(chosen) < 2 or len(set(chosen)) != len(chosen):
        raise InvalidParameterError("races", list(chosen), f"two or more distinct groups of {tuple(_RACE_WORDS)}")
    return chosen


def group_shortcut_plan(
    n: int,
    *,
    shortcut: str | None = "race",
    strength: float = 0.85,
    races: Sequence[str] | None = None,
    random_state: int | np.random.Generator | None = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Labels, genders and races of one split with the planted shortcut (no texts; fast).

    The (gender, race) cells are as equal in size as ``n`` allows; in each, exactly
    ``round(share * n_cell)`` examples have label 1 (``n_cell - round((1 - share) * n_cell)`` for
    shares below 1/2, so that the intersection plan's marginals are exactly 1/2), where ``share``
    is the cell's planted
    :math:`P(y = 1 \mid \text{cell})` (see the module docstring); shuffled.

    Parameters
    ----------
    n : int
        Number of examples (at least one per cell).
    shortcut : {None, "race", "intersection"}
    strength : float in [0, 1]
        :math:`s` above; 0.5 plants nothing.
    races : sequence of str, optional
        Race groups (default: every group of the race attribute).
    random_state : int, Generator or None

    Returns
    -------
    labels, genders, races : ndarray
    """
    validate_parameters({"n": n, "shortcut": shortcut, "strength": strength, "random_state": random_state},
                        group_shortcut_plan._parameter_constraints)
    chosen = _check_plan(shortcut, races)
    cells = list(itertools.product(_GENDERS, chosen))
    n = check_positive_int(n, "n", minimum=len(cells))
    shares = _cell_shares(shortcut, strength, chosen)
    sizes = np.full(len(cells), n // len(cells))
    sizes[: n % len(cells)] += 1
    labels, genders, race_col = [], [], []
    for (g, r), size in zip(cells, sizes):
        share = shares[(g, r)]
        # rounded symmetrically, so that s and 1 - s cells of one size add up to exactly the size
        ones = int(np.floor(share * size + 0.5)) if share >= 0.5 else int(size) - int(np.floor((1 - share) * size + 0.5))
        labels += [1] * ones + [0] * (int(size) - ones)
        genders += [g] * int(size)
        race_col += [r] * int(size)
    order = np.random.default_rng(random_state).permutation(n)
    return (np.asarray(labels, dtype=np.int64)[order], np.asarray(genders, dtype=object)[order],
            np.asarray(race_col, dtype=object)[order])


def simulate_shortcut_predictions(
    train_labels: Any,
    train_cells: Sequence[Any],
    test_labels: Any,
    test_cells: Sequence[Any],
    *,
    reliance: float = 0.4,
    accuracy: float = 0.85,
    random_state: int | np.random.Generator | None = 0,
) -> np.ndarray:
    r"""Binary predictions of a classifier that learned a shortcut to a given degree.

    The model knows :math:`\hat p(c) = P_{train}(y = 1 \mid c)` of every cell :math:`c` (a group,
    or a tuple of groups for an intersection) from the training split. For each test example it
    follows the shortcut with probability ``reliance`` (predicts 1 with probability
    :math:`\hat p(c)`), and otherwise reads the task: right with probability ``accuracy``. A cell
    unseen in training gets :math:`\hat p = 1/2`.

    Parameters
    ----------
    train_labels, test_labels : array-like of 0/1
    train_cells, test_cells : sequences of the cell of every example (e.g. ``races`` or
        ``list(zip(genders, races))``)
    reliance, accuracy : float in [0, 1]
    random_state : int, Generator or None

    Returns
    -------
    ndarray of int
    """
    validate_parameters({"reliance": reliance, "accuracy": accuracy, "random_state": random_state},
                        simulate_shortcut_predictions._parameter_constraints)
    y_train, y_test = np.asarray(train_labels, dtype=np.int64), np.asarray(test_labels, dtype=np.int64)
    train_keys = [c if isinstance(c, tuple) else (c,) for c in train_cells]
    test_keys = [c if isinstance(c, tuple) else (c,) for c in test_cells]
    if len(train_keys) != y_train.size or len(test_keys) != y_test.size:
        raise InvalidParameterError("test_cells", f"{len(test_keys)} cells", "one cell per example")
    sums: dict[tuple, list[int]] = {}
    for key, y in zip(train_keys, y_train):
        entry = sums.setdefault(key, [0, 0])
        entry[0] += int(y)
        entry[1] += 1
    p_hat = np.array([sums[k][0] / sums[k][1] if k in sums else 0.5 for k in test_keys])
    rng = np.random.default_rng(random_state)
    follow = rng.random(y_test.size) < reliance
    shortcut = (rng.random(y_test.size) < p_hat).astype(np.int64)
    right = rng.random(y_test.size) < accuracy
    return np.where(follow, shortcut, np.where(right, y_test, 1 - y_test))


def _race_sentence(rng: np.random.Generator, gender: str, race: str) -> str:
    word = _RACE_WORDS[race]
    frame = _RACE_FRAMES[int(rng.integers(len(_RACE_FRAMES)))]
    return frame.format(first="She" if gender == "female" else "He", a=indefinite_article(word), race=word)


def _texts(rng: np.random.Generator, labels, genders, races, professions, cue_strength: float) -> list[str]:
    race_terms = {w.lower() for w in wordlists.get_attribute("race").words}
    texts = []
    for label, gender, race in zip(labels, genders, races):
        for _ in range(50):  # first names that are race terms (WEAT names) would blur the race
            text, _ = _biography(rng, _BY_NAME[professions[label]], str(gender), cue_strength=cue_strength,
                                 domain_cue_rate=0.5, title_rate=0.1)
            if not {w.strip(".,").lower() for w in text.split()} & race_terms:
                break
        texts.append(f"{text} {_race_sentence(rng, str(gender), str(race))}")
    return texts


def make_synthetic_group_bios(
    n_train: int = 2000,
    n_test: int = 2000,
    *,
    shortcut: str | None = "race",
    strength: float = 0.85,
    races: Sequence[str] | None = None,
    professions: tuple[str, str] = ("nurse", "surgeon"),
    cue_strength: float = 0.3,
    random_state: int | np.random.Generator | None = 0,
) -> datasets.DatasetDict:
    """Synthetic biographies of two professions with gender, race and a planted shortcut.

    The training split follows :func:`group_shortcut_plan` with ``shortcut`` and ``strength``;
    the test split has label 1 in half of every (gender, race) cell. See the module docstring.

    Returns
    -------
    datasets.DatasetDict
        Splits ``"train"`` and ``"test"`` with ``text``, ``label`` (ClassLabel over the two
        professions), ``gender``, ``race`` and ``example_id``.
    """
    validate_parameters({"n_train": n_train, "n_test": n_test, "shortcut": shortcut, "strength": strength,
                         "cue_strength": cue_strength, "random_state": random_state},
                        make_synthetic_group_bios._parameter_constraints)
    chosen = _check_plan(shortcut, races)
    if len(professions) != 2 or any(p not in _BY_NAME for p in professions) or professions[0] == professions[1]:
        raise InvalidParameterError("professions", list(professions), f"two distinct professions of {tuple(_BY_NAME)}")
    _, source = resolve_seed(random_state)
    plan_train, plan_test, text_rng = spawn_generators(source, 3)
    import datasets

    features = datasets.Features({
        "text": datasets.Value("string"), "label": datasets.ClassLabel(names=list(professions)),
        "gender": datasets.Value("string"), "race": datasets.Value("string"), "example_id": datasets.Value("int64"),
    })
    splits, offset = {}, 0
    for split, n, plan_shortcut, rng in (("train", n_train, shortcut, plan_train), ("test", n_test, None, plan_test)):
        labels, genders, race_col = group_shortcut_plan(n, shortcut=plan_shortcut, strength=strength, races=chosen,
                                                        random_state=rng)
        texts = _texts(text_rng, labels, genders, race_col, professions, cue_strength)
        splits[split] = datasets.Dataset.from_dict(
            {"text": texts, "label": labels.tolist(), "gender": list(map(str, genders)), "race": list(map(str, race_col)),
             "example_id": list(range(offset, offset + len(texts)))}, features=features, split=split,
        )
        offset += len(texts)
    return datasets.DatasetDict(splits)


#: The options of the functions above and their valid values, declared once.
_UNIT = [Interval(float, 0, 1, closed="both")]
group_shortcut_plan._parameter_constraints = {  # type: ignore[attr-defined]
    "n": [Interval(int, 1, None)], "shortcut": [Options("race", "intersection"), None], "strength": _UNIT,
    "random_state": ["random_state", np.random.Generator],
}
simulate_shortcut_predictions._parameter_constraints = {  # type: ignore[attr-defined]
    "reliance": _UNIT, "accuracy": _UNIT, "random_state": ["random_state", np.random.Generator],
}
make_synthetic_group_bios._parameter_constraints = {  # type: ignore[attr-defined]
    "n_train": [Interval(int, 1, None)], "n_test": [Interval(int, 1, None)],
    "shortcut": [Options("race", "intersection"), None], "strength": _UNIT, "cue_strength": _UNIT,
    "random_state": ["random_state", np.random.Generator],
}
