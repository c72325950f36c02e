"""One numeric policy for every option: finite, in a stated range, and affordable.

:func:`check_numeric_options` runs in :func:`probekit.cli.main.main` on every parsed command, before
the command: every number an option received must be finite and inside the range :data:`RANGES`
states for it (declared with :class:`probekit.utils.Interval`); a seed must be in numpy's range
``[0, 2**32 - 1]``; a count that sizes an allocation (resamples, bootstraps, permutations, examples)
is checked against the memory it needs (:func:`probekit.utils.check_allocation`). The error names the
option as typed. Ranges narrower than these (a layer the model has, a length within its position
limit) are checked by the library against the data.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from probekit.errors import InvalidParameterError
from probekit.utils import Interval, check_allocation, check_parameter

_COUNT = Interval(int, 0, 10**7)  # resamples and bootstraps: 10**7 already gives p-values to 1e-7
_FRACTION = Interval(float, 0, 1, closed="neither")
_WEIGHT = Interval(float, 0, 1e6)

#: Ranges of the typed numeric options whose library owner declares no constraint (benchmarks,
#: extrinsic metrics, the synthetic data, Ray resources, ...). An option that sets a declared
#: parameter is added with :func:`probekit.cli._declared.add_declared` instead and checked against
#: the owner's declaration, and its entry here goes (``tests/unit/test_declarations.py`` fails on an
#: entry no typed option uses).
#: Option destination -> its stated range. Options not listed: any finite number.
RANGES: dict[str, list[Any]] = {
    "seed": ["random_state"],
    "layer": [Interval(int, -10**4, 10**4)],
    "max_per_word": [Interval(int, 0, 10**7), None],
    "bootstrap": [_COUNT],
    "batch_tokens": [Interval(int, 1, 2**31 - 1), None],
    "smoothing": [_WEIGHT],
    "confidence": [_FRACTION],
    "n_examples": [Interval(int, 1, 10**8), None],
    "folds": [Interval(int, 0, 10**4)],
    "train_gender_skew": [Interval(float, 0, 1)],
    "cue_strength": [Interval(float, 0, 1)],
    "ray_cpus_per_unit": [Interval(float, 0, 1e4)],
    "ray_gpus_per_unit": [Interval(float, 0, 1e4)],
}

#: Counts that size an allocation -> bytes one unit of the count needs at least (a float per
#: resample or permutation; a synthetic example's text, label and group).
ALLOCATIONS: dict[str, int] = {
    "bootstrap": 8,
    "n_examples": 1024,
}


def command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)parser that parsed the command in ``args`` (``probekit debias inlp``: inlp's parser)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(args, action.dest, None)
            if chosen in action.choices:
                return command_parser(action.choices[chosen], args)
    return parser


def numeric_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options of ``parser`` that take numbers (``type=int`` or ``type=float``)."""
    return [a for a in parser._actions if a.option_strings and a.type in (int, float)]


def check_numeric_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Every number of the parsed command finite, in its stated range (:data:`RANGES`) and affordable.

    Raises
    ------
    InvalidParameterError
        Naming the option as typed (``--n-resamples``), the value and the range.
    """
    for action in numeric_actions(command_parser(parser, args)):
        value = getattr(args, action.dest, None)
        if value is None and action.default is None:
            continue
        option = max(action.option_strings, key=len)
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, float) and not math.isfinite(item):
                raise InvalidParameterError(option, item, "a finite number")
            check_parameter(item, option, RANGES.get(action.dest) or [Interval(action.type, -(2**63), 2**63 - 1)])
            if action.dest in ALLOCATIONS and item is not None:
                check_allocation(item, ALLOCATIONS[action.dest], option)
