"""The encoders of a study's units: the base encoders, the debiased ones taken from a path, and
the ones the study builds (:class:`probekit.study._shared.SharedWork`). One encoder is kept in
memory at a time, so consecutive units of one (encoder, method) load it once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from debias import LinearEraser, apply_projection, get_method
from probekit import load_encoder
from probekit.study._config import DEFAULT_MODEL, StudyConfig
from probekit.study._shared import SharedWork
from probekit.study._units import needs_debiased_build

__all__ = ["StudyEncoders"]


class StudyEncoders:
    """Loads the encoder of an (encoder label, method) pair, building the debiased one if needed.

    Parameters
    ----------
    config : StudyConfig
    shared : SharedWork
        Where debiased encoders are built.
    corpus : callable
        Returns the study's corpus (for builds).
    """

    def __init__(self, config: StudyConfig, shared: SharedWork, corpus: Callable[[], Any]):
        self.config = config
        self.shared = shared
        self.corpus = corpus
        self._key: tuple[str, str] | None = None
        self._encoder: Any = None
        self._base_label: str | None = None
        self._base: Any = None

    def _load(self, name_or_path: str | None, trust_remote_code: bool = False) -> Any:
        run = self.config.run
        return load_encoder(name_or_path, device=run.get("device"), dtype=run.get("dtype"), trust_remote_code=trust_remote_code)

    def _drop_base(self) -> None:
        self._base, self._base_label = None, None

    def base(self, label: str) -> Any:
        """The encoder ``label`` as configured (its ``model``)."""
        if self._base_label != label:
            self._drop_base()  # one encoder in memory at a time
            spec = self.config.encoder(label)
            model = None if spec["model"] == DEFAULT_MODEL else spec["model"]
            self._base = self._load(model, spec["trust_remote_code"])
            self._base_label = label
        return self._base

    def build(self, label: str, method: str) -> Path:
        """The directory of the debiased encoder of (encoder, method), built once."""
        return self.shared.build_debiased(label, method, lambda: self.base(label), self.corpus)

    def get(self, label: str, method: str) -> Any:
        """The encoder of (encoder, method): the base, the one from a path, or the one built."""
        key = (label, method)
        if self._key == key:
            return self._encoder
        self._encoder, self._key = None, None
        self._encoder = self._make(label, method)
        self._key = key
        return self._encoder

    def _make(self, label: str, method: str) -> Any:
        if method == "none":
            return self.base(label)
        spec = self.config.encoder(label)
        if not needs_debiased_build(self.config, label, method):
            self._drop_base()
            return self._load(spec["debiased"][method], spec["trust_remote_code"])
        directory = self.build(label, method)
        if get_method(method).kind == "projection":
            base = self.base(label)
            return apply_projection(base, LinearEraser.load(directory, encoder=base), name=f"{label}+{method}")
        self._drop_base()
        return self._load(str(directory))
