"""The protected attribute of a study (``[intrinsic] attribute``, ``probekit study --attribute NAME``).

A study of gender (the default) runs the paper's suite. A study of another attribute (race, religion,
a registered one; :func:`wordlists.get_attribute`) runs, per (encoder, method):

- the k-class probe of the attribute's group terms (:func:`probekit.intrinsic.run_attribute_probe`:
  readers, MDL, the verdict with chance 1/k, k-group LPBS where the encoder has a masked-LM head), on
  the attribute's template corpus (:func:`probekit.text.attribute_corpus`) unless ``[corpus]`` names
  one;
- methods debiased for the attribute: INLP, LEACE, RLACE and Sent-debias fitted on its k groups
  (``fit_from_encoder(attribute=)``), CDA with the k-group counterfactuals (``CDA(attribute=)``),
  Self-Debias with the survey's prefix of the attribute (:func:`debias.debiasing_prefixes`); Dropout
  trains on the corpus as it is (one model for every attribute, as in Meade et al. 2022). A method
  with no attribute form (Context-debias, concept scrubbing) is refused by name, never run as gender;
- the benchmarks of ``[benchmarks]`` restricted to the attribute: CrowS-Pairs to its bias type
  (race: ``race-color``), StereoSet to its domain, the SEAT suite to the survey's tests of the
  attribute (:data:`probekit.intrinsic.SEAT_ATTRIBUTE_TESTS`), unless the table names its own;
- the fine-tuning units with k groups (:func:`probekit.finetune.run_fold` with ``attribute``): data
  carrying the attribute's groups (synthetic race biographies, Jigsaw race and religion) and the settings
  defined for k groups (:data:`probekit.finetune.K_GROUP_SETTINGS`); the rest is refused by name, as is
  ``[sweep]`` (the dose-response sweep measures gender only).

Everything resolved here is written into the configuration (the methods' options, the benchmarks'
lists, the corpus record), so the unit ids and ``study.json`` carry the attribute: a gender study and a
race study never share a unit or a debiased encoder. A gender study's configuration, ids and records are
what they were before attributes reached the study.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

import wordlists
from debias import debiasing_prefixes
from probekit.errors import InvalidParameterError
from probekit.finetune import K_GROUP_SETTINGS
from probekit.intrinsic import SEAT_ATTRIBUTE_TESTS, run_attribute_probe, run_probe_suite

__all__ = ["ATTRIBUTE_METHODS", "BENCHMARK_BIAS_TYPES", "check_attribute_options", "study_attribute",
           "resolve_study_attribute"]

logger = logging.getLogger(__name__)

#: How each debiasing method is made for an attribute other than gender: "fit" (``attribute`` keyword of
#: its fit or constructor), "prefixes" (Self-Debias: the attribute's prefix), "as-is" (Dropout: nothing
#: attribute-specific). A method missing here has no attribute form and is refused.
ATTRIBUTE_METHODS: dict[str, str] = {"sent-debias": "fit", "inlp": "fit", "leace": "fit", "rlace": "fit",
                                     "cda": "fit", "self-debias": "prefixes", "dropout": "as-is"}

#: Dataset kinds of the fine-tuning grid -> the k-group attributes their data carry (probekit.finetune.load_data).
_GROUP_DATA: dict[str, tuple[str, ...]] = {"synthetic": ("race",), "jigsaw": ("race", "religion")}

#: attribute -> (CrowS-Pairs bias type, StereoSet domain), as the two benchmarks name them.
BENCHMARK_BIAS_TYPES: dict[str, tuple[str, str]] = {"gender": ("gender", "gender"), "race": ("race-color", "race"),
                                                    "religion": ("religion", "religion")}


def check_attribute_options(name: str, table: Mapping[str, Any], *, from_command_line: bool = False) -> None:
    """An ``[intrinsic]`` option of the gender suite only (SEAT's permutations, the gender probe's classifier,
    ...) in a study of another attribute, whose k-class probe has no use for it: refused by name when the
    file names the attribute; logged as ignored when ``probekit study --attribute`` turned a gender
    configuration (e.g. the default one) into this study.
    """
    if name == "gender" or not isinstance(table, Mapping):
        return
    import inspect

    own = set(inspect.signature(run_attribute_probe).parameters) | {"attribute", "readers", "C", "class_weight",
                                                                     "single_piece_only"}
    gender_only = sorted(set(table) & (set(inspect.signature(run_probe_suite).parameters) - own))
    if gender_only and from_command_line:
        logger.warning("--attribute %s: the configuration's [intrinsic] options of the gender suite are not used by "
                       "the k-class probe: %s", name, ", ".join(gender_only))
    elif gender_only:
        raise InvalidParameterError(f"intrinsic.{gender_only[0]}", table[gender_only[0]],
                                    f"no {gender_only[0]} in a {name} study (the k-class probe's options: "
                                    + ", ".join(sorted(own - {"encoder", "corpus", "cache_dir", "progress"})) + ")",
                                    "it belongs to the gender suite (SEAT, the gender probe, LPBS on gender words)")


def study_attribute(intrinsic: Mapping[str, Any]) -> str:
    """The attribute of a study's ``[intrinsic]`` table (``"gender"`` when it names none)."""
    return str(intrinsic.get("attribute", "gender"))


def _check_name(value: Any) -> str:
    if not isinstance(value, str) or value not in wordlists.attribute_names():
        raise InvalidParameterError("[intrinsic] attribute", value, tuple(wordlists.attribute_names()),
                                    "a built-in or registered attribute (wordlists.register_attribute)")
    return value


def _resolve_methods(name: str, study: Mapping[str, Any], methods: dict[str, dict[str, Any]]) -> None:
    """Each method of the grid made for ``name`` (options written into ``methods``), or refused."""
    for method in study["methods"]:
        if method == "none":
            continue
        form = ATTRIBUTE_METHODS.get(method)
        if form is None:
            raise InvalidParameterError(
                "study.methods", method, f"a method with a {name} form: none, {', '.join(ATTRIBUTE_METHODS)}",
                f"{method} debiases gender only; it is not run as gender in a {name} study")
        options = methods.setdefault(method, {})
        if form == "fit":
            given = options.get("attribute", name)
            if given != name:
                raise InvalidParameterError(f"methods.{method}.attribute", given, f"{name!r} (the study's attribute) "
                                            "or no key")
            options["attribute"] = name
        elif form == "prefixes" and not options.get("prefixes"):
            options["prefixes"] = list(debiasing_prefixes(name))
        methods[method] = dict(sorted(options.items()))
        if not methods[method]:
            del methods[method]


def _resolve_benchmarks(name: str, benchmarks: dict[str, Any]) -> None:
    """CrowS-Pairs, StereoSet and the SEAT suite restricted to the attribute unless the table names its own."""
    types = BENCHMARK_BIAS_TYPES.get(name)
    for benchmark, key, index, what in (("crows_pairs", "crows_bias_types", 0, "CrowS-Pairs bias types"),
                                        ("stereoset", "stereoset_domains", 1, "StereoSet domains")):
        if benchmarks.get(benchmark) and benchmarks.get(key) is None:
            if types is None:
                raise InvalidParameterError(f"[benchmarks] {key}", None, f"the {what} of {name!r}",
                                            f"{what} exist for {', '.join(BENCHMARK_BIAS_TYPES)} only")
            benchmarks[key] = [types[index]]
    if benchmarks.get("seat_suite") and benchmarks.get("seat_tests") is None:
        if name not in SEAT_ATTRIBUTE_TESTS:
            raise InvalidParameterError("[benchmarks] seat_tests", None, f"the SEAT suite's tests of {name!r}",
                                        f"the suite has tests for {', '.join(SEAT_ATTRIBUTE_TESTS)} only")
        benchmarks["seat_tests"] = list(SEAT_ATTRIBUTE_TESTS[name])


def _check_finetune(name: str, study: Mapping[str, Any], datasets: Sequence[Mapping[str, Any]]) -> None:
    """The fine-tuning grid of a k-group study: its settings and datasets must have a k-group form
    (:func:`probekit.finetune.run_finetune` with ``attribute``), else they are refused by name.
    """
    for setting in study["settings"]:
        if setting not in K_GROUP_SETTINGS:
            raise InvalidParameterError("study.settings", setting, f"one of {', '.join(K_GROUP_SETTINGS)} in a {name} study",
                                        f"{setting} is defined for gender only (its discriminator is a binary gender head)")
    for dataset in datasets:
        valid = _GROUP_DATA.get(dataset["kind"], ())
        if name not in valid:
            raise InvalidParameterError(f"datasets.{dataset['name']}.kind", dataset["kind"],
                                        f"a kind whose data carries {name} groups: "
                                        + ", ".join(k for k, v in _GROUP_DATA.items() if name in v),
                                        f"{dataset['kind']} data carries {', '.join(valid) or 'gender only'}")


def resolve_study_attribute(study: Mapping[str, Any], intrinsic: dict[str, Any], methods: dict[str, dict[str, Any]],
                            benchmarks: dict[str, Any], sweep: Any, datasets: Sequence[Mapping[str, Any]] = ()) -> str:
    """Check the study's attribute and make every part of the study for it (in place); returns its name.

    ``[intrinsic] attribute = "gender"`` is dropped from ``intrinsic`` (a gender study records what it
    always did). A method's own ``attribute`` option must be the study's. For another attribute, ``[sweep]``
    is refused by name (it measures gender only), as are a method without an attribute form and a
    setting or dataset of the fine-tuning grid without a k-group form.

    Raises
    ------
    InvalidParameterError
        An unknown attribute, a method or part of the study that has no form for it.
    """
    name = _check_name(intrinsic.get("attribute", "gender"))
    for method, options in methods.items():  # the report labels every method with the study's attribute
        if options.get("attribute", name) != name:
            raise InvalidParameterError(f"methods.{method}.attribute", options["attribute"],
                                        f"{name!r} (the study's attribute) or no key")
    if name == "gender":
        intrinsic.pop("attribute", None)
        return name
    if study["finetune"]:
        _check_finetune(name, study, datasets)
    if sweep is not None:
        raise InvalidParameterError("[sweep]", sorted(sweep) if isinstance(sweep, Mapping) else sweep,
                                    f"no [sweep] table in a {name} study",
                                    "the dose-response sweep measures gender only")
    _resolve_methods(name, study, methods)
    _resolve_benchmarks(name, benchmarks)
    return name
