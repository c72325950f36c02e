"""Provenance attached to every result: what made these numbers, and how to make them again."""

from __future__ import annotations

import datetime as _dt
import hashlib
import importlib.metadata
import platform
import subprocess
from pathlib import Path
from typing import Any, Iterable, Mapping

from probekit._version import __version__
from wordlists import attribute_digests, get_attribute

_LIBRARIES = ("numpy", "scipy", "scikit-learn", "torch", "transformers", "datasets", "pandas")


def toolkit_version() -> str:
    """The installed probekit version (the source tree's ``__version__`` when it is not installed)."""
    try:
        return importlib.metadata.version("probekit")
    except importlib.metadata.PackageNotFoundError:

        return __version__


def git_commit() -> str | None:
    """The commit of the probekit source tree when it is a git checkout, else ``None``."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def library_versions() -> dict[str, str | None]:
    """Python's version and those of the libraries behind the numbers (numpy, scipy, scikit-learn, torch, transformers,
    datasets, pandas); None where one is not installed.
    """
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def hash_words(words: Iterable[str]) -> str:
    """SHA-256 (first 16 hex digits) of a word list, order kept, one word per line."""
    digest = hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest()
    return digest[:16]


def collect_provenance(
    *,
    model: Mapping[str, Any] | None = None,
    seeds: Mapping[str, Any] | None = None,
    wordlists: Mapping[str, Iterable[str] | str] | None = None,
    parameters: Mapping[str, Any] | None = None,
    attribute: Any = None,
) -> dict[str, Any]:
    """Build the provenance block stored with a result.

    Parameters
    ----------
    model : mapping, optional
        Model description, typically ``Encoder.describe()`` (name, fingerprint, dtype, ...).
    seeds : mapping, optional
        Every random seed used, by name.
    wordlists : mapping, optional
        Word lists by name; lists are hashed with :func:`hash_words`, strings are kept as given hashes.
    parameters : mapping, optional
        Any other parameters needed to reproduce the result.
    attribute : str or wordlists.Attribute, optional
        The protected attribute the result is about ("gender", "race", "religion" or a registered
        one): recorded as ``{"name", "groups", "digest"}``. Whatever it is, ``"attributes"`` holds
        the digest (16 hex digits) of every known attribute (:func:`attribute_hashes`).
    """
    hashed = None
    if wordlists is not None:
        hashed = {k: (v if isinstance(v, str) else hash_words(v)) for k, v in wordlists.items()}
    return {
        "probekit_version": toolkit_version(),
        "git_commit": git_commit(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "versions": library_versions(),
        "model": dict(model) if model is not None else None,
        "seeds": dict(seeds) if seeds is not None else None,
        "wordlists": hashed,
        "parameters": dict(parameters) if parameters is not None else None,
        "attribute": describe_attribute(attribute) if attribute is not None else None,
        "attributes": attribute_hashes(),
    }


def describe_attribute(attribute: Any) -> dict[str, Any]:
    """``{"name", "groups", "digest"}`` of an attribute given by name or as a ``wordlists.Attribute``."""
    found = get_attribute(attribute)
    return {"name": found.name, "groups": list(found.groups), "digest": found.digest}


def attribute_hashes() -> dict[str, str]:
    """The hook every provenance calls: digest (16 hex digits) of every known attribute, by name.

    Built-in attributes and those registered with ``wordlists.register_attribute``, so a result
    records which term lists were current when it was made.
    """
    return attribute_digests()
