"""Parameter declarations: one home per rule (probekit.utils._constraints)."""

from __future__ import annotations

import argparse
import math

import pytest

from probekit.errors import InvalidParameterError
from probekit.utils import (
    MAX_SEED,
    Interval,
    Options,
    check_choice,
    check_number,
    check_parameter,
    declared_constraints,
    declared_defaults,
    describe_constraints,
    parse_declared,
    validate_parameters,
)


@pytest.mark.parametrize(
    "interval, inside, outside",
    [
        (Interval(int, 1, None), [1, 2, 10**12], [0, -1, 1.5, True, float("nan"), "1"]),
        (Interval(float, 0, 1, closed="left"), [0, 0.5, 0.999], [1, 1.0, -1e-9, math.inf, math.nan]),
        (Interval(float, 0, 1, closed="right"), [1, 0.5, 1e-12], [0, 1.0001]),
        (Interval(float, 0, 1, closed="neither"), [0.5], [0, 1]),
        (Interval(float, None, None), [-1e300, 0, 1e300], [math.inf, -math.inf, math.nan, None]),
    ],
)
def test_interval_bounds(interval, inside, outside):
    for value in inside:
        assert interval.accepts(value), value
    for value in outside:
        assert not interval.accepts(value), value


def test_descriptions_say_the_range_as_a_reader_expects():
    assert Interval(int, 1, None).describe() == "an integer >= 1"
    assert Interval(float, 0, 1, closed="left").describe() == "a number in [0, 1)"
    assert Interval(float, 0, None, closed="neither").describe() == "a number > 0"
    assert Interval(float, None, 1e-3).describe() == "a number <= 0.001"
    assert describe_constraints([Interval(int, 1, None), None]) == "an integer >= 1 or None"
    assert describe_constraints([Options("a", "b")]) == "one of 'a', 'b'"
    assert str(MAX_SEED) in describe_constraints(["random_state"])


def test_check_parameter_names_the_parameter_value_and_range():
    with pytest.raises(InvalidParameterError, match=r"invalid --max-length=2; expected an integer >= 3"):
        check_parameter(2, "--max-length", [Interval(int, 3, None)])
    assert check_parameter(None, "k", [Interval(int, 1, None), None]) is None


def test_options_keep_bool_apart_from_integers():
    assert Options(0, 1).accepts(0)
    assert not Options(0, 1).accepts(False)
    assert Options(True, False).accepts(True)
    assert not Options(True).accepts(1)


def test_random_state_is_numpys_range():
    assert check_parameter(MAX_SEED, "seed", ["random_state"]) == MAX_SEED
    for bad in (-1, MAX_SEED + 1, 2**70, 1.0, True):
        with pytest.raises(InvalidParameterError, match="seed"):
            check_parameter(bad, "seed", ["random_state"])


class _Base:
    _parameter_constraints = {"a": [Interval(int, 1, None)], "b": [Options("x", "y")]}

    def __init__(self, a: int = 1, b: str = "x"):
        self.a, self.b = a, b


class _Child(_Base):
    _parameter_constraints = {"b": [Options("x", "y", "z")], "c": ["boolean"]}

    def __init__(self, a: int = 2, b: str = "z", c: bool = False):
        super().__init__(a, b)
        self.c = c


def test_declarations_merge_along_the_bases_child_wins():
    merged = declared_constraints(_Child)
    assert merged["a"] == [Interval(int, 1, None)]
    assert merged["b"] == [Options("x", "y", "z")]
    assert declared_defaults(_Child) == {"a": 2, "b": "z", "c": False}


def test_validate_parameters_uses_the_users_names():
    with pytest.raises(InvalidParameterError, match=r"invalid --a=0"):
        validate_parameters({"a": 0, "b": "x"}, declared_constraints(_Child), names={"a": "--a"})
    assert validate_parameters({"a": 3, "unknown": object()}, declared_constraints(_Child))["a"] == 3


def test_parse_declared_is_an_argparse_type_that_checks_the_declaration():
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--a", type=parse_declared(_Child, "a", "--a"))
    parser.add_argument("--b", type=parse_declared(_Child, "b", "--b"))
    assert parser.parse_args(["--a", "5", "--b", "z"]).a == 5
    for argv in (["--a", "0"], ["--a", "1.5"], ["--a", "nan"], ["--b", "w"]):
        with pytest.raises(argparse.ArgumentError, match="expected"):
            parser.parse_args(argv)


def test_the_older_helpers_are_thin_wrappers_with_the_same_messages():
    with pytest.raises(InvalidParameterError, match=r"expected a number in \(0, 1\)"):
        check_number(1, "x", minimum=0, maximum=1, exclusive=True)
    with pytest.raises(InvalidParameterError, match=r"\(or none\)"):
        check_number(-1, "x", minimum=0, allow_none=True)
    with pytest.raises(InvalidParameterError, match="one of 'a', 'b'"):
        check_choice("c", "x", ["a", "b"])
