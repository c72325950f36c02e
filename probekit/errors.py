"""Errors a user can cause.

Every error raised because of user input is a :class:`ProbekitError`; the CLI prints its message
without a traceback and exits non-zero. Messages name the parameter, the value received and what
would be valid.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = [
    "ProbekitError",
    "InvalidParameterError",
    "ModelLoadError",
    "MissingMLMHeadError",
    "MissingSentencesError",
    "InputFileError",
    "NotFittedError",
]


class ProbekitError(Exception):
    """Base class of every error a user of probekit can cause."""


def _describe_valid(valid: Any) -> str:
    if isinstance(valid, str):
        return valid
    if isinstance(valid, Iterable):
        return "one of " + ", ".join(repr(v) for v in valid)
    return repr(valid)


class InvalidParameterError(ProbekitError, ValueError):
    """A parameter received a value outside its valid range.

    Parameters
    ----------
    parameter : str
        Name of the parameter as the user wrote it (function argument or CLI option).
    value : Any
        The value received.
    valid : str or iterable
        What would be valid: a sentence, or an iterable of the valid values.
    detail : str, optional
        Extra explanation appended to the message.
    """

    def __init__(self, parameter: str, value: Any, valid: Any, detail: str | None = None):
        self.parameter = parameter
        self.value = value
        self.valid = valid
        shown = repr(value)
        if len(shown) > 200:
            shown = shown[:197] + "..."
        message = f"invalid {parameter}={shown}; expected {_describe_valid(valid)}"
        if detail:
            message += f" ({detail})"
        super().__init__(message)


class ModelLoadError(ProbekitError, OSError):
    """A checkpoint could not be found or loaded."""


class MissingMLMHeadError(ProbekitError, ValueError):
    """A computation needs a masked-LM head that the checkpoint does not have."""


class MissingSentencesError(ProbekitError, ValueError):
    """Words of a word list have no sentence in the corpus."""

    def __init__(self, message: str, missing: list[str]):
        self.missing = list(missing)
        super().__init__(message)


class InputFileError(ProbekitError, ValueError):
    """An input file is missing, unreadable or malformed."""


class NotFittedError(ProbekitError, ValueError, AttributeError):
    """An estimator (an eraser, CDA, Context-debias) was used before ``fit``.

    The bases are those of :class:`sklearn.exceptions.NotFittedError` (ValueError and
    AttributeError), so scikit-learn's checks of unfitted estimators accept it; the message says
    which method to call first.
    """

    def __init__(self, estimator: Any, fit_call: str = "fit()"):
        name = estimator if isinstance(estimator, str) else type(estimator).__name__
        super().__init__(f"this {name} is not fitted yet; call {fit_call} first")
