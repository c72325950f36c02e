r"""Oracle erasers: oracle LEACE and quadratic LEACE, which read the concept label at transform time.

Both are upper bounds for research, not deployable debiasing: an encoder that has to be told each
input's gender in order to remove it has already been told the answer. They show how much a
surgical, label-aware edit can remove (oracle LEACE: the least-squares residual given the label;
quadratic LEACE: every class moved onto one Gaussian, so class means *and* covariances coincide)
and set a bound the deployable erasers can be measured against. Belrose et al. (2023) warn that
oracle LEACE can *raise* what a nonlinear reader recovers; read them with the nonlinear probes.

They cannot be installed in an encoder (:func:`debias.apply_projection`, ``load_encoder`` and
``to_output_projection`` raise and say why); ``save`` writes a projection directory whose
record carries ``installable: false`` and the reason.

References
----------
Belrose, Schneider-Joseph, Ravfogel, Cotterell, Raff, Biderman (2023). LEACE: perfect linear concept
erasure in closed form. NeurIPS (oracle LEACE, section 4; quadratic erasure, the authors'
``concept-erasure`` package: ``OracleFitter``, ``QuadraticFitter``).
Álvarez-Esteban, del Barrio, Cuesta-Albertos, Matrán (2016). A fixed-point approach to barycenters
in Wasserstein space. J. Math. Anal. Appl.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from debias._leace import _ClosedFormEraser, _concept_argument
from debias._moments import (
    class_indices,
    covariance,
    encode_concept,
    merge_moments,
    psd_sqrt,
    psd_sqrt_and_pinv_sqrt,
)
from debias._projection_base import _as_matrix
from probekit.errors import InvalidParameterError, ProbekitError
from probekit.utils import Interval

_ORACLE_REASON = (
    "{name} reads the concept label of every input at transform time (an oracle): it is an upper bound "
    "on what a label-aware edit removes, not a deployable method, and an encoder has no label to give it; "
    "call transform(X, y) on arrays instead"
)


class _LabelAwareEraser(_ClosedFormEraser):
    """The parts oracle erasers share: transform needs ``y``; no encoder can carry them."""

    _fitted_attribute = "mean_"

    @property
    def upper_bound_note(self) -> str:
        """Why this eraser is an upper bound and not a deployable method (also in saved records)."""
        return _ORACLE_REASON.format(name=type(self).__name__)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._not_installable = _ORACLE_REASON.format(name=cls.__name__)

    def _set_map(self, matrix: np.ndarray, offset: np.ndarray | None = None) -> None:
        # No label-free map exists; a loaded directory's identity only tells the dimension.
        self.n_features_in_ = int(np.asarray(matrix).shape[1])

    def to_output_projection(self) -> Any:
        """Refused: an oracle eraser needs the label of every input (see :attr:`upper_bound_note`)."""
        raise ProbekitError(f"{self.upper_bound_note}; it cannot be installed in an encoder")

    def _checked_pair(self, X: Any, y: Any, z: Any) -> tuple[np.ndarray, Any]:
        self._check_fitted()
        if y is None and z is None:
            raise InvalidParameterError("y", None, "the concept label of every row: " + self.upper_bound_note)
        array = self._checked_input(X)
        if array.ndim != 2:
            raise InvalidParameterError("X", array.shape, "an array of shape (n, d) (one label per row)")
        return array, _concept_argument(y, z)

    def fit_transform(self, X: Any, y: Any = None, *, z: Any = None) -> np.ndarray:  # type: ignore[override]
        """Fit on ``X`` and the concept, then erase it from ``X`` with the same labels.

        Parameters
        ----------
        X : array of shape (n, d)
        y, z : array of shape (n,)
            The concept (give one of them).

        Returns
        -------
        ndarray of shape (n, d)
        """
        return self.fit(X, y, z=z).transform(X, y, z=z)


class OracleLEACE(_LabelAwareEraser):
    r"""Oracle LEACE (Belrose et al. 2023, sec. 4): the least-squares residual of :math:`x` given
    the concept label, which must be supplied at transform time.

    .. math:: x' = x - \Sigma_{xz} \Sigma_{zz}^{+} (z - E[z])

    (:math:`z` the 0/1 column for two classes, one-hot for k >= 3). Afterwards :math:`x'` is
    uncorrelated with :math:`z` and moved as little as possible in mean squared distance *given*
    the label, which no deployable eraser can do: an **upper bound, not a deployable method**, and
    it cannot be installed in an encoder. Matches ``concept_erasure.OracleFitter``.

    Parameters
    ----------
    shrinkage : bool, default False
        Shrink :math:`\Sigma_{zz}` (:func:`debias._moments.linear_shrinkage`).
    tol : float, default 0.01
        Singular values of :math:`\Sigma_{zz}` at or below this are treated as zero in its
        pseudo-inverse (the ``svd_tol`` of ``concept-erasure``).
    alpha : float in [0, 1], default 1.0
        Strength: :math:`x + \alpha (x' - x)`.

    Attributes
    ----------
    coef_ : ndarray of shape (d, k)
        :math:`\Sigma_{xz}\Sigma_{zz}^{+}`.
    mean_, concept_mean_, scatter_xx_, scatter_xz_, scatter_zz_, n_samples_, classes_
        The running moments (:meth:`partial_fit` streams them in O(d^2 + dk) memory).
    """

    _parameter_constraints = {"shrinkage": ["boolean"], "tol": [Interval(float, 0, None, closed="neither")]}
    _track_zz = True
    _fitted_attribute = "coef_"
    _state_arrays = ("coef_", "mean_", "concept_mean_", "scatter_xx_", "scatter_xz_", "scatter_zz_")
    _state_values = ("classes_", "n_samples_")

    def __init__(self, shrinkage: bool = False, tol: float = 0.01, alpha: float = 1.0):
        self.shrinkage = shrinkage
        self.tol = tol
        self.alpha = alpha

    def _check_params(self) -> None:
        self._validate_declared()

    def _fit_from_moments(self) -> None:
        sigma_zz = covariance(self.scatter_zz_, self.n_samples_, self.shrinkage)
        u, s, vh = np.linalg.svd(sigma_zz)
        inverse = np.where(s > self.tol, 1.0 / np.where(s > self.tol, s, 1.0), 0.0)
        self.coef_ = (self.scatter_xz_ / (self.n_samples_ - 1)) @ ((vh.T * inverse) @ u.T)

    def transform(self, X: Any, y: Any = None, *, z: Any = None) -> np.ndarray:  # type: ignore[override]
        r"""Erase with the label of every row: :math:`x - \Sigma_{xz}\Sigma_{zz}^{+}(z - E[z])`.

        Parameters
        ----------
        X : array of shape (n, d)
        y, z : array of shape (n,) or (n, k)
            The concept of every row (labels among ``classes_``, or the array it was fitted with).

        Returns
        -------
        ndarray of shape (n, d)
        """
        array, labels = self._checked_pair(X, y, z)
        Z, _ = encode_concept(labels, len(array), self.classes_)
        if Z.shape[1] != self.concept_mean_.shape[0]:
            raise InvalidParameterError("y", Z.shape, f"a concept of {self.concept_mean_.shape[0]} column(s), as fitted")
        return self._blend(array, array - (Z - self.concept_mean_) @ self.coef_.T)


class QuadraticLEACE(_LabelAwareEraser):
    r"""Quadratic LEACE: each class moved onto one Gaussian with the optimal-transport map, given
    the label (class-conditional means *and* covariances erased; the ``QuadraticEraser`` of the
    authors' ``concept-erasure`` package).

    With class means :math:`\mu_c`, class covariances :math:`\Sigma_c` and :math:`\Sigma_\ast` their
    2-Wasserstein barycenter (weights: class frequencies; closed form for two classes, the
    fixed-point iteration of Álvarez-Esteban et al. 2016 otherwise),

    .. math::
        x' = T_c (x - \mu_c) + \bar\mu,\quad
        T_c = \Sigma_c^{-1/2} (\Sigma_c^{1/2} \Sigma_\ast \Sigma_c^{1/2})^{1/2} \Sigma_c^{-1/2},

    for :math:`x` of class :math:`c`, :math:`\bar\mu` the unweighted mean of the class means. No
    quadratic reader separates the classes afterwards (on the Gaussian model). It needs the label
    of every input: an **upper bound, not a deployable method**, and it cannot be installed in an
    encoder.

    Parameters
    ----------
    shrinkage : bool, default True
        Shrink each class covariance (as ``concept-erasure`` does by default).
    max_iter : int, default 100
        Fixed-point iterations for the barycenter of three or more classes.
    alpha : float in [0, 1], default 1.0
        Strength: :math:`x + \alpha (x' - x)`.

    Attributes
    ----------
    class_means_ : ndarray of shape (k, d)
    class_counts_ : ndarray of shape (k,)
    class_scatter_ : ndarray of shape (k, d, d)
        Running centred scatter of each class (streamed by :meth:`partial_fit`, O(k d^2) memory).
    transport_maps_ : ndarray of shape (k, d, d)
    mean_ : ndarray of shape (d,)
        :math:`\bar\mu`.
    classes_ : list
    """

    _parameter_constraints = {"shrinkage": ["boolean"], "max_iter": [Interval(int, 1, None)]}
    _state_arrays = ("class_means_", "class_counts_", "class_scatter_", "transport_maps_", "mean_")
    _state_values = ("classes_", "n_samples_")

    def __init__(self, shrinkage: bool = True, max_iter: int = 100, alpha: float = 1.0):
        self.shrinkage = shrinkage
        self.max_iter = max_iter
        self.alpha = alpha

    def _check_params(self) -> None:
        self._validate_declared()

    def _forget(self) -> None:
        for name in ("class_means_", "class_counts_", "class_scatter_", "n_samples_", "classes_", "mean_"):
            self.__dict__.pop(name, None)

    def _update(self, X: Any, y: Any, z: Any, classes: Any) -> None:
        labels = np.asarray(_concept_argument(y, z))
        X = _as_matrix(X, "X")
        first = not hasattr(self, "classes_")
        if first:
            known = np.unique(labels) if classes is None else np.unique(np.asarray(classes))
            encode_concept(labels, len(X), known)  # checks: 1-D, at least two classes, all known
            self.classes_ = known.tolist()
            d = X.shape[1]
            self.class_counts_ = np.zeros(len(known), dtype=np.int64)
            self.class_means_ = np.zeros((len(known), d))
            self.class_scatter_ = np.zeros((len(known), d, d))
            self.n_features_in_ = int(d)
        elif X.shape[1] != self.n_features_in_:
            raise InvalidParameterError("X", X.shape, f"rows of dimension {self.n_features_in_} (the fitted dimension)")
        index = class_indices(labels, self.classes_, len(X))
        for c in np.unique(index):
            state = {"n": int(self.class_counts_[c]), "mean_x": self.class_means_[c], "scatter_xx": self.class_scatter_[c]}
            merged = merge_moments(state, X[index == c], None)
            self.class_counts_[c] = merged["n"]
            self.class_means_[c], self.class_scatter_[c] = merged["mean_x"], merged["scatter_xx"]
        self.n_samples_ = int(self.class_counts_.sum())

    def _finish(self) -> "QuadraticLEACE":
        if np.any(self.class_counts_ < 2):
            return self  # every class needs two rows for a covariance; fitted once they have
        self._fit_from_moments()
        self._reset_record({"n_rows": int(self.n_samples_)})
        return self

    def _fit_from_moments(self) -> None:
        sigmas = covariance(self.class_scatter_, self.class_counts_, self.shrinkage)
        weights = self.class_counts_ / self.class_counts_.sum()
        if len(sigmas) == 2:
            center = _wasserstein_midpoint(sigmas[0], sigmas[1], float(weights[0]), float(weights[1]))
        else:
            center = _wasserstein_barycenter(sigmas, weights, int(self.max_iter))
        self.transport_maps_ = _transport_map(sigmas, center)
        self.mean_ = self.class_means_.mean(axis=0)

    def transform(self, X: Any, y: Any = None, *, z: Any = None) -> np.ndarray:  # type: ignore[override]
        r"""Move each row onto the barycenter with its class's map: :math:`T_c (x - \mu_c) + \bar\mu`.

        Parameters
        ----------
        X : array of shape (n, d)
        y, z : array of shape (n,)
            The class of every row (among ``classes_``).

        Returns
        -------
        ndarray of shape (n, d)
        """
        array, labels = self._checked_pair(X, y, z)
        if not hasattr(self, "transport_maps_"):
            raise InvalidParameterError("partial_fit", "fewer than two rows in some class", "two rows of every class")
        index = class_indices(labels, self.classes_, len(array))
        erased = np.empty_like(array)
        for c in np.unique(index):
            rows = index == c
            erased[rows] = (array[rows] - self.class_means_[c]) @ self.transport_maps_[c].T + self.mean_
        return self._blend(array, erased)


def _transport_map(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    r"""Optimal transport map from :math:`N(0, K_1)` to :math:`N(0, K_2)`:
    :math:`K_1^{-1/2} (K_1^{1/2} K_2 K_1^{1/2})^{1/2} K_1^{-1/2}` (pseudo-inverse roots; batched over K_1).
    """
    root, inverse_root = psd_sqrt_and_pinv_sqrt(source)
    return inverse_root @ psd_sqrt(root @ target @ root) @ inverse_root


def _wasserstein_midpoint(first: np.ndarray, second: np.ndarray, w1: float, w2: float) -> np.ndarray:
    r"""Covariance of the 2-Wasserstein barycenter of two centred Gaussians (closed form):
    :math:`w_1^2 K_1 + w_2^2 K_2 + w_1 w_2 (R + R^\top)`, :math:`R = K_1^{1/2}(K_1^{1/2} K_2 K_1^{1/2})^{1/2} K_1^{-1/2}`.
    """
    root, inverse_root = psd_sqrt_and_pinv_sqrt(first)
    product = root @ psd_sqrt(root @ second @ root) @ inverse_root
    return w1 * w1 * first + w2 * w2 * second + w1 * w2 * (product + product.T)


def _wasserstein_barycenter(covariances: np.ndarray, weights: np.ndarray, max_iter: int) -> np.ndarray:
    r"""Fixed-point iteration for the 2-Wasserstein barycenter of centred Gaussians
    (Álvarez-Esteban et al. 2016, eq. 7), from the weighted arithmetic mean, stopped when the
    objective (their eq. 15) no longer decreases by more than machine epsilon.
    """
    weights = (weights / weights.sum())[:, None, None]
    center = (covariances * weights).sum(axis=0)
    average_trace = np.trace(center)
    loss = np.inf
    for _ in range(max_iter):
        root, inverse_root = psd_sqrt_and_pinv_sqrt(center)
        inner = psd_sqrt(root @ covariances @ root)
        new_loss = np.trace(center) + average_trace - 2 * np.trace((inner * weights).sum(axis=0))
        if loss - new_loss < np.finfo(np.float64).eps:
            break
        loss = new_loss
        step = np.sum(weights * (inverse_root @ inner @ inverse_root), axis=0)
        center = step @ center @ step.T
    return center
