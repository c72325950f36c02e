"""Benchmark data: a local file, or, when online, a Hugging Face hub dataset or a public release.

One home for "local file or hub id" (CrowS-Pairs, StereoSet) and for fetching a public release of
small files into a cache (the SEAT release). Nothing is shipped with probekit: what is downloaded
keeps its own licence, and offline (``HF_HUB_OFFLINE`` / ``HF_DATASETS_OFFLINE``, or no network)
every path fails with a :mod:`probekit.errors` error that names the parameter and says to pass a
local copy.
"""

from __future__ import annotations

import logging
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit.errors import InputFileError, InvalidParameterError
from probekit.utils import atomic_path, hub_offline

logger = logging.getLogger(__name__)

_TIMEOUT_S = 30


def probekit_cache_dir(*parts: str) -> Path:
    """The cache folder of downloaded benchmark data: ``$PROBEKIT_CACHE``, else
    ``$XDG_CACHE_HOME/probekit``, else ``~/.cache/probekit`` (then ``parts``).
    """
    root = os.environ.get("PROBEKIT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "probekit")
    return Path(root).expanduser().joinpath(*parts)


def local_or_hub(source: str | os.PathLike, *, parameter: str, what: str, hub_ids: Sequence[str]) -> Path | str:
    """A local file (returned as a Path) or a known hub dataset id (returned as a str).

    Parameters
    ----------
    source : path or str
        What the user passed.
    parameter : str
        The parameter's name as the user wrote it (for messages).
    what : str
        The expected local file, e.g. ``"StereoSet file (dev.json)"``.
    hub_ids : sequence of str
        Hub dataset ids accepted for this benchmark.

    Raises
    ------
    InputFileError
        When ``source`` is neither an existing file nor one of ``hub_ids``, or is a hub id while
        the hub is offline.
    """
    path = Path(source).expanduser()
    if path.is_file():
        return path
    name = str(source)
    if name in hub_ids:
        if hub_offline():
            raise InputFileError(
                f"{parameter}={name!r} is a Hugging Face hub dataset, but the hub is offline (HF_HUB_OFFLINE or "
                f"HF_DATASETS_OFFLINE is set); pass a local {what} instead"
            )
        return name
    raise InputFileError(
        f"no {what} {name!r} ({parameter}); pass a local {what}, or, when the Hugging Face hub is reachable, "
        f"one of the hub datasets {', '.join(repr(h) for h in hub_ids)}"
    )


def load_hub_dataset(name: str, *, config: str | None, split: str, parameter: str, what: str) -> Any:
    """``datasets.load_dataset(name, config, split=split)``, its failures as :class:`InputFileError`."""
    import datasets  # deferred: importing datasets costs about a second

    try:
        return datasets.load_dataset(name, config, split=split)
    except Exception as exc:  # network, authentication, unknown config or split: one clear message
        raise InputFileError(
            f"{parameter}={name!r}: cannot load the hub dataset (config {config!r}, split {split!r}: {exc}); "
            f"pass a local {what} instead"
        ) from None


def _download(url: str, target: Path) -> None:
    """Fetch ``url`` into ``target`` atomically (a half-written file is never left behind)."""
    with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as response:  # noqa: S310 - https URLs of a fixed table
        payload = response.read()
    with atomic_path(target) as tmp:
        Path(tmp).write_bytes(payload)


def fetch_release(
    files: Mapping[str, str], target: str | os.PathLike, *, parameter: str, value: Any, local_hint: str
) -> Path:
    """Make sure every file of a public release is in ``target``, downloading the missing ones.

    Parameters
    ----------
    files : mapping of str to str
        File name -> URL.
    target : path
        The cache folder; files already there are not downloaded again.
    parameter, value : str, Any
        The user's parameter and value that asked for the release (for messages).
    local_hint : str
        What to pass instead when offline (e.g. the layout of a local copy).

    Returns
    -------
    Path
        ``target``, holding every file of ``files``.

    Raises
    ------
    InvalidParameterError
        When a file is missing and the hub is offline or the download fails.
    """
    root = Path(target).expanduser()
    missing = [name for name in files if not (root / name).is_file()]
    if not missing:
        return root
    if hub_offline():
        raise InvalidParameterError(parameter, value, local_hint,
                                    f"offline (HF_HUB_OFFLINE or HF_DATASETS_OFFLINE is set) and {root} lacks "
                                    f"{len(missing)} of its {len(files)} files, so nothing can be downloaded")
    root.mkdir(parents=True, exist_ok=True)
    logger.info("downloading %d files into %s", len(missing), root)
    for name in missing:
        try:
            _download(files[name], root / name)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise InvalidParameterError(parameter, value, local_hint,
                                        f"downloading {files[name]} failed ({exc}); no network?") from None
    return root
