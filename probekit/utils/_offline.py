"""Whether the Hugging Face hub may be reached (one home for the offline switches)."""

from __future__ import annotations

import os

__all__ = ["hub_offline"]

_TRUTHY = frozenset({"1", "true", "yes", "on"})


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` or ``HF_DATASETS_OFFLINE`` is set (in the environment or in
    ``datasets.config``): loaders then read local files only and say so instead of downloading.
    """
    if any(os.environ.get(v, "").strip().lower() in _TRUTHY for v in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE")):
        return True
    try:
        import datasets.config as dconfig  # deferred: importing datasets costs about a second

        return bool(getattr(dconfig, "HF_HUB_OFFLINE", False) or getattr(dconfig, "HF_DATASETS_OFFLINE", False))
    except Exception:  # pragma: no cover - very old datasets
        return False
