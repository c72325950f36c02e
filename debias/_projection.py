"""Post-hoc linear erasers of gender behind one estimator interface (the public names' old home).

The code lives in one module per method: :mod:`debias._projection_base` (:class:`LinearEraser`,
the strength ``alpha``, persistence, :func:`apply_projection`), :mod:`debias._sent_debias`,
:mod:`debias._inlp` and :mod:`debias._leace`; this module re-exports them so that
``debias._projection`` keeps resolving the names it always held.
"""

from __future__ import annotations

from debias._inlp import CLASSIFIERS, INLP
from debias._leace import LEACE
from debias._projection_base import LinearEraser, apply_projection
from debias._sent_debias import SentDebias

__all__ = ["CLASSIFIERS", "INLP", "LEACE", "LinearEraser", "SentDebias", "apply_projection"]
