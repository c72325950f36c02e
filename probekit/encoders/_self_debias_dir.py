"""Self-Debias at the encoder level: an encoder that carries Self-Debias settings, and its directory.

Self-Debias (Schick et al. 2021) changes no weight: it changes how masked tokens are scored (see
:class:`debias.SelfDebias`). A :class:`SelfDebiasedEncoder` is therefore the base encoder itself (same
model, same embeddings) plus the settings (``prefixes``, ``decay_constant``, ``epsilon``) that every
masked-LM scorer of :mod:`probekit.intrinsic` applies. ``probekit debias self-debias`` writes a
directory holding only ``self_debias.json`` (the settings and how to find the base checkpoint
again); :func:`probekit.load_encoder` of that directory loads the base, checks its fingerprint and
returns a :class:`SelfDebiasedEncoder`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any, Mapping

from probekit.encoders._encoder import Encoder
from probekit.encoders._projection_dir import BASE_MODEL_SCHEMA
from probekit.errors import ModelLoadError, ProbekitError
from probekit.utils import Check, read_json_file, validate_record

__all__ = ["SELF_DEBIAS_FILE", "SelfDebiasedEncoder", "is_self_debias_dir", "read_self_debias_dir",
           "self_debias_base_source", "self_debiased"]

#: The marker file of a Self-Debias directory.
SELF_DEBIAS_FILE = "self_debias.json"
#: ``format`` written in it.
SELF_DEBIAS_FORMAT = "probekit-self-debias"


@dataclasses.dataclass
class SelfDebiasedEncoder(Encoder):
    """An :class:`Encoder` whose masked-LM scoring is self-debiased (Schick et al. 2021).

    Attributes
    ----------
    self_debias : dict
        ``prefixes`` (list of str), ``decay_constant`` (lambda), ``epsilon``; read by
        :func:`probekit.intrinsic.masked_token_log_probs`. Embeddings are the base encoder's.
    """

    self_debias: dict = dataclasses.field(default_factory=dict)


def _settings_digest(settings: Mapping[str, Any]) -> str:
    return json.dumps({k: settings[k] for k in ("prefixes", "decay_constant", "epsilon")}, sort_keys=True)


def self_debiased(encoder: Encoder, settings: Mapping[str, Any], *, name: str | None = None,
                  source_path: str | None = None) -> SelfDebiasedEncoder:
    """``encoder`` (same model, not copied) as a :class:`SelfDebiasedEncoder` with ``settings``.

    The fingerprint is a digest of the base fingerprint and the settings, so results and caches of
    the two are never mixed up.
    """
    settings = {"prefixes": [str(p) for p in settings["prefixes"]], "decay_constant": float(settings["decay_constant"]),
                "epsilon": float(settings["epsilon"])}
    fields = {f.name: getattr(encoder, f.name) for f in dataclasses.fields(Encoder) if f.init}
    digest = hashlib.sha256(f"{encoder.fingerprint}+self-debias{_settings_digest(settings)}".encode()).hexdigest()[:20]
    fields.update(fingerprint=digest, name_or_path=name or f"{encoder.name_or_path}+self-debias", self_debias=settings)
    if source_path is not None:
        fields["source_path"] = source_path
    return SelfDebiasedEncoder(**fields)


def _finite(low: float, high: float, closed_low: bool) -> Check:
    def inside(value: Any) -> bool:
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        return number and (value >= low if closed_low else value > low) and value <= high

    return Check(inside, f"a number in {'[' if closed_low else '('}{low:g}, {high:g}]")


#: What a Self-Debias record must hold (a NaN decay constant, or a hand-edited string, is refused by name).
_SCHEMA = {
    "base_model": BASE_MODEL_SCHEMA,
    "hyperparameters": {
        "prefixes": Check(lambda v: isinstance(v, list) and bool(v) and all(isinstance(p, str) and p.strip() for p in v),
                          "a non-empty list of non-empty strings"),
        "decay_constant": _finite(0, 1e6, True), "epsilon": _finite(0, 1, False),
    },
}


def is_self_debias_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory written by ``probekit debias self-debias``."""
    return (Path(path) / SELF_DEBIAS_FILE).is_file()


def read_self_debias_dir(directory: str | os.PathLike) -> dict[str, Any]:
    """The record of a Self-Debias directory (its ``self_debias.json``)."""
    path = Path(directory) / SELF_DEBIAS_FILE
    try:
        record = read_json_file(path, max_bytes=16 * 1024 * 1024)
    except ProbekitError as exc:
        raise ModelLoadError(f"could not read the Self-Debias directory: {exc}") from None
    if not isinstance(record, dict) or record.get("format") != SELF_DEBIAS_FORMAT:
        raise ModelLoadError(f"{str(path)!r} is not a Self-Debias record (format {SELF_DEBIAS_FORMAT!r})")
    try:
        validate_record(record, _SCHEMA, repr(str(path)))
    except ProbekitError as exc:
        raise ModelLoadError(str(exc)) from None
    return record


def self_debias_base_source(record: Mapping[str, Any], directory: str | os.PathLike) -> str | None:
    """What :func:`probekit.load_encoder` loads as the base: ``None`` (the embedded default), a hub
    id, or a local path (the one relative to ``directory`` first, then the absolute one).
    """
    base = record.get("base_model") or {}
    kind = base.get("kind")
    if kind == "default":
        return None
    if kind == "hub":
        return base.get("path") or base.get("name_or_path")
    if kind == "local":
        candidates = [str(Path(directory) / base["relative_path"])] if base.get("relative_path") else []
        candidates += [base["path"]] if base.get("path") else []
        for candidate in candidates:
            if Path(candidate).is_dir():
                return candidate
        raise ModelLoadError(f"the base checkpoint of Self-Debias directory {str(directory)!r} is not where it was: "
                             f"tried {', '.join(candidates) or 'no path'}")
    raise ModelLoadError(f"{str(Path(directory) / SELF_DEBIAS_FILE)!r}: unknown base_model kind {kind!r}")


def attach_self_debias(encoder: Encoder, directory: str | os.PathLike, record: Mapping[str, Any]) -> SelfDebiasedEncoder:
    """The base ``encoder`` loaded for a Self-Debias directory, checked and wrapped."""
    recorded = (record.get("base_model") or {}).get("encoder_fingerprint")
    if recorded is not None and recorded != encoder.fingerprint:
        raise ModelLoadError(
            f"the base checkpoint {encoder.name_or_path!r} has fingerprint {encoder.fingerprint}, but Self-Debias "
            f"directory {str(directory)!r} was written for fingerprint {recorded}; the checkpoint changed since"
        )
    return self_debiased(encoder, record["hyperparameters"], name=str(directory), source_path=str(directory))
