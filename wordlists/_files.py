"""Reading text files with errors a user can act on (missing file, wrong encoding, bad JSON)."""

from __future__ import annotations

import codecs
import json
import os
from pathlib import Path
from typing import Any

from probekit.errors import InputFileError, InvalidParameterError


def read_text(
    path: str | os.PathLike[str],
    *,
    encoding: str = "utf-8",
    what: str = "file",
    encoding_hint: str | None = None,
) -> str:
    """Read a whole text file, decoding it with ``encoding``.

    Parameters
    ----------
    path : str or path-like
        The file.
    encoding : str
        Text encoding; a UTF-8 byte-order mark is dropped.
    what : str
        What the file is, for messages ("corpus file", "word list", ...).
    encoding_hint : str, optional
        What to tell the user when the file does not decode; by default, to pass ``encoding=``.

    Raises
    ------
    InputFileError
        The file does not exist, is a directory, cannot be read, or is not valid text in
        ``encoding`` (the message names the file and the byte offset of the first bad byte).
    InvalidParameterError
        ``encoding`` is not a codec Python knows.
    """
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InvalidParameterError(
            "encoding", encoding, "a text encoding known to Python, e.g. 'utf-8' or 'latin-1'"
        ) from None
    p = Path(path)
    if not p.exists():
        raise InputFileError(f"{what} not found: {p}")
    if p.is_dir():
        raise InputFileError(f"{what} {p} is a directory; expected a file")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {p}: {exc}") from exc
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        hint = encoding_hint or (
            "pass the file's encoding with the `encoding` parameter (for example encoding='latin-1' "
            "or 'cp1252'), or convert the file to UTF-8"
        )
        raise InputFileError(
            f"{what} {p} is not valid {encoding} text: byte 0x{data[exc.start]:02x} at byte offset "
            f"{exc.start} cannot be decoded ({exc.reason}); {hint}"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


_UTF8_ONLY = "word-list files must be UTF-8; convert the file to UTF-8"


def read_lines(path: str | os.PathLike[str], *, what: str = "word list") -> list[tuple[int, str]]:
    """Non-empty, non-comment lines of a UTF-8 file as ``(line number, stripped line)``.

    Lines whose first non-blank character is ``#`` are comments.
    """
    text = read_text(path, what=what, encoding_hint=_UTF8_ONLY)
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            out.append((number, stripped))
    return out


def read_json(path: str | os.PathLike[str], *, what: str = "JSON file") -> Any:
    """Parse a UTF-8 JSON file; malformed JSON raises :class:`InputFileError` with line and column."""
    text = read_text(path, what=what, encoding_hint=_UTF8_ONLY)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"{what} {Path(path)} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None


def read_json_records(path: str | os.PathLike[str], *, what: str = "JSON file") -> list[Any]:
    """Parse a file holding either one JSON document (possibly spread over many lines, as the
    published SEAT ``.jsonl`` files are) or JSON Lines (one document per line).

    Returns the list of documents.
    """
    text = read_text(path, what=what, encoding_hint=_UTF8_ONLY)
    if not text.strip():
        raise InputFileError(f"{what} {Path(path)} is empty")
    try:
        return [json.loads(text)]
    except json.JSONDecodeError as whole_error:
        records = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                if number == 1 or not records:
                    # Neither one document nor JSON Lines: report the whole-document error.
                    exc = whole_error
                    number = whole_error.lineno
                raise InputFileError(
                    f"{what} {Path(path)} is neither a JSON document nor JSON Lines: {exc.msg} at "
                    f"line {number}, column {exc.colno}"
                ) from None
        return records
