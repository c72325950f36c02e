r"""Upper bounds: what every reader still reads after a label-aware eraser (oracle or quadratic LEACE).

Oracle LEACE and quadratic LEACE (Belrose et al. 2023, "LEACE: Perfect linear concept erasure in
closed form", §4 and §6) read the concept label of every input at transform time, so no encoder
can carry them and they are not debiasing methods. They answer a different question, the bound on
the methods: *if an edit were told every word's gender, what would a reader still recover?*

* oracle LEACE: :math:`x' = x - \Sigma_{XZ}\Sigma_{ZZ}^{+}(z - \bar z)`, the least-squares residual
  of :math:`x` given the one-hot label :math:`z` (no linear reader beats a constant afterwards);
* quadratic LEACE: :math:`x' = T_c(x - \mu_c) + \bar\mu` for a row of class :math:`c`, every class
  moved onto the 2-Wasserstein barycenter of the class Gaussians (class means *and* covariances
  equal afterwards, so no quadratic reader separates them when the classes are Gaussian; a class that
  is not -- an XOR-coded concept, two clusters per class -- keeps its clusters after the linear map of
  its class, and a nonlinear reader still reads it).

Belrose et al. warn that oracle LEACE can *raise* what a nonlinear reader recovers: the edit is
label-dependent, so it can write the label into the geometry a nonlinear reader sees. Run beside
the deployable erasers, a nonlinear reader above chance here says the concept is not removable by
any label-aware edit of this family either.

Design: the same word-disjoint cross-fitting as :mod:`probekit.intrinsic._verdict_erasure` -- for
each word fold the eraser is fitted, at each probed hidden state, on the other folds' occurrences
with their labels, and applied to every occurrence with *its own* label; each reader trains on the
other folds' words and predicts the fold's words, so neither the eraser nor the reader saw the words
it is scored on (fitted on every word, a closed-form eraser makes held-out words read backwards).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

import debias
from probekit.errors import InvalidParameterError
from probekit.intrinsic._verdict_erasure import erasure_folds, read_layer_cross_fitted

__all__ = ["UPPER_BOUND_ERASERS", "check_upper_bounds", "label_aware_folds", "read_upper_bounds", "upper_bound_note"]

#: The label-aware erasers an upper bound can be read after (CLI name -> ``debias`` class name).
UPPER_BOUND_ERASERS = {"oracle-leace": "OracleLEACE", "quadratic-leace": "QuadraticLEACE"}
_TITLES = {"oracle-leace": "oracle LEACE", "quadratic-leace": "quadratic LEACE"}


def check_upper_bounds(value: Any, parameter: str = "upper_bounds") -> tuple[str, ...]:
    """``"oracle-leace,quadratic-leace"``, a sequence of names or ``None`` -> a tuple in
    :data:`UPPER_BOUND_ERASERS` order (``()`` for ``None`` or an empty value).
    """
    if value is None:
        return ()
    names = [v.strip().lower() for v in value.split(",")] if isinstance(value, str) else [str(v) for v in value]
    names = [n for n in names if n]
    unknown = [n for n in names if n not in UPPER_BOUND_ERASERS]
    if unknown:
        raise InvalidParameterError(parameter, value, "a comma-separated subset of " + ",".join(UPPER_BOUND_ERASERS))
    return tuple(n for n in UPPER_BOUND_ERASERS if n in names)


def upper_bound_note(name: str, n_folds: int) -> dict[str, Any]:
    """What the output says about an upper-bound row (saved as the verdict's ``erasure_check``)."""
    return {
        "design": "upper bound (label-aware, word-disjoint cross-fitting)", "word_disjoint": True,
        "method": _TITLES[name], "source": None, "n_folds": int(n_folds),
        "message": (
            f"Upper bound, not a deployable method: {_TITLES[name]} reads the concept label of every input at "
            "transform time, so no encoder can carry it; it bounds what an edit told every word's label removes. "
            f"Per word fold ({n_folds} folds) the "
            f"{_TITLES[name]} eraser was fitted at each hidden state on the other folds' words with their labels and "
            "applied to every occurrence with its own label; each reader was trained on the other folds' words and "
            "scored on the fold's words. A nonlinear reader above chance here means no label-aware edit of this "
            "family removes the concept either (Belrose et al. 2023 warn that oracle LEACE can raise what a "
            "nonlinear reader recovers)."),
    }


def label_aware_folds(name: str, states: np.ndarray, labels: Any, tests: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per fold, every occurrence of one hidden state through the label-aware eraser fitted on the fold's
    training rows (their labels), each row transformed with its own label.

    Parameters
    ----------
    name : {"oracle-leace", "quadratic-leace"}
    states : array of shape (n, d)
        The occurrences at one hidden state.
    labels : sequence of length n
    tests : sequence of bool arrays of length n
        Held-out rows of each fold (:func:`probekit.intrinsic.erasure_folds`).

    Returns
    -------
    list of arrays of shape (n, d)
    """
    X = np.asarray(states, dtype=np.float64)
    y = np.asarray(labels, dtype=object).astype(str)
    erased = []
    for test in tests:
        eraser = getattr(debias, UPPER_BOUND_ERASERS[name])().fit(X[~test], y[~test])
        erased.append(eraser.transform(X, y))
    return erased


def read_upper_bounds(
    states: Mapping[int, np.ndarray], labels: Any, words: Sequence[str], *, upper_bounds: Sequence[str],
    readers: Sequence[str] = ("linear",), n_folds: int = 5, control: bool = True, n_bootstrap: int = 1000,
    reader_params: Mapping[str, Mapping[str, Any]] | None = None, random_state: int = 0,
) -> dict[str, Any]:
    """Every reader after each label-aware eraser, at each hidden state, with the verdict.

    Parameters
    ----------
    states : mapping of int to array of shape (n, d)
        Hidden-state index -> the attribute occurrences there (the same rows at every index).
    labels, words : sequences of length n
        The class and the word of each occurrence (folds hold whole words, every class in each).
    upper_bounds : sequence of str
        Names in :data:`UPPER_BOUND_ERASERS`.
    readers, control, n_bootstrap, reader_params, random_state
        As :func:`probekit.intrinsic.read_layer_cross_fitted` (control tasks by default).
    n_folds : int
        Word folds (the same folds for every eraser and hidden state).

    Returns
    -------
    dict
        ``{name: {"title", "note", "rows": [{"layer", "readers", "verdict"}, ...]}}`` in the order of
        ``upper_bounds``; ``{}`` when ``upper_bounds`` is empty.
    """
    names = check_upper_bounds(list(upper_bounds))
    if not names:
        return {}
    words = np.asarray([str(w) for w in words])
    tests = erasure_folds(labels, words, n_folds, random_state)
    out: dict[str, Any] = {}
    for name in names:
        note = upper_bound_note(name, len(tests))
        rows = []
        for layer, X in states.items():
            reading = read_layer_cross_fitted(label_aware_folds(name, X, labels, tests), tests, labels, words,
                                              erasure=note, readers=readers, control=control, n_bootstrap=n_bootstrap,
                                              reader_params=reader_params, random_state=random_state)
            rows.append({"layer": int(layer), "readers": reading["readers"], "verdict": reading["verdict"]})
        out[name] = {"title": f"{_TITLES[name]} (upper bound)", "note": note, "rows": rows}
    return out

