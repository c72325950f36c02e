r"""Streaming first and second moments for the closed-form erasers, covariance shrinkage, and the
positive semi-definite square roots the LEACE family needs.

The moments are merged chunk by chunk with the pairwise update of Chan, Golub & LeVeque (1979):
for a running block :math:`a` (count :math:`n_a`, means :math:`\bar x_a, \bar z_a`, centred
scatter :math:`M_a = \sum (x - \bar x_a)(z - \bar z_a)^\top`) and a new chunk :math:`b`,

.. math::
    n = n_a + n_b,\quad \delta_x = \bar x_b - \bar x_a,\quad
    \bar x = \bar x_a + \tfrac{n_b}{n}\delta_x,\quad
    M = M_a + M_b + \tfrac{n_a n_b}{n}\,\delta_x \delta_z^\top,

so a fit over many chunks holds O(d^2) numbers whatever the number of rows, and equals the one-shot
fit up to rounding (Welford's update is the case :math:`n_b = 1`).

References
----------
Chan, Golub, LeVeque (1979). Updating formulae and a pairwise algorithm for computing sample
variances. Stanford CS tech. report STAN-CS-79-773.
On the strong convergence of the optimal linear shrinkage estimator for large dimensional
covariance matrix (2013), arXiv:1308.2608: the shrinkage the ``concept-erasure`` package uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from probekit.errors import InvalidParameterError


def merge_moments(
    state: dict[str, Any] | None, X: np.ndarray, Z: np.ndarray | None, *, track_zz: bool = False
) -> dict[str, Any]:
    """The running moments ``state`` updated with the rows of ``X`` (and concept rows ``Z``).

    ``state`` holds ``n``, ``mean_x``, ``scatter_xx`` and, with a concept, ``mean_z``,
    ``scatter_xz`` (and ``scatter_zz`` with ``track_zz``); ``None`` starts from nothing. The first
    chunk is stored as it is (no arithmetic beyond its own centring), so a one-chunk fit is the
    plain two-pass estimate.
    """
    n_b = X.shape[0]
    mean_xb = X.mean(axis=0)
    centred_x = X - mean_xb
    chunk: dict[str, Any] = {"n": n_b, "mean_x": mean_xb, "scatter_xx": centred_x.T @ centred_x}
    if Z is not None:
        mean_zb = Z.mean(axis=0)
        centred_z = Z - mean_zb
        chunk.update(mean_z=mean_zb, scatter_xz=centred_x.T @ centred_z)
        if track_zz:
            chunk["scatter_zz"] = centred_z.T @ centred_z
    if state is None or state["n"] == 0:
        return chunk
    n_a = state["n"]
    n = n_a + n_b
    weight = n_a * n_b / n
    delta_x = mean_xb - state["mean_x"]
    merged: dict[str, Any] = {
        "n": n,
        "mean_x": state["mean_x"] + delta_x * (n_b / n),
        "scatter_xx": state["scatter_xx"] + chunk["scatter_xx"] + weight * np.outer(delta_x, delta_x),
    }
    if Z is not None:
        delta_z = chunk["mean_z"] - state["mean_z"]
        merged["mean_z"] = state["mean_z"] + delta_z * (n_b / n)
        merged["scatter_xz"] = state["scatter_xz"] + chunk["scatter_xz"] + weight * np.outer(delta_x, delta_z)
        if track_zz:
            merged["scatter_zz"] = state["scatter_zz"] + chunk["scatter_zz"] + weight * np.outer(delta_z, delta_z)
    return merged


def linear_shrinkage(sample: np.ndarray, n: float) -> np.ndarray:
    r"""Optimal linear shrinkage of a (maximum-likelihood, 1/n) sample covariance towards
    :math:`\sigma_0 = \operatorname{tr}(S) I / p`.

    .. math::
        \hat\Sigma = a S + b\,\sigma_0,\quad
        a = 1 - \frac{\operatorname{tr}(S)^2 \lVert\sigma_0\rVert_F^2 / n}
                     {\lVert S\rVert_F^2 \lVert\sigma_0\rVert_F^2 - \operatorname{tr}(S\sigma_0)^2},\quad
        b = (1 - a)\frac{\operatorname{tr}(S\sigma_0)}{\lVert\sigma_0\rVert_F^2}

    (arXiv:1308.2608, the estimator of the ``concept-erasure`` package, with its machine-epsilon
    guards so that the zero matrix stays zero). ``sample`` of shape (p, p) or (c, p, p) with ``n``
    a count per matrix. For p = 1 the target is the sample itself and :math:`a + b = 1`, so the
    sample is returned as it is (the formula's denominator is 0 there and its rounding is not).
    """
    p = sample.shape[-1]
    if p == 1:
        return sample.copy()
    n = np.asarray(n, dtype=np.float64).reshape((-1, 1, 1) if sample.ndim == 3 else ())
    trace = np.trace(sample, axis1=-2, axis2=-1)[..., None, None]
    target = np.eye(p) * trace / p
    target_norm_sq = np.sum(target**2, axis=(-2, -1), keepdims=True)
    sample_norm_sq = np.sum(sample**2, axis=(-2, -1), keepdims=True)
    product_trace = trace * trace / p  # tr(S sigma0) = tr(S)^2 / p
    top = trace * trace * target_norm_sq / n
    bottom = sample_norm_sq * target_norm_sq - product_trace * product_trace
    eps = np.finfo(np.float64).eps
    a = 1 - (top + eps) / (bottom + eps)
    b = (1 - a) * (product_trace + eps) / (target_norm_sq + eps)
    return a * sample + b * target


def covariance(scatter: np.ndarray, n: Any, shrinkage: bool) -> np.ndarray:
    """Covariance from a centred scatter matrix: shrunk (:func:`linear_shrinkage` of scatter/n) or
    Bessel-corrected (scatter/(n-1)); symmetrized first (rounding in the updates).
    """
    symmetric = (scatter + np.swapaxes(scatter, -1, -2)) / 2
    n = np.asarray(n, dtype=np.float64).reshape((-1, 1, 1) if scatter.ndim == 3 else ())
    if shrinkage:
        return linear_shrinkage(symmetric / n, n)
    return symmetric / (n - 1)


def psd_sqrt_and_pinv_sqrt(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`A^{1/2}` and :math:`(A^{1/2})^{+}` of a p.s.d. matrix (or a stack), by ``eigh``.

    Eigenvalues are clipped at 0; those at or below :math:`\lambda_{max} \cdot d \cdot \epsilon`
    (the cutoff of ``torch.linalg.pinv``) count as zero in the pseudo-inverse.
    """
    eigenvalues, vectors = np.linalg.eigh(matrix)
    threshold = eigenvalues[..., -1:] * matrix.shape[-1] * np.finfo(np.float64).eps
    keep = eigenvalues > threshold
    eigenvalues = np.clip(eigenvalues, 0.0, None)
    root = np.sqrt(eigenvalues)
    inverse_root = np.where(keep, 1.0 / np.where(keep, root, 1.0), 0.0)
    vectors_t = np.swapaxes(vectors, -1, -2)
    return (vectors * root[..., None, :]) @ vectors_t, (vectors * inverse_root[..., None, :]) @ vectors_t


def psd_sqrt(matrix: np.ndarray) -> np.ndarray:
    """The p.s.d. square root (eigenvalues clipped at 0)."""
    eigenvalues, vectors = np.linalg.eigh(matrix)
    root = np.sqrt(np.clip(eigenvalues, 0.0, None))
    return (vectors * root[..., None, :]) @ np.swapaxes(vectors, -1, -2)


def encode_concept(y: Any, n: int, classes: Any = None, parameter: str = "y") -> tuple[np.ndarray, list | None]:
    """The concept as a float64 (n, k) matrix, and its classes (``None`` for a given matrix).

    Labels (n,) become one 0/1 column (``y == classes[1]``) for two classes, one-hot columns for
    k >= 3 (the encoding of the LEACE paper); an (n, k) array is used as it is. ``classes`` (all
    classes, e.g. of a stream whose chunk lacks some) default to the labels' own.
    """
    Z = np.asarray(y)
    if Z.ndim == 2 and Z.shape[0] == n:
        if not np.issubdtype(Z.dtype, np.number) or not np.isfinite(Z.astype(np.float64)).all():
            raise InvalidParameterError(parameter, "non-finite or non-numeric values", "a finite numeric (n, k) array")
        return Z.astype(np.float64), None
    if Z.ndim != 1 or len(Z) != n:
        raise InvalidParameterError(parameter, getattr(Z, "shape", None), f"labels of shape ({n},) or an array of shape ({n}, k)")
    known = np.unique(Z) if classes is None else np.asarray(classes)
    if len(known) < 2:
        raise InvalidParameterError(parameter, known.tolist(), "at least two distinct classes", "got 1 class")
    unknown = np.setdiff1d(np.unique(Z), known)
    if len(unknown):
        raise InvalidParameterError(parameter, unknown.tolist()[:5], f"labels among the fitted classes {known.tolist()}")
    if len(known) == 2:
        return (Z == known[1]).astype(np.float64)[:, None], known.tolist()
    return (Z[:, None] == known[None, :]).astype(np.float64), known.tolist()


def class_indices(y: Any, classes: list, n: int, parameter: str = "y") -> np.ndarray:
    """Integer class indices (0..k-1, in the order of ``classes``) of 1-D labels ``y``."""
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) != n:
        raise InvalidParameterError(parameter, getattr(labels, "shape", None), f"a 1-D array of {n} labels (one per row of X)")
    known = np.asarray(classes)
    order = np.argsort(known, kind="stable")
    position = np.searchsorted(known[order], labels)
    position = np.clip(position, 0, len(known) - 1)
    indices = order[position]
    wrong = known[indices] != labels
    if np.any(wrong):
        raise InvalidParameterError(parameter, np.unique(labels[wrong]).tolist()[:5], f"labels among the fitted classes {known.tolist()}")
    return indices.astype(np.int64)
