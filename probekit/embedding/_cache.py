"""On-disk cache of extracted embeddings: npz files (never pickle), atomic writes, verified reads.

Each entry is one ``.npz`` file named by a key that digests everything the numbers depend on
(model fingerprint, text, words, layers, pooling, dtype, engine version). The file stores its own
SHA-256 over the arrays, so a truncated or corrupted file is detected, removed and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import zipfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from probekit.errors import InputFileError
from probekit.utils import atomic_path, load_npz

logger = logging.getLogger(__name__)

_CHECKSUM_KEY = "__checksum__"
_META_KEY = "__meta__"


def cache_key(**parts: Any) -> str:
    """Digest of the keyword arguments (JSON-serializable), 32 hex digits."""
    blob = json.dumps(parts, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


def _checksum(arrays: Mapping[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(name.encode())
        digest.update(array.dtype.str.encode())
        digest.update(str(array.shape).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


class EmbeddingCache:
    """A directory of verified npz entries.

    Parameters
    ----------
    directory : str or path
        Created on first write.
    """

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)

    def path_for(self, key: str) -> Path:
        """The ``.npz`` file of cache entry ``key``."""
        return self.directory / f"{key}.npz"

    def load(self, key: str) -> tuple[dict[str, np.ndarray], dict[str, Any]] | None:
        """The arrays and metadata stored under ``key``, or ``None`` when absent or corrupted
        (a corrupted file is deleted so that the caller rebuilds it).
        """
        path = self.path_for(key)
        if not path.exists():
            return None
        try:
            arrays = load_npz(path)  # a regular file; sizes checked before anything is allocated
            stored = str(arrays.pop(_CHECKSUM_KEY))
            meta = json.loads(str(arrays.pop(_META_KEY)))
            if stored != _checksum(arrays):
                raise ValueError("checksum mismatch")
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, json.JSONDecodeError, InputFileError) as exc:
            logger.warning("embedding cache file %s is corrupted (%s); rebuilding it", path, exc)
            path.unlink(missing_ok=True)
            return None
        logger.info("loaded embeddings from cache %s", path)
        return arrays, meta

    def save(self, key: str, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> Path:
        """Store ``arrays`` (no object arrays) and JSON metadata under ``key``, atomically."""
        payload = {name: np.asarray(value) for name, value in arrays.items()}
        payload[_CHECKSUM_KEY] = np.asarray(_checksum(payload))
        payload[_META_KEY] = np.asarray(json.dumps(dict(meta), sort_keys=True, default=str))
        path = self.path_for(key)
        with atomic_path(path, suffix=".tmp.npz") as tmp:
            np.savez(tmp, **payload)
        return path
