"""Each rule written once: the command line and the study enforce exactly the constraint that the
estimator or configuration class declares (issue 23).

For every registered debiasing method, the fine-tuning configuration and the probe suite, every
declared parameter is probed with values just inside and just outside its declaration; the study's
configuration table and every command-line option that sets the parameter must accept and refuse
exactly what :func:`probekit.utils.check_parameter` accepts and refuses.
"""

from __future__ import annotations

import argparse
import math

import pytest

from debias import DEBIAS_METHODS
from probekit.cli._declared import declared_options, owner_class
from probekit.cli.main import build_parser
from probekit.errors import InvalidParameterError
from probekit.finetune import FinetuneConfig
from probekit.intrinsic import run_probe_suite
from probekit.study import parse_config
from probekit.utils import Interval, Options, check_parameter, declared_constraints, declared_defaults


def _candidates(constraints: list) -> list:
    """Values on both sides of every alternative's edges, plus values of the wrong kind."""
    values: list = ["text", True, math.nan, math.inf, 1.5, -1, 0, 1, 2**40]
    for alternative in constraints:
        if isinstance(alternative, Interval):
            step = 1 if alternative.kind is int else 1e-9
            for edge in (alternative.low, alternative.high):
                if edge is not None:
                    values += [edge - step, edge, edge + step]
        elif isinstance(alternative, Options):
            values += list(alternative.values) + ["not-an-option"]
    return values


def _accepts(constraints: list, value) -> bool:
    try:
        check_parameter(value, "x", constraints)
    except InvalidParameterError:
        return False
    return True


def _owners() -> list[tuple[str, object, str]]:
    """(study table, owner, study key prefix) of every declaration the study reads."""
    owners = [(f"methods.{name}", method.estimator, name) for name, method in DEBIAS_METHODS.items()]
    return owners + [("finetune", FinetuneConfig, ""), ("intrinsic", run_probe_suite, "")]


def test_every_numeric_hyperparameter_is_declared():
    """A numeric or choice hyperparameter of an estimator without a declaration is checked nowhere."""
    for _, owner, _ in _owners():
        declared = declared_constraints(owner)
        for name, default in declared_defaults(owner).items():
            if isinstance(default, (int, float)) and not isinstance(default, bool) and name not in declared:
                pytest.fail(f"{getattr(owner, '__name__', owner)}.{name} has no declared constraint")


def _study(table: str, key: str, value) -> dict:
    minimal = {"encoders": [{"label": "m", "model": "default"}]}
    if table.startswith("methods."):
        return {**minimal, "methods": {table.split(".", 1)[1]: {key: value}}}
    return {**minimal, table: {key: value}}


@pytest.mark.parametrize("table, owner", [(t, o) for t, o, _ in _owners()], ids=[t for t, _, _ in _owners()])
def test_the_study_enforces_the_declared_constraint(table, owner):
    for key, constraints in declared_constraints(owner).items():
        if key in ("seed", "random_state", "device"):  # the study's own [study] seed and [run] device set these
            continue
        if key == "attribute" and (table == "intrinsic" or table.startswith("methods.")):
            continue  # a name, the study's for every method (tests/integration/test_study_attribute.py)
        for value in _candidates(constraints):
            if value is None or (isinstance(value, float) and not math.isfinite(value) and not math.isnan(value)):
                continue  # TOML has no None; inf passes through the same check as nan
            expected = _accepts(constraints, value)
            try:
                parse_config(_study(table, key, value))
                accepted = True
            except InvalidParameterError as exc:
                accepted = False
                assert key in str(exc), (table, key, value, str(exc))
            assert accepted == expected, (table, key, value)


def _command_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every (sub)subcommand parser, by its prog."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser) -> None:
        found[parser.prog] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    walk(child)

    walk(build_parser())
    return found


def test_every_declared_option_enforces_its_owners_constraint():
    checked = 0
    for prog, parser in _command_parsers().items():
        required = [a.option_strings[0] for a in parser._actions if a.required and a.option_strings]
        for option, owner, parameter, none_text in declared_options(parser).values():
            constraints = declared_constraints(owner_class(owner))[parameter]
            for value in _candidates(constraints):
                if value is None or isinstance(value, bool):
                    continue
                text = repr(value) if isinstance(value, float) else str(value)
                expected = _accepts(constraints, None if text in none_text else value)
                try:
                    parser.parse_known_args([*[x for r in required for x in (r, "x")], f"{option}={text}"])
                    accepted = True
                except InvalidParameterError as exc:
                    accepted = False
                    assert option in str(exc), (prog, option, text, str(exc))
                    if expected and "memory" in str(exc):
                        continue  # declared, but more than this machine can hold (the allocation guard)
                assert accepted == expected, (prog, option, text)
                checked += 1
    assert checked > 100  # the debias training commands and finetune declare their options


def test_declared_defaults_are_the_library_defaults():
    """An option without a value takes the owner's default (unless the command documents its own)."""
    parsers = _command_parsers()
    args = parsers["probekit debias cda"].parse_known_args(["--out", "x"])[0]
    cda = declared_defaults(DEBIAS_METHODS["cda"].estimator)
    assert (args.steps, args.batch_size, args.lr, args.max_length) == (
        cda["steps"], cda["batch_size"], cda["learning_rate"], cda["max_length"])
    args = parsers["probekit finetune"].parse_known_args(["--out", "x"])[0]
    config = declared_defaults(FinetuneConfig)
    assert (args.epochs, args.lr, args.batch_size, args.max_length, args.adversarial_lambda, args.adversary_lr) == (
        config["epochs"], config["learning_rate"], config["batch_size"], config["max_length"],
        config["adversarial_lambda"], config["adversary_learning_rate"])


def test_the_cli_range_table_holds_only_options_without_a_declaration():
    """probekit.cli._numbers.RANGES covers typed options whose owner declares nothing; an option moved to
    a declaration (add_declared) is no longer typed, so its entry would be a dead second copy."""
    from probekit.cli._numbers import ALLOCATIONS, RANGES

    typed = {a.dest for parser in _command_parsers().values() for a in parser._actions
             if a.option_strings and a.type in (int, float)}
    declared = {dest for parser in _command_parsers().values() for dest in declared_options(parser)}
    assert not set(RANGES) - typed, sorted(set(RANGES) - typed)
    assert not set(ALLOCATIONS) - typed, sorted(set(ALLOCATIONS) - typed)
    assert declared, "no command declares an option"


@pytest.mark.parametrize("key, owner, parameter", [
    ("stereoset_n_resamples", "stereoset", "n_resamples"),
    ("seat_n_permutations", "run_seat_suite", "n_permutations"),
    ("seat_n_bootstrap", "run_seat_suite", "n_bootstrap"),
    ("pppl_max_sentences", "pseudo_perplexity", "max_sentences"),
    ("confidence_level", "crows_pairs", "confidence_level"),
    ("batch_tokens", "crows_pairs", "batch_tokens"),
])
def test_the_study_benchmarks_table_enforces_the_benchmarks_declarations(key, owner, parameter):
    import probekit.intrinsic

    constraints = declared_constraints(getattr(probekit.intrinsic, owner))[parameter]
    for value in _candidates(constraints):
        if value is None or (isinstance(value, float) and math.isinf(value)):
            continue
        expected = _accepts(constraints, value)
        try:
            parse_config({"encoders": [{"label": "m", "model": "default"}], "benchmarks": {"pppl": True, key: value}})
            accepted = True
        except InvalidParameterError as exc:
            accepted = False
            assert key in str(exc), (key, value, str(exc))
        assert accepted == expected, (key, value)


def test_a_study_of_another_attribute_refuses_what_measures_gender_only_by_name():
    """[intrinsic] attribute = "race" runs a race study (tests/integration/test_study_attribute.py); the
    default grid's adversarial setting (a binary gender discriminator) is refused by name; an unknown attribute too."""
    with pytest.raises(InvalidParameterError, match=r"study\.settings.*adversarial.*race"):
        parse_config(_study("intrinsic", "attribute", "race"))
    with pytest.raises(InvalidParameterError, match=r"\[intrinsic\] attribute.*religion"):
        parse_config(_study("intrinsic", "attribute", "colour"))
    assert "attribute" not in parse_config(_study("intrinsic", "attribute", "gender")).intrinsic
