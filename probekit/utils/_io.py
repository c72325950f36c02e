"""Atomic file writes and JSON helpers shared by every writer in the toolkit."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import errno
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from probekit.errors import InvalidParameterError, ProbekitError

#: errno values of a disk that cannot take the write: full, read-only, over quota, file too large.
DISK_ERRNOS = frozenset(
    code for code in (errno.ENOSPC, errno.EROFS, getattr(errno, "EDQUOT", None), errno.EFBIG) if code is not None
)

#: Output roots of the running command: path as given -> the option that named it (see confined_writes).
_WRITE_ROOTS: contextvars.ContextVar[tuple[tuple[str, str], ...]] = contextvars.ContextVar("probekit_write_roots", default=())


class DiskWriteError(ProbekitError, OSError):
    """A write failed because the disk is full, read-only or over quota; nothing was left half-written.

    Parameters
    ----------
    message : str
        The one-line message (:func:`disk_error_message`).
    code : int, optional
        The ``errno`` of the failed write.
    """

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.errno = code


def disk_error_message(exc: OSError, path: str | os.PathLike | None = None) -> str:
    """One line for a failed write: the path, the reason (errno name) and that nothing was left behind."""
    where = exc.filename if exc.filename is not None else path
    code = errno.errorcode.get(exc.errno or 0, "")
    reason = exc.strerror or str(exc)
    return f"cannot write {str(where)!r}: {reason}{f' ({code})' if code else ''}; nothing was left half-written"


@contextlib.contextmanager
def confined_writes(roots: Mapping[str, str]) -> Iterator[None]:
    """Within the block, an atomic write to a path that lies inside one of ``roots`` (as written)
    but resolves outside it -- through a symbolic link inside the root -- is refused.

    ``roots`` maps each output path of a command to the option that named it (``{"OUT": "--out"}``).
    """
    token = _WRITE_ROOTS.set(tuple((str(path), str(option)) for path, option in roots.items()))
    try:
        yield
    finally:
        _WRITE_ROOTS.reset(token)


def check_confined(path: str | os.PathLike) -> None:
    """Refuse ``path`` when it lies inside an output root (:func:`confined_writes`) but a symbolic
    link inside that root leads it elsewhere.
    """
    lexical = Path(os.path.abspath(path))
    for root, option in _WRITE_ROOTS.get():
        base = Path(os.path.abspath(root))
        if lexical != base and base not in lexical.parents:
            continue
        real_base = base.resolve()
        real = lexical.parent.resolve() / lexical.name
        if real != real_base and real_base not in real.parents:
            raise InvalidParameterError(
                option, root, "a directory whose contents stay inside it",
                f"{str(lexical)!r} leads to {str(real)!r} through a symbolic link; nothing is written outside {root}",
            )


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` only if the block succeeds.

    Readers never see a half-written file and a failed write leaves nothing behind. A full,
    read-only or over-quota disk raises :class:`DiskWriteError` naming the path; a path leaving the
    command's output directory through a symbolic link is refused (:func:`check_confined`).
    """
    target = Path(path)
    check_confined(target)
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=suffix if suffix is not None else target.suffix + ".tmp",
            dir=target.parent,
        )
        os.close(fd)
        tmp = Path(tmp_name)
        yield tmp
        os.replace(tmp, target)
    except OSError as exc:
        if exc.errno in DISK_ERRNOS and not isinstance(exc, ProbekitError):
            raise DiskWriteError(disk_error_message(exc, target), exc.errno) from None
        raise
    finally:
        if tmp is not None and tmp.exists():
            tmp.unlink()


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike) -> Iterator[Path]:
    """Yield an empty staging directory beside ``path``; if the block succeeds it becomes ``path``.

    The staging directory gets the permissions of a plain ``mkdir``, then replaces ``path`` in one
    rename (a directory already there is moved aside first and deleted after), so readers see the
    old directory or the whole new one, never a half-written one; if the block fails, ``path`` is
    untouched and the staging directory is removed. The caller checks beforehand that replacing an
    existing ``path`` is allowed (:func:`check_output_dir`).
    """
    target = Path(path)
    check_confined(target)
    parent = target.absolute().parent
    staging = None
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent))
        yield staging
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes a private directory
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=parent))
            os.replace(target, old / "previous")
        os.replace(staging, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        if exc.errno in DISK_ERRNOS and not isinstance(exc, ProbekitError):
            raise DiskWriteError(disk_error_message(exc, target), exc.errno) from None
        raise
    finally:
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def ensure_writable_dir(path: str | os.PathLike, parameter: str = "out") -> Path:
    """Create the directory ``path`` (and its parents) if needed and check that a file can be
    written in it. Call it before any slow work (loading a model, extraction), so that a bad
    output path fails at once with a one-line error instead of after the computation.

    Raises
    ------
    InvalidParameterError
        Naming ``parameter``: ``path`` is a file, or cannot be created or written.
    """
    target = check_output_dir(path, parameter=parameter, reuse=True)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InvalidParameterError(parameter, str(path), "a directory that can be created and written", reason) from None
    return target


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def to_jsonable(obj: Any) -> Any:
    """Convert NumPy scalars/arrays, dataclasses, paths and NaN into JSON-friendly values.

    Non-finite floats become ``None`` so the output is strict JSON that any reader accepts.
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if hasattr(obj, "to_dict") and callable(obj.to_dict) and not isinstance(obj, Mapping):
        return to_jsonable(obj.to_dict())
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Path):
        return str(obj)
    return obj


def dumps_json(obj: Any) -> str:
    """Serialize ``obj`` as indented, strict JSON (see :func:`to_jsonable`)."""
    return json.dumps(to_jsonable(obj), indent=2, sort_keys=False, allow_nan=False) + "\n"


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically."""
    return atomic_write_text(path, dumps_json(obj))


# ----------------------------------------------------------------------------------- output paths: one policy


def _nearest_existing(path: Path) -> Path:
    current = path.absolute()
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def _check_creatable(path: Path, shown: str, parameter: str, valid: str) -> None:
    """The nearest existing ancestor of ``path`` is a directory in which a file can be created."""
    anchor = _nearest_existing(path if path.is_dir() else path.parent)
    if not anchor.is_dir():
        raise InvalidParameterError(parameter, shown, valid, f"{str(anchor)!r} is a file, not a directory")
    try:
        fd, name = tempfile.mkstemp(prefix=".probekit-write-check-", dir=anchor)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InvalidParameterError(parameter, shown, valid, f"{str(anchor)!r}: {reason}") from None


def check_output_dir(
    path: str | os.PathLike,
    *,
    parameter: str = "out",
    marker: str | Sequence[str] | None = None,
    reuse: bool = False,
    reuse_option: str | None = None,
    kind: str = "output",
) -> Path:
    """The one output-directory policy: check ``path`` before any work, create nothing.

    Accepted: a path that does not exist yet (its nearest existing ancestor a writable directory),
    an empty directory, or -- with ``reuse`` (resume / overwrite) -- a directory holding ``marker``
    (a file only probekit's writer of that ``kind`` puts there; with ``marker=None`` any directory).

    Parameters
    ----------
    path : path
        The output directory as the user gave it (shown as given in messages).
    parameter : str
        Name of the parameter (or CLI option) in messages.
    marker : str or sequence of str, optional
        File name(s) that mark a directory of our own kind; one of them must exist to reuse it.
    reuse : bool
        Whether a non-empty directory of our own kind may be reused (resumed or overwritten).
    reuse_option : str, optional
        The parameter that allows reuse (e.g. ``"overwrite (--overwrite)"``), named in the message.
    kind : str
        What such a directory holds (e.g. ``"a debiased checkpoint"``), named in the message.

    Raises
    ------
    InvalidParameterError
        A file of that name exists; a non-empty directory without ``reuse`` or not of our kind;
        the directory cannot be created or written.
    """
    shown = str(path)
    target = Path(path).expanduser()
    markers = [marker] if isinstance(marker, str) else list(marker or [])
    if target.exists() and not target.is_dir():
        raise InvalidParameterError(parameter, shown, "a directory path", "a file of that name exists")
    if target.is_dir() and any(target.iterdir()):
        if not reuse:
            hint = f"; pass {reuse_option} to reuse {kind} there" if reuse_option else ""
            raise InvalidParameterError(
                parameter, shown, "a new or empty directory", f"it is not empty: it already holds files{hint}; or choose another directory"
            )
        if markers and not any((target / m).exists() for m in markers):
            raise InvalidParameterError(
                parameter, shown, f"a new or empty directory, or {kind} to reuse",
                f"it holds other files (no {' or '.join(markers)}); nothing there is replaced",
            )
    _check_creatable(target, shown, parameter, "a directory that can be created and written")
    return target


def check_output_file(path: str | os.PathLike, *, parameter: str = "out", suffix: str | None = None) -> Path:
    """An output file path: not a directory, (optionally) ending in ``suffix``, its directory creatable
    and writable. Checked before any work; nothing is created.
    """
    shown = str(path)
    target = Path(path).expanduser()
    if suffix is not None and not target.name.endswith(suffix):
        raise InvalidParameterError(parameter, shown, f"a file name ending in {suffix}")
    if target.is_dir():
        raise InvalidParameterError(parameter, shown, "a file path", "a directory of that name exists")
    if target.exists() and not os.access(target, os.W_OK):
        raise InvalidParameterError(parameter, shown, "a file that can be written", "permission denied")
    _check_creatable(target, shown, parameter, "a file in a directory that can be created and written")
    return target


def is_within(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Whether ``path`` (resolved) lies inside ``root`` (resolved) or is ``root`` itself."""
    resolved, base = Path(path).resolve(), Path(root).resolve()
    return resolved == base or base in resolved.parents


def check_within(path: str | os.PathLike, root: str | os.PathLike, parameter: str = "out") -> Path:
    """``path`` if it lies under ``root``; else an error (a write would land outside the output directory)."""
    if not is_within(path, root):
        raise InvalidParameterError(parameter, str(path), f"a path inside {str(root)!r}", "it would be written outside the output directory")
    return Path(path)


def safe_name(name: str, *, fallback: str = "item", max_length: int = 80) -> str:
    """A file-name component made from ``name``: letters, digits, ``._-`` only; never ``""``, ``"."`` or ``".."``.

    Runs of other characters become ``_``; leading dots are dropped, so the result is never hidden
    and never a path step.
    """
    import re

    text = re.sub(r"[^A-Za-z0-9._-]+", "_", name.strip().strip("/").replace("/", "__"))
    text = text.lstrip(".")[-max_length:].lstrip(".")
    return text if text.strip("._-") else fallback


@contextlib.contextmanager
def removing_created_dirs(*paths: str | os.PathLike | None) -> Iterator[None]:
    """Remove, when the block raises, each of ``paths`` that did not exist before and is an empty
    directory now (and the empty parents created with it), so a failed call leaves no empty output.
    """
    snapshot = []
    for value in paths:
        if value is None:
            continue
        path = Path(value).expanduser().absolute()
        snapshot.append((path, _nearest_existing(path)))
    try:
        yield
    except BaseException:
        for path, anchor in snapshot:
            _remove_empty_chain(path, anchor)
        raise


def _remove_empty_chain(path: Path, anchor: Path) -> None:
    if path == anchor:
        return  # existed before the call
    current = path
    while current != anchor and anchor in current.parents:
        if current.exists():
            try:
                current.rmdir()  # only an empty directory
            except OSError:
                return
        current = current.parent


# ------------------------------------------------------------------------------------- npz files, checked


def npz_declared_sizes(path: str | os.PathLike) -> dict[str, int]:
    """Bytes each array of the npz file ``path`` declares in its header, checked against what the
    file stores -- before anything is allocated (a header may declare 4e10 floats in a 1 kB file).

    Raises
    ------
    InputFileError
        Naming the file and the array: not a zip of ``.npy`` members, an unreadable header, an
        object array (pickled data, never loaded), or a declared size the stored data cannot hold.
    """
    import zipfile

    from probekit.errors import InputFileError

    shown = str(path)
    sizes: dict[str, int] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                with archive.open(info) as member:
                    try:
                        version = np.lib.format.read_magic(member)
                        reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
                        shape, _, dtype = reader(member)
                    except ValueError as exc:
                        raise InputFileError(f"{shown!r}: array {name!r} has no readable .npy header ({exc})") from None
                    header = member.tell()
                if dtype.hasobject:
                    raise InputFileError(f"{shown!r}: array {name!r} holds Python objects (pickled data), which are never loaded")
                declared = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
                if declared > info.file_size - header:
                    raise InputFileError(
                        f"{shown!r}: array {name!r} declares shape {tuple(shape)} ({declared:.3g} bytes) but the file "
                        f"stores {info.file_size - header} bytes (damaged or crafted file)"
                    )
                sizes[name] = declared
    except (zipfile.BadZipFile, EOFError) as exc:
        raise InputFileError(f"{shown!r} is not a readable .npz file ({exc})") from None
    except OSError as exc:
        raise InputFileError(f"{shown!r} cannot be read: {exc.strerror or exc}") from None
    return sizes
