"""LEACE (Belrose et al. 2023): least-squares concept erasure in closed form, and its variants.

References
----------
Belrose, Schneider-Joseph, Ravfogel, Cotterell, Raff, Biderman (2023). LEACE: perfect linear concept
erasure in closed form. NeurIPS.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from debias._projection_base import LinearEraser, _as_matrix, _check_labels, _fit_gender_eraser_from_encoder
from probekit.errors import InvalidParameterError

logger = logging.getLogger(__name__)


def _concept_argument(y: Any, z: Any) -> Any:
    """LEACE's concept from ``y`` (scikit-learn's name) or ``z`` (the paper's), exactly one of them."""
    if y is not None and z is not None:
        raise InvalidParameterError("z", "given together with y", "the concept as y or as z, not both")
    if y is None and z is None:
        raise InvalidParameterError("y", None, "the concept: labels (n,) or an (n, k) array")
    return y if y is not None else z


class LEACE(LinearEraser):
    r"""Least-squares concept erasure (Belrose et al. 2023), closed form.

    With :math:`\mu = E[x]`, :math:`\Sigma_{xx}` the covariance of :math:`x` and
    :math:`\Sigma_{xz}` its cross-covariance with the (one-hot, or 0/1 for two classes) concept
    :math:`z`, the whitening :math:`W = (\Sigma_{xx}^{1/2})^{+}` and :math:`P_{W\Sigma_{xz}}` the
    orthogonal projection onto the column space of :math:`W \Sigma_{xz}`:

    .. math:: x' = x - W^{+} P_{W\Sigma_{xz}} W (x - \mu).

    After erasure no linear classifier predicts :math:`z` from :math:`x'` better than a constant
    on the fitting distribution (the class-conditional means coincide), with the least change in
    mean squared distance. Covariances use the unbiased (n - 1) estimate, without shrinkage.

    Parameters
    ----------
    tol : float, default 0.01
        Singular values of :math:`W \Sigma_{xz}` at or below this are treated as zero (as in the
        authors' ``concept-erasure`` package).
    alpha : float in [0, 1], default 1.0
        Strength: :math:`x - \alpha P (x - \mu)` (0: identity; see :class:`LinearEraser`).

    Attributes
    ----------
    mean_ : ndarray of shape (d,)
    proj_left_, proj_right_ : ndarrays of shape (d, r), (r, d)
        :math:`W^{+} U` and :math:`U^\top W` with :math:`U` an orthonormal basis of the column
        space of :math:`W\Sigma_{xz}`; the oblique projection removed is their product.
    classes_ : list
    matrix_, offset_
        :math:`I - P` and :math:`P \mu` with :math:`P = W^{+} P_{W\Sigma_{xz}} W`.
    """

    _state_arrays = ("mean_", "proj_left_", "proj_right_")
    _state_values = ("classes_", "n_samples_", "rank_")

    def __init__(self, tol: float = 0.01, alpha: float = 1.0):
        self.tol = tol
        self.alpha = alpha

    def fit(self, X: Any, y: Any = None, *, z: Any = None) -> "LEACE":
        """Fit on rows ``X`` (n, d) and the concept :math:`z` = ``y``: labels (n,) or a one-hot/continuous (n, k) array.

        Parameters
        ----------
        X : array of shape (n, d)
        y : array of shape (n,) or (n, k)
            The concept (the paper's :math:`z`; named ``y`` by scikit-learn's convention).
        z : array, optional
            The same concept under the paper's name (the keyword of earlier releases); give ``y``
            or ``z``, not both.
        """
        y = _concept_argument(y, z)
        if not isinstance(self.tol, (int, float, np.floating)) or isinstance(self.tol, bool) or not self.tol > 0:
            raise InvalidParameterError("tol", self.tol, "a positive number")
        X = _as_matrix(X, "X")
        n, d = X.shape
        if n < 2:
            raise InvalidParameterError("X", X.shape, "at least two rows", f"n_samples={n}")
        Z = np.asarray(y)
        if Z.ndim == 1:
            labels = _check_labels(Z, n, "y")
            classes = np.unique(labels)
            self.classes_ = classes.tolist()
            Z = (labels == classes[1]).astype(np.float64)[:, None] if len(classes) == 2 else (labels[:, None] == classes[None, :]).astype(np.float64)
        elif Z.ndim == 2 and Z.shape[0] == n:
            Z = Z.astype(np.float64)
            self.classes_ = None
        else:
            raise InvalidParameterError("y", getattr(Z, "shape", None), f"labels of shape ({n},) or an array of shape ({n}, k)")
        mean = X.mean(axis=0)
        centred = X - mean
        sigma_xx = centred.T @ centred / (n - 1)
        sigma_xz = centred.T @ (Z - Z.mean(axis=0)) / (n - 1)
        eigenvalues, eigenvectors = np.linalg.eigh((sigma_xx + sigma_xx.T) / 2)
        # Pseudo-inverse square root with torch.linalg.pinv's cutoff (eigenvalues below it are 0).
        keep = eigenvalues > eigenvalues[-1] * d * np.finfo(np.float64).eps
        eigenvalues = np.clip(eigenvalues, 0.0, None)
        root = np.where(keep, np.sqrt(eigenvalues), 0.0)
        inverse_root = np.where(keep, 1.0 / np.where(keep, root, 1.0), 0.0)
        whiten = (eigenvectors * inverse_root) @ eigenvectors.T
        unwhiten = (eigenvectors * root) @ eigenvectors.T
        u, s, _ = np.linalg.svd(whiten @ sigma_xz, full_matrices=False)
        u = u[:, s > self.tol]
        self.mean_ = mean
        self.proj_left_ = unwhiten @ u
        self.proj_right_ = u.T @ whiten
        self.n_samples_ = int(n)
        self.rank_ = int(u.shape[1])
        if self.rank_ == 0:
            logger.warning("LEACE: the concept has no linear signal above tol=%s; the eraser is the identity", self.tol)
        oblique = self.proj_left_ @ self.proj_right_
        self._set_map(np.eye(d) - oblique, oblique @ mean)
        self._reset_record({"n_rows": int(n)})
        return self

    def fit_transform(self, X: Any, y: Any = None, *, z: Any = None) -> np.ndarray:  # type: ignore[override]
        """Fit on ``X`` and the concept ``y`` (or ``z``), then erase it from ``X``."""
        return self.fit(X, y, z=z).transform(X)

    def fit_from_encoder(
        self,
        encoder: Any,
        corpus: Any = None,
        *,
        layer: int = -1,
        max_per_word: int | None = 100,
        single_piece_only: bool = True,
        random_state: int = 0,
        cache_dir: str | os.PathLike | None = None,
        progress: bool = True,
    ) -> "LEACE":
        """Fit on contextual embeddings of the paper's female and male attribute words in corpus
        sentences (label: gender), selected as ``probekit probe`` selects them with the same
        ``random_state``.
        """
        _fit_gender_eraser_from_encoder(
            self, encoder, corpus, layer=layer, max_per_word=max_per_word, single_piece_only=single_piece_only,
            random_state=random_state, cache_dir=cache_dir, progress=progress, use_groups=False,
        )
        return self
