"""What a generalized extrinsic fairness metric (Czarnowska, Vyas & Shah 2021) is made of, and the
checks of a metric's specification; the engine that computes them is
:mod:`probekit.extrinsic._generalized`.

The kinds (PCM, BCM, VBCM, MCM), the scoring functions ``phi``, the comparisons ``d``, the
normalizations ``N`` and the backgrounds ``beta^t`` a metric may name; :class:`MetricResult`, what a
metric returns; the checks that a combination of them is valid and that the inputs it needs are
given; and the classes a metric is reported for (:func:`evaluated_classes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from probekit.errors import InvalidParameterError
from probekit.extrinsic._confusion import PREDICTION_SCORES
from probekit.extrinsic._inputs import Encoded, resolve_class
from probekit.utils import check_choice

__all__ = [
    "KINDS",
    "SCORES",
    "COMPARISONS",
    "NORMALIZATIONS",
    "BACKGROUNDS",
    "MetricResult",
    "evaluated_classes",
]

KINDS = ("pcm", "bcm", "vbcm", "mcm")

#: Probability-based scoring functions. ``prob*`` are sets (compare with 'wasserstein' or 'aeg');
#: ``mean_prob*`` are their means (compare with a scalar comparison).
PROBABILITY_SCORES: dict[str, str] = {
    "prob": "set {f(x, c) : x in S}: probabilities of class c",
    "prob_tc": "set {f(x, c) : x in S, y(x) = c}: true-class (TC) variant",
    "prob_ntc": "set {f(x, c) : x in S, y(x) != c}: probabilities of class c on other-class examples",
    "prob_true": "set {f(x, y(x)) : x in S}: probability of each example's gold class (class independent)",
    "mean_prob": "mean of f(x, c) over S",
    "mean_prob_tc": "mean of f(x, c) over examples of S with gold class c (TC)",
    "mean_prob_ntc": "mean of f(x, c) over examples of S with another gold class",
    "mean_prob_true": "mean of f(x, y(x)) over S (class independent)",
}
SET_SCORES = ("prob", "prob_tc", "prob_ntc", "prob_true")
CLASS_INDEPENDENT = ("accuracy", "prob_true", "mean_prob_true")

SCORES: dict[str, str] = {**PREDICTION_SCORES, **PROBABILITY_SCORES}

SCALAR_COMPARISONS = {
    "diff": "x - y",
    "absdiff": "|x - y|",
    "ratio": "x / y",
    "ratio_inv": "y / x",
}
SET_COMPARISONS = {
    "wasserstein": "Wasserstein-1 distance between the two score distributions",
    "aeg": "P(Y > X) + P(Y = X)/2 - 1/2 = 1/2 - MWU(Y, X)/(|X||Y|): positive when Y is shifted up",
}
MULTI_COMPARISONS = {
    "std": "population standard deviation (ddof=0) of the group scores",
    "range": "max - min of the group scores",
    "min_max_ratio": "min / max of the group scores (fairlearn's ratio between groups)",
}
COMPARISONS: dict[str, str] = {**SCALAR_COMPARISONS, **SET_COMPARISONS, **MULTI_COMPARISONS}

NORMALIZATIONS = {
    "none": "N = 1 (a plain sum)",
    "groups": "N = |T|, the number of groups",
    "pairs": "N = |T| (|T| - 1) / 2, the number of unordered pairs",
    "half_groups": "N = |T| / 2 (the original Disparity Score)",
}
BACKGROUNDS = {
    "all": "all examples (in the counterfactual version: all variations of the source example)",
    "rest": "all examples not in the group",
    "privileged": "a named group (background_group); it is then left out of the compared groups",
}


@dataclass(frozen=True)
class MetricResult:
    """The value of one generalized (or literature) metric.

    Attributes
    ----------
    name : str
        Literature name, or a description of the parameterization.
    kind, version, phi, d, normalization, background : str
        The parameterization (see :func:`generalized_metric`).
    classes : tuple
        Evaluated classes (``('all',)`` for a class-independent scoring function).
    groups : tuple
        Compared groups.
    values : ndarray
        Per-class values, shape (n_classes,); for VBCM shape (n_groups, n_classes).
    value : float or None
        Aggregate over classes (the generalized mean with ``class_power``, NaN classes handled by
        ``nan_policy``); None for VBCM, whose per-group aggregates are in ``per_group``.
    """

    name: str
    kind: str
    version: str
    phi: str
    d: str
    normalization: str | None
    background: str | None
    background_group: Any
    classes: tuple
    groups: tuple
    values: np.ndarray
    value: float | None
    per_group: dict | None = None
    class_power: float = 1.0
    nan_policy: str = "omit"
    n_sources: int | None = None
    parameters: dict = field(default_factory=dict)

    @property
    def by_class(self) -> pd.Series:
        """Per-class values as a Series (not for VBCM, which has one value per group and class)."""
        if self.kind == "vbcm":
            raise AttributeError("VBCM results are per group: use .by_group")
        return pd.Series(self.values, index=pd.Index(self.classes, name="class"), name=self.name)

    @property
    def by_group(self) -> pd.DataFrame:
        """VBCM values as a DataFrame (rows = groups, columns = classes)."""
        if self.kind != "vbcm":
            raise AttributeError(f"{self.kind.upper()} results have one value per class: use .by_class")
        return pd.DataFrame(
            self.values, index=pd.Index(self.groups, name="group"), columns=pd.Index(self.classes, name="class")
        )

    def to_dict(self) -> dict:
        """The metric's name, kind and parameterization with its values as a JSON-ready dict."""
        out = {
            "name": self.name,
            "kind": self.kind,
            "version": self.version,
            "phi": self.phi,
            "d": self.d,
            "normalization": self.normalization,
            "background": self.background,
            "background_group": self.background_group,
            "classes": list(self.classes),
            "groups": list(self.groups),
            "value": self.value,
            "class_power": self.class_power,
            "nan_policy": self.nan_policy,
            "n_sources": self.n_sources,
        }
        if self.kind == "vbcm":
            out["values"] = {
                str(g): {str(c): v for c, v in zip(self.classes, row)} for g, row in zip(self.groups, self.values)
            }
            out["per_group"] = {str(k): v for k, v in (self.per_group or {}).items()}
        else:
            out["values"] = {str(c): v for c, v in zip(self.classes, self.values)}
        return out


# --------------------------------------------------------------------------------------------------
# parameter checks


def _check_spec(kind: str, phi: str, d: str, normalization: str | None, background: str | None) -> tuple[str | None, str | None]:
    check_choice(kind, "kind", KINDS)
    check_choice(phi, "phi", list(SCORES))
    check_choice(d, "d", list(COMPARISONS))
    if kind == "mcm":
        if d not in MULTI_COMPARISONS:
            raise InvalidParameterError("d", d, list(MULTI_COMPARISONS), detail="MCM needs a multivariate comparison")
        if phi in SET_SCORES:
            raise InvalidParameterError(
                "phi", phi, [p for p in SCORES if p not in SET_SCORES],
                detail=f"MCM compares scalars; use 'mean_{phi}' for the mean probability",
            )
    else:
        if d in MULTI_COMPARISONS:
            raise InvalidParameterError(
                "d", d, list(SCALAR_COMPARISONS) + list(SET_COMPARISONS), detail=f"{d!r} is only for kind='mcm'"
            )
        if d in SET_COMPARISONS and phi not in SET_SCORES:
            raise InvalidParameterError(
                "phi", phi, list(SET_SCORES), detail=f"d={d!r} compares distributions, so phi must be a set score"
            )
        if d in SCALAR_COMPARISONS and phi in SET_SCORES:
            raise InvalidParameterError(
                "phi", phi, [p for p in SCORES if p not in SET_SCORES],
                detail=f"d={d!r} compares scalars; use phi='mean_{phi}', or d='wasserstein' / 'aeg' for the set",
            )
    if kind in ("pcm", "bcm"):
        if normalization is None:
            normalization = "pairs" if kind == "pcm" else "groups"
        check_choice(normalization, "normalization", list(NORMALIZATIONS))
    elif normalization not in (None, "none"):
        raise InvalidParameterError("normalization", normalization, [None, "none"], detail=f"{kind.upper()} is not normalized")
    else:
        normalization = None
    if kind in ("bcm", "vbcm"):
        background = "all" if background is None else background
        check_choice(background, "background", list(BACKGROUNDS))
    elif background is not None:
        raise InvalidParameterError("background", background, [None], detail=f"{kind.upper()} has no background")
    return normalization, background


def _needs(enc: Encoded, phi: str) -> None:
    if phi in PREDICTION_SCORES:
        if enc.y_true is None:
            raise InvalidParameterError("y_true", None, "gold labels", detail=f"phi={phi!r} needs y_true")
        if enc.y_pred is None:
            raise InvalidParameterError("y_pred", None, "predictions", detail=f"phi={phi!r} needs y_pred")
    else:
        if enc.prob is None:
            raise InvalidParameterError("y_prob", None, "class probabilities", detail=f"phi={phi!r} needs y_prob")
        if phi not in ("prob", "mean_prob") and enc.y_true is None:
            raise InvalidParameterError("y_true", None, "gold labels", detail=f"phi={phi!r} needs y_true")


def evaluated_classes(enc: Encoded, *, pos_label: Any = None, classes: Sequence | None = None) -> np.ndarray:
    """Codes of the classes a metric is reported for.

    ``classes`` (label values) wins; else ``pos_label`` alone; else, for two classes, the second in
    class order (1 for 0/1 labels, True for booleans); else every class (one-vs-rest).
    """
    if classes is not None:
        codes = [resolve_class(c, enc.classes, "classes") for c in classes]
        if not codes:
            raise InvalidParameterError("classes", list(classes), "at least one class")
        return np.asarray(codes, dtype=np.intp)
    if pos_label is not None:
        return np.asarray([resolve_class(pos_label, enc.classes, "pos_label")], dtype=np.intp)
    if enc.n_classes == 2:
        return np.asarray([1], dtype=np.intp)
    return np.arange(enc.n_classes, dtype=np.intp)
