"""Memory guard: a count that sizes an allocation is checked against the memory there is, first.

A bootstrap with 10**10 resamples, or an example count of 2**40, would otherwise end in a
``MemoryError`` traceback (or the operating system killing the process) after the slow work; these
checks say at once how much memory the count needs and how much there is.
"""

from __future__ import annotations

import os

from probekit.errors import InvalidParameterError

__all__ = ["available_memory", "check_allocation", "format_bytes"]


def available_memory() -> int:
    """Bytes of memory this process can still get: ``MemAvailable`` of /proc/meminfo where there is
    one (Linux), else the physical memory; 2**63 - 1 when neither is known.
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return 2**63 - 1


def format_bytes(size: float) -> str:
    """``1536`` -> ``"1.5 KiB"``; binary units up to EiB, beyond that in EiB."""
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 1024:
            return f"{value:.0f} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.3g} EiB"


def check_allocation(count: int, bytes_per_item: float, name: str, *, limit: int | None = None) -> int:
    """``count`` if ``count * bytes_per_item`` bytes fit in the available memory (or ``limit``).

    Parameters
    ----------
    count : int
        The number of items (resamples, permutations, examples) the caller is about to allocate for.
    bytes_per_item : float
        Bytes one item needs.
    name : str
        The parameter or option that set ``count`` (``--n-resamples``), named in the message.
    limit : int, optional
        Bytes allowed (default: :func:`available_memory`).

    Raises
    ------
    InvalidParameterError
        Saying how much memory ``count`` needs, how much there is, and the largest count that fits.
    """
    budget = available_memory() if limit is None else int(limit)
    needed = float(count) * float(bytes_per_item)
    if needed > budget:
        largest = int(budget // bytes_per_item) if bytes_per_item > 0 else count
        raise InvalidParameterError(
            name, count, f"at most {largest} here",
            f"it needs {format_bytes(needed)} of memory and {format_bytes(budget)} is available",
        )
    return count
