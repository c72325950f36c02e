"""An affine map applied to every representation an encoder produces, and its directory format.

Post-hoc debiasing methods (Sent-debias, INLP, LEACE; see :mod:`debias`) learn an affine map
:math:`x \\mapsto A x + b` on the hidden size. A *projected encoder* is a base checkpoint plus such
a map, applied to every output of the base model: the last hidden state, every hidden state
(word-in-context embeddings at any layer), the pooler output, and what the masked-LM head reads
(``mlm_model`` calls the base model, so the head sees the projected states). Both sides of every
SEAT test, LPBS and the gender probe therefore see the same projection (Tokpo et al. 2023 point out
that debiasing only one side made Sent-debias look inert).

The map is applied by a forward hook on the base model that exists only inside
:func:`projection_applied` (which :meth:`probekit.Encoder.inference` enters); it is removed in
``finally``, so nothing is left on the user's model.

Convention: column vectors, ``x' = A x + b``; for a batch of row vectors
``H' = H @ A.T + b`` (the :class:`torch.nn.Linear` convention, ``A`` = ``matrix``,
``b`` = ``offset``).

Directory format (what :func:`probekit.load_encoder` accepts besides checkpoints)::

    DIR/projection.json          format, base checkpoint (kind, name, path, fingerprint), method,
                                 hyperparameters, fitting data, provenance
    DIR/projection.safetensors   "matrix" (d x d), "offset" (d,), float64, and the method's
                                 learned arrays under "state.<name>"
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from probekit.errors import InvalidParameterError, ModelLoadError, ProbekitError

logger = logging.getLogger(__name__)

CONFIG_FILE = "projection.json"
WEIGHTS_FILE = "projection.safetensors"
FORMAT_NAME = "probekit-output-projection"
FORMAT_VERSION = 1
STATE_PREFIX = "state."
CONVENTION = "x' = matrix @ x + offset for a column vector x; rows: H' = H @ matrix.T + offset"
_HOOK_MARK = "_probekit_output_projection"


@dataclass(frozen=True, eq=False)
class OutputProjection:
    """The affine map :math:`x' = A x + b` applied to an encoder's outputs.

    Parameters
    ----------
    matrix : ndarray, shape (d, d)
        :math:`A`, acting on column vectors (rows are mapped as ``H @ matrix.T``).
    offset : ndarray, shape (d,)
        :math:`b`.

    Both are stored as float64; the hook computes in float32 on the model's device.
    """

    matrix: np.ndarray
    offset: np.ndarray

    def __post_init__(self) -> None:
        matrix = np.array(self.matrix, dtype=np.float64, copy=True)
        offset = np.array(self.offset, dtype=np.float64, copy=True)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 1:
            raise InvalidParameterError("matrix", getattr(self.matrix, "shape", self.matrix), "a square (d, d) array")
        if offset.shape != (matrix.shape[0],):
            raise InvalidParameterError("offset", offset.shape, f"an array of shape ({matrix.shape[0]},)")
        if not (np.isfinite(matrix).all() and np.isfinite(offset).all()):
            raise InvalidParameterError("matrix/offset", "non-finite values", "finite numbers")
        matrix.setflags(write=False)
        offset.setflags(write=False)
        object.__setattr__(self, "matrix", matrix)
        object.__setattr__(self, "offset", offset)

    @classmethod
    def identity(cls, dimension: int) -> "OutputProjection":
        return cls(np.eye(dimension), np.zeros(dimension))

    @property
    def dimension(self) -> int:
        return int(self.matrix.shape[0])

    def apply(self, hidden: np.ndarray) -> np.ndarray:
        """``hidden @ matrix.T + offset`` over the last axis (any leading shape)."""
        hidden = np.asarray(hidden)
        if hidden.shape[-1] != self.dimension:
            raise InvalidParameterError("hidden", hidden.shape, f"arrays whose last axis has size {self.dimension}")
        return hidden @ self.matrix.T + self.offset

    def then(self, outer: "OutputProjection") -> "OutputProjection":
        """The composition ``outer(self(x))``: :math:`A_2 A_1 x + A_2 b_1 + b_2`."""
        if outer.dimension != self.dimension:
            raise InvalidParameterError("outer", outer.dimension, f"a projection of dimension {self.dimension}")
        return OutputProjection(outer.matrix @ self.matrix, outer.matrix @ self.offset + outer.offset)

    def digest(self) -> str:
        """SHA-256 over the shape and the float64 bytes of ``matrix`` and ``offset``."""
        digest = hashlib.sha256(f"affine:{self.dimension}".encode())
        digest.update(np.ascontiguousarray(self.matrix).tobytes())
        digest.update(np.ascontiguousarray(self.offset).tobytes())
        return digest.hexdigest()


def projected_fingerprint(weights_fingerprint: str, projection: OutputProjection) -> str:
    """Fingerprint of a base model plus an output projection: SHA-256 of both, 20 hex digits."""
    return hashlib.sha256(f"{weights_fingerprint}+{projection.digest()}".encode()).hexdigest()[:20]


# ------------------------------------------------------------------------------------------ the hook


def _transform_output(output: Any, apply: Any, dimension: int) -> Any:
    """``output`` with every hidden-size representation passed through ``apply``.

    A ``ModelOutput`` is changed field by field (``last_hidden_state``, ``pooler_output``,
    ``hidden_states``); a tuple (``return_dict=False``) by shape: 3-D tensors ending in the hidden
    size, 2-D pooled vectors, and tuples of 3-D hidden states (attentions are 4-D and stay).
    """
    import torch

    done: dict[int, torch.Tensor] = {}

    def one(tensor: Any) -> Any:
        if not isinstance(tensor, torch.Tensor) or tensor.ndim not in (2, 3) or tensor.shape[-1] != dimension:
            return tensor
        key = id(tensor)
        if key not in done:  # hidden_states[-1] is last_hidden_state: project it once, keep identity
            done[key] = apply(tensor)
        return done[key]

    def many(value: Any) -> Any:
        if isinstance(value, tuple) and value and all(isinstance(v, torch.Tensor) and v.ndim == 3 for v in value):
            return tuple(one(v) for v in value)
        return value

    if isinstance(output, torch.Tensor):
        return one(output)
    if isinstance(output, tuple):
        return type(output)(many(v) if isinstance(v, tuple) else one(v) for v in output)
    if hasattr(output, "keys"):
        for name in ("last_hidden_state", "pooler_output"):
            if output.get(name) is not None:
                output[name] = one(output[name])
        if output.get("hidden_states") is not None:
            output["hidden_states"] = many(output["hidden_states"])
        return output
    return output


def _make_hook(projection: OutputProjection) -> Any:
    import torch

    cached: dict[torch.device, tuple[torch.Tensor, torch.Tensor]] = {}

    def apply(hidden: torch.Tensor) -> torch.Tensor:
        if hidden.device not in cached:
            cached[hidden.device] = (
                torch.tensor(projection.matrix.T.copy(), dtype=torch.float32, device=hidden.device),
                torch.tensor(projection.offset.copy(), dtype=torch.float32, device=hidden.device),
            )
        matrix_t, offset = cached[hidden.device]
        # fp32 whatever autocast does around us: the projection must be exact, not bf16-rounded.
        with torch.autocast(device_type=hidden.device.type, enabled=False):
            flat = hidden.reshape(-1, hidden.shape[-1]).float()
            out = torch.addmm(offset, flat, matrix_t)
        return out.reshape(hidden.shape).to(hidden.dtype)

    def hook(module: Any, args: Any, output: Any) -> Any:
        return _transform_output(output, apply, projection.dimension)

    setattr(hook, _HOOK_MARK, projection.digest())
    return hook


def active_projection_digests(model: Any) -> list[str]:
    """Digests of the output projections whose hooks are on ``model`` now (empty outside
    :func:`projection_applied`)."""
    return [getattr(h, _HOOK_MARK) for h in model._forward_hooks.values() if hasattr(h, _HOOK_MARK)]


@contextlib.contextmanager
def projection_applied(model: Any, projection: OutputProjection | None) -> Iterator[None]:
    """Apply ``projection`` to every output of ``model`` inside the block; the hook is removed
    in ``finally`` (also when the block raises).

    Re-entrant: entering again with the same projection on the same model adds no second hook
    (a second application of an affine map that is not idempotent would change the numbers).
    ``None`` does nothing.
    """
    if projection is None:
        yield
        return
    hidden_size = getattr(getattr(model, "config", None), "hidden_size", None)
    if hidden_size is not None and int(hidden_size) != projection.dimension:
        raise InvalidParameterError(
            "projection", f"dimension {projection.dimension}", f"a projection of the model's hidden size {hidden_size}"
        )
    active = active_projection_digests(model)
    digest = projection.digest()
    if active:
        if active == [digest]:
            yield
            return
        raise ProbekitError(
            "another output projection is already applied to this model "
            f"({active[0][:12]}, asked for {digest[:12]}); encoders sharing a model cannot nest their projections"
        )
    handle = model.register_forward_hook(_make_hook(projection))
    try:
        yield
    finally:
        handle.remove()


# ------------------------------------------------------------------------------- directory format


def is_projection_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory written by :func:`write_projection_dir`."""
    return (Path(path) / CONFIG_FILE).is_file()


def base_record(encoder: Any) -> dict[str, Any]:
    """How to find the base checkpoint of ``encoder`` again.

    ``kind`` (``"default"``, ``"local"`` or ``"hub"``), ``name_or_path``, ``path`` (absolute path of
    a local checkpoint, hub id, ``None`` for the embedded default), ``fingerprint`` of the weights
    (what :func:`probekit.load_encoder` gives for that path), ``encoder_fingerprint`` (the encoder's
    own fingerprint, which differs when it already carries an output projection) and
    ``prior_projection_digest`` (that projection's digest, else ``None``).
    """
    from probekit._encoders import default_model_path

    weights = getattr(encoder, "unprojected", encoder)
    prior = getattr(encoder, "output_projection", None)
    record: dict[str, Any] = {
        "kind": "hub",
        "name_or_path": weights.name_or_path,
        "path": weights.name_or_path,
        "fingerprint": weights.fingerprint,
        "encoder_fingerprint": encoder.fingerprint,
        "prior_projection_digest": prior.digest() if prior is not None else None,
        "hidden_size": int(encoder.hidden_size),
    }
    source = getattr(weights, "source_path", None)
    if source is not None:
        try:
            is_default = Path(source).resolve() == default_model_path().resolve()
        except ProbekitError:
            is_default = False
        if is_default:
            record.update(kind="default", path=None)
        else:
            record.update(kind="local", path=str(Path(source).resolve()))
    return record


def _relative_to(path: str, directory: Path) -> str | None:
    try:
        return os.path.relpath(path, directory.resolve())
    except ValueError:  # another drive on Windows
        return None


def check_output_dir(directory: str | os.PathLike, *, overwrite: bool = False, parameter: str = "directory") -> Path:
    """Refuse a target that exists and is not empty, unless ``overwrite`` and it is a projection
    directory (so that overwriting never deletes anything else)."""
    target = Path(directory)
    if target.exists() and not target.is_dir():
        raise InvalidParameterError(parameter, str(directory), "a directory path", "a file of that name exists")
    if target.is_dir() and any(target.iterdir()):
        if not overwrite:
            raise InvalidParameterError(
                parameter, str(directory), "a new or empty directory", "it exists and is not empty; pass overwrite (--overwrite) to replace a projection there"
            )
        if not is_projection_dir(target):
            raise InvalidParameterError(
                parameter, str(directory), "a new or empty directory, or a projection directory to overwrite",
                f"it holds other files (no {CONFIG_FILE}); it is not replaced",
            )
    return target


def _usual_permissions(directory: Path) -> None:
    """mkdtemp makes private directories; give the result the permissions of a plain mkdir."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(directory, 0o777 & ~umask)
    for path in directory.iterdir():
        os.chmod(path, 0o666 & ~umask)


def write_projection_dir(
    directory: str | os.PathLike,
    projection: OutputProjection,
    *,
    base: Mapping[str, Any] | None,
    method: Mapping[str, Any],
    state: Mapping[str, np.ndarray] | None = None,
    fitting: Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> Path:
    """Write a projection directory atomically: everything goes to a temporary directory beside
    ``directory``, which is renamed onto it only when complete (a failed write leaves nothing).

    Parameters
    ----------
    directory : path
    projection : OutputProjection
    base : mapping or None
        :func:`base_record` of the checkpoint the projection was fitted on (``None``: unknown; such
        a directory loads as an estimator but not through :func:`probekit.load_encoder`).
    method : mapping
        ``name`` (class name), ``hyperparameters``, ``attributes`` (JSON-ready learned values).
    state : mapping of str to ndarray, optional
        The method's learned arrays, stored as ``state.<name>``.
    fitting, provenance : mapping, optional
        What the projection was fitted on; :func:`probekit._provenance.collect_provenance`.
    overwrite : bool
        Replace an existing projection directory.
    """
    from safetensors.numpy import save_file

    from probekit._io import dumps_json

    target = check_output_dir(directory, overwrite=overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    base_info = dict(base) if base is not None else None
    if base_info is not None and base_info.get("kind") == "local" and base_info.get("path"):
        base_info["relative_path"] = _relative_to(base_info["path"], target)
    config = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "convention": CONVENTION,
        "dimension": projection.dimension,
        "digest": projection.digest(),
        "base_model": base_info,
        "method": dict(method),
        "fitting": dict(fitting or {}),
        "provenance": dict(provenance or {}),
    }
    tensors = {"matrix": np.ascontiguousarray(projection.matrix), "offset": np.ascontiguousarray(projection.offset)}
    for name, value in (state or {}).items():
        tensors[STATE_PREFIX + name] = np.ascontiguousarray(np.asarray(value))
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        save_file(tensors, str(staging / WEIGHTS_FILE))
        (staging / CONFIG_FILE).write_text(dumps_json(config), encoding="utf-8")
        _usual_permissions(staging)
        if target.exists():
            # Projection directory being overwritten (checked above): swap, then delete the old one.
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.replace(target, old / "previous")
            os.replace(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


def read_projection_dir(directory: str | os.PathLike) -> tuple[OutputProjection, dict[str, Any], dict[str, np.ndarray]]:
    """Read a projection directory: (projection, the JSON config, the method's state arrays).

    The stored digest is checked against the arrays, so a damaged file is reported, not used.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    path = Path(directory)
    config_path, weights_path = path / CONFIG_FILE, path / WEIGHTS_FILE
    if not config_path.is_file():
        raise ModelLoadError(f"{str(path)!r} is not a projection directory: it has no {CONFIG_FILE}")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"could not read {str(config_path)!r}: {exc}") from exc
    if not isinstance(config, dict) or config.get("format") != FORMAT_NAME:
        raise ModelLoadError(f"{str(config_path)!r} is not a probekit projection file (format {FORMAT_NAME!r})")
    if int(config.get("format_version", 0)) > FORMAT_VERSION:
        raise ModelLoadError(
            f"{str(config_path)!r} has format version {config.get('format_version')}; this probekit reads "
            f"up to {FORMAT_VERSION}; upgrade probekit"
        )
    if not weights_path.is_file():
        raise ModelLoadError(f"projection directory {str(path)!r} has no {WEIGHTS_FILE}")
    try:
        tensors = load_file(str(weights_path))
    except (OSError, SafetensorError) as exc:
        raise ModelLoadError(f"could not read {str(weights_path)!r}: {exc}") from exc
    if "matrix" not in tensors or "offset" not in tensors:
        raise ModelLoadError(f"{str(weights_path)!r} lacks the 'matrix' and 'offset' tensors")
    projection = OutputProjection(tensors["matrix"], tensors["offset"])
    if config.get("digest") != projection.digest():
        raise ModelLoadError(
            f"projection in {str(path)!r} does not match the digest recorded in {CONFIG_FILE} (damaged or edited files)"
        )
    state = {k[len(STATE_PREFIX):]: v for k, v in tensors.items() if k.startswith(STATE_PREFIX)}
    return projection, config, state


def _base_candidates(base: Mapping[str, Any], directory: Path) -> list[str]:
    """Local paths to try for the base checkpoint, the one relative to ``directory`` first (the
    pair moved together), then the absolute path recorded."""
    candidates = []
    for key in ("relative_path", "path"):
        value = base.get(key)
        if not value:
            continue
        candidate = Path(value)
        candidates.append(str(candidate if candidate.is_absolute() else (directory / candidate)))
    return list(dict.fromkeys(candidates))


def load_projected_encoder(
    directory: str | os.PathLike,
    *,
    device: Any = None,
    dtype: Any = None,
    trust_remote_code: bool = False,
) -> Any:
    """Load the base checkpoint recorded in a projection directory, check its fingerprint, and
    return an :class:`probekit.Encoder` carrying the projection (what :func:`probekit.load_encoder`
    does for such a directory)."""
    from probekit._encoders import load_encoder

    path = Path(directory).expanduser()
    projection, config, _ = read_projection_dir(path)
    base = config.get("base_model")
    if not base:
        raise ModelLoadError(
            f"projection directory {str(path)!r} records no base checkpoint (it was saved from arrays); load the "
            "estimator and apply it to an encoder: debias.apply_projection(encoder, ERASER.load(DIR))"
        )
    kind = base.get("kind")
    if kind == "default":
        source = None
    elif kind == "hub":
        source = base.get("path") or base.get("name_or_path")
    elif kind == "local":
        found = [c for c in _base_candidates(base, path) if Path(c).is_dir()]
        if not found:
            raise ModelLoadError(
                f"the base checkpoint of projection {str(path)!r} is not where it was: tried "
                f"{', '.join(_base_candidates(base, path)) or 'no path'}; put it back there or beside the projection "
                f"(recorded relative path {base.get('relative_path')!r})"
            )
        source = found[0]
    else:
        raise ModelLoadError(f"{str(path / CONFIG_FILE)!r}: unknown base_model kind {kind!r}")
    encoder = load_encoder(source, device=device, dtype=dtype, trust_remote_code=trust_remote_code)
    recorded = base.get("fingerprint")
    if recorded != encoder.fingerprint:
        raise ModelLoadError(
            f"the base checkpoint {source or 'default'!r} has fingerprint {encoder.fingerprint}, but projection "
            f"{str(path)!r} was fitted on fingerprint {recorded}; the checkpoint changed since, or is another one"
        )
    method = (config.get("method") or {}).get("name", "projection")
    # The stored map already includes any projection the base encoder carried when fitted.
    projected = encoder.with_output_projection(projection, name=str(path))
    logger.info("loaded %s projection %s over %s", method, path, encoder.name_or_path)
    return projected
