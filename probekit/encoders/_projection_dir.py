"""The projection directory format: a base checkpoint plus a fitted output projection.

Written by :func:`write_projection_dir` (``probekit debias sent-debias|inlp|leace``), read by
:func:`read_projection_dir` and, through :func:`probekit.load_encoder`, loaded as an encoder::

    DIR/projection.json          format, base checkpoint (kind, name, path, fingerprint), method,
                                 hyperparameters, fitting data, provenance
    DIR/projection.safetensors   "matrix" (d x d), "offset" (d,), float64, and the method's
                                 learned arrays under "state.<name>"
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from probekit.encoders._encoder import default_model_path
from probekit.encoders._projection import (
    CONFIG_FILE,
    CONVENTION,
    FORMAT_NAME,
    FORMAT_VERSION,
    LAYER_PREFIX,
    PLAIN_FORMAT_VERSION,
    STATE_PREFIX,
    WEIGHTS_FILE,
    LayerwiseProjection,
    OutputProjection,
)
from probekit.errors import ModelLoadError, ProbekitError
from probekit.utils import Check, Nullable, atomic_directory, dumps_json, read_json_file
from probekit.utils import check_output_dir as check_output_dir_policy

logger = logging.getLogger(__name__)

def is_projection_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory written by :func:`write_projection_dir`."""
    return (Path(path) / CONFIG_FILE).is_file()


#: Schema of a ``base_model`` record (:func:`base_record`), as every reader of a saved record checks it.
BASE_MODEL_SCHEMA = Nullable({
    "kind": Check(lambda v: v in ("default", "local", "hub"), "'default', 'local' or 'hub'"),
    "name_or_path": Nullable(str), "path": Nullable(str), "relative_path": Nullable(str),
    "fingerprint": Nullable(str), "encoder_fingerprint": Nullable(str),
})

_PROJECTION_SCHEMA = {
    "format": str, "format_version": Nullable(int), "digest": str, "base_model": BASE_MODEL_SCHEMA,
    "method": Nullable({"name": Nullable(str), "hyperparameters": Nullable(dict), "attributes": Nullable(dict)}),
    "fitting": Nullable(dict),
}


def base_record(encoder: Any) -> dict[str, Any]:
    """How to find the base checkpoint of ``encoder`` again.

    ``kind`` (``"default"``, ``"local"`` or ``"hub"``), ``name_or_path``, ``path`` (absolute path of
    a local checkpoint, hub id, ``None`` for the embedded default), ``fingerprint`` of the weights
    (what :func:`probekit.load_encoder` gives for that path), ``encoder_fingerprint`` (the encoder's
    own fingerprint, which differs when it already carries an output projection) and
    ``prior_projection_digest`` (that projection's digest, else ``None``).
    """
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
    directory (so that overwriting never deletes anything else). The policy of
    :func:`probekit.utils.check_output_dir`.
    """
    return check_output_dir_policy(
        directory, parameter=parameter, marker=CONFIG_FILE, reuse=overwrite,
        reuse_option="overwrite (--overwrite)", kind="a projection directory",
    )


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
        What the projection was fitted on; :func:`probekit.utils._provenance.collect_provenance`.
    overwrite : bool
        Replace an existing projection directory.
    """
    from safetensors.numpy import save_file


    target = check_output_dir(directory, overwrite=overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    base_info = dict(base) if base is not None else None
    if base_info is not None and base_info.get("kind") == "local" and base_info.get("path"):
        base_info["relative_path"] = _relative_to(base_info["path"], target)
    layerwise = isinstance(projection, LayerwiseProjection)
    config = {
        "format": FORMAT_NAME,
        # Plain maps keep version 1 so that earlier probekit releases still read them.
        "format_version": FORMAT_VERSION if layerwise else PLAIN_FORMAT_VERSION,
        "convention": CONVENTION,
        "dimension": projection.dimension,
        "digest": projection.digest(),
        "base_model": base_info,
        "method": dict(method),
        "fitting": dict(fitting or {}),
        "provenance": dict(provenance or {}),
    }
    tensors = {"matrix": np.ascontiguousarray(projection.matrix), "offset": np.ascontiguousarray(projection.offset)}
    if layerwise:
        config["layers"] = [layer is not None for layer in projection.layers]
        for index, layer in enumerate(projection.layers):
            if layer is not None:
                tensors[f"{LAYER_PREFIX}{index}.matrix"] = np.ascontiguousarray(layer.matrix)
                tensors[f"{LAYER_PREFIX}{index}.offset"] = np.ascontiguousarray(layer.offset)
    for name, value in (state or {}).items():
        tensors[STATE_PREFIX + name] = np.ascontiguousarray(np.asarray(value))
    with atomic_directory(target) as staging:  # a projection directory being overwritten was checked above
        save_file(tensors, str(staging / WEIGHTS_FILE))
        (staging / CONFIG_FILE).write_text(dumps_json(config), encoding="utf-8")
    return target


def check_installable(config: Mapping[str, Any], directory: str | os.PathLike) -> None:
    """Refuse a projection directory whose eraser cannot be installed in an encoder (an oracle
    eraser, which needs the concept label of every input): :class:`~probekit.errors.ModelLoadError`
    with the reason recorded in it.
    """
    method = config.get("method") or {}
    if method.get("installable", True) is False:
        raise ModelLoadError(
            f"projection directory {str(directory)!r} holds {method.get('name', 'an eraser')}, which cannot be loaded "
            f"as an encoder: {method.get('not_installable') or 'it needs the concept label at transform time'}"
        )


def _projection_of(tensors: Mapping[str, np.ndarray], config: Mapping[str, Any], path: Path) -> OutputProjection:
    """The stored map: plain, or one per hidden state (``config["layers"]``, format version 2)."""
    layers = config.get("layers")
    if layers is None:
        return OutputProjection(tensors["matrix"], tensors["offset"])
    if not isinstance(layers, list) or not all(isinstance(flag, bool) for flag in layers):
        raise ModelLoadError(f"{str(path / CONFIG_FILE)!r}: 'layers' is not a list of true/false (damaged or edited file)")
    maps = []
    for index, present in enumerate(layers):
        if not present:
            maps.append(None)
            continue
        key = f"{LAYER_PREFIX}{index}"
        if f"{key}.matrix" not in tensors or f"{key}.offset" not in tensors:
            raise ModelLoadError(f"projection directory {str(path)!r} lacks the map of hidden state {index}")
        maps.append(OutputProjection(tensors[f"{key}.matrix"], tensors[f"{key}.offset"]))
    return LayerwiseProjection(tensors["matrix"], tensors["offset"], tuple(maps))


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
        config = read_json_file(config_path, max_bytes=64 * 1024 * 1024)
        if isinstance(config, dict) and config.get("format") == FORMAT_NAME:
            read_json_file(config_path, schema=_PROJECTION_SCHEMA)
    except ProbekitError as exc:
        raise ModelLoadError(f"could not read the projection directory: {exc}") from None
    if not isinstance(config, dict) or config.get("format") != FORMAT_NAME:
        raise ModelLoadError(f"{str(config_path)!r} is not a probekit projection file (format {FORMAT_NAME!r})")
    version = config.get("format_version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ModelLoadError(f"{str(config_path)!r} has format_version {version!r}, not an integer (damaged or edited file)")
    if version > FORMAT_VERSION:
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
    projection = _projection_of(tensors, config, path)
    if config.get("digest") != projection.digest():
        raise ModelLoadError(
            f"projection in {str(path)!r} does not match the digest recorded in {CONFIG_FILE} (damaged or edited files)"
        )
    state = {k[len(STATE_PREFIX):]: v for k, v in tensors.items() if k.startswith(STATE_PREFIX)}
    return projection, config, state


