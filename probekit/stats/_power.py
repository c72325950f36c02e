r"""Power of a correlation test and the smallest correlation a design can detect (Fisher z).

The Fisher transform :math:`z = \operatorname{artanh}(r)` of a sample correlation of n points is
approximately normal with mean :math:`\operatorname{artanh}(\rho)` and variance
:math:`c / (n - d)`:

- Pearson: :math:`c = 1, d = 3` (Fisher 1921);
- Spearman: :math:`c = 1.06, d = 3` (Fieller, Hartley & Pearson 1957), :math:`\rho` the
  population Spearman correlation;
- Kendall: :math:`c = 0.437, d = 4` (Fieller, Hartley & Pearson 1957).

The two-sided level-:math:`\alpha` test rejects when :math:`|z| / \mathrm{se} > z_{1-\alpha/2}`, so
its power at :math:`\rho` is
:math:`\Phi(\delta - z_{1-\alpha/2}) + \Phi(-\delta - z_{1-\alpha/2})` with
:math:`\delta = \operatorname{artanh}(\rho) / \mathrm{se}`. The approximation treats the n points as
independent; clustered points (several per method) carry less information than n suggests.
"""

from __future__ import annotations

import math

from scipy import optimize, special

from probekit.errors import InvalidParameterError

__all__ = ["CORRELATION_KINDS", "correlation_power", "min_detectable_correlation"]

#: kind -> (variance constant c, degrees subtracted d) of the Fisher z approximation.
_FISHER = {"pearson": (1.0, 3), "spearman": (1.06, 3), "kendall": (0.437, 4)}
CORRELATION_KINDS = tuple(_FISHER)


def _check(n: int, alpha: float, kind: str) -> tuple[float, int]:
    if kind not in _FISHER:
        raise InvalidParameterError("kind", kind, CORRELATION_KINDS)
    c, d = _FISHER[kind]
    if isinstance(n, bool) or not isinstance(n, int) or n <= d:
        raise InvalidParameterError("n", n, f"an integer > {d} (points of the {kind} correlation)")
    if not 0 < alpha < 1:
        raise InvalidParameterError("alpha", alpha, "a significance level in (0, 1)")
    return math.sqrt(c / (n - d)), d


def correlation_power(rho: float, n: int, *, alpha: float = 0.05, kind: str = "spearman") -> float:
    r"""Power of the two-sided test of zero correlation at the true correlation ``rho`` (Fisher z).

    .. math:: 1 - \beta = \Phi(\delta - z_{1-\alpha/2}) + \Phi(-\delta - z_{1-\alpha/2}),\quad
              \delta = \operatorname{artanh}(\rho) \sqrt{(n - d) / c}

    with (c, d) = (1, 3) for Pearson, (1.06, 3) for Spearman and (0.437, 4) for Kendall
    (Fieller, Hartley & Pearson 1957).

    Parameters
    ----------
    rho : float
        True correlation of the kind named, in (-1, 1).
    n : int
        Number of (independent) points.
    alpha : float
    kind : {"spearman", "pearson", "kendall"}
    """
    se, _ = _check(n, alpha, kind)
    if not -1 < rho < 1:
        raise InvalidParameterError("rho", rho, "a correlation in (-1, 1)")
    critical = special.ndtri(1 - alpha / 2)
    delta = math.atanh(rho) / se
    return float(special.ndtr(delta - critical) + special.ndtr(-delta - critical))


def min_detectable_correlation(n: int, *, power: float = 0.8, alpha: float = 0.05, kind: str = "spearman") -> float:
    r"""The smallest positive correlation the two-sided level-``alpha`` test detects with ``power``.

    The root in :math:`\rho \in (0, 1)` of :func:`correlation_power` :math:`= 1 - \beta` (close to
    :math:`\tanh((z_{1-\alpha/2} + z_{1-\beta})\,\mathrm{se})`, which ignores the far tail).
    Fisher z approximation with the constants of :func:`correlation_power`.

    Parameters
    ----------
    n : int
        Number of points.
    power : float
        Wanted power, in (alpha, 1).
    alpha : float
    kind : {"spearman", "pearson", "kendall"}
    """
    _check(n, alpha, kind)
    if not alpha < power < 1:
        raise InvalidParameterError("power", power, f"a power in ({alpha}, 1)")
    return float(optimize.brentq(lambda r: correlation_power(r, n, alpha=alpha, kind=kind) - power,
                                 1e-12, 1 - 1e-15, xtol=1e-14))
