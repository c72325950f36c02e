"""The SEAT suite (May et al. 2019) from the public jsonl layout, run on the SEAT engine.

Each test file ``NAME.jsonl`` holds ``targ1``, ``targ2``, ``attr1``, ``attr2``, each with a
``category`` and ``examples`` (words for ``weat*``, sentences for ``sent-*``). Every example is
encoded as a sentence by :func:`probekit.embedding.embed_sentences` (all tests' texts at once) and
the test is :func:`seat_test` with X, Y, A, B = targ1, targ2, attr1, attr2. The suite summary is the
benchmark's (Meade et al. 2022): the mean absolute effect size over tests.

Note: the public code averages the last hidden states over all tokens, special tokens included;
``embed_sentences``' ``"mean"`` pooling leaves special tokens out (say ``pooling="cls"`` for [CLS]).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from probekit.embedding import embed_sentences
from probekit.errors import InputFileError, InvalidParameterError
from probekit.intrinsic._crows_pairs import fmt_cell, write_rows_csv
from probekit.intrinsic._seat import seat_test
from probekit.utils import atomic_write_text, collect_provenance, write_json

SEAT_ROLES = {"targ1": "X", "targ2": "Y", "attr1": "A", "attr2": "B"}
SEAT_ALTERNATIVES = ("greater", "two-sided")
_EXT = ".jsonl"


@dataclass(frozen=True)
class SeatSuiteTest:
    """One published SEAT test: name, and per role (X, Y, A, B) its category and examples."""

    name: str
    categories: dict[str, str]
    examples: dict[str, tuple[str, ...]]


def _natural_key(name: str) -> tuple:
    """'weat10' after 'weat9' (numbers compared as numbers), as the public runner sorts tests."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def read_seat_test(path: str | os.PathLike) -> SeatSuiteTest:
    """Read one SEAT test file of the public layout (``targ1/targ2/attr1/attr2`` with ``examples``)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFileError(f"cannot read the SEAT test {str(path)!r} ({exc})") from None
    categories, examples = {}, {}
    for key, role in SEAT_ROLES.items():
        entry = data.get(key) if isinstance(data, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("examples"), list) or len(entry["examples"]) < 2:
            raise InputFileError(f"{path}: {key!r} needs 'examples' (a list of at least 2 texts); keys: targ1, targ2, attr1, attr2")
        categories[role] = str(entry.get("category", key))
        examples[role] = tuple(str(x) for x in entry["examples"])
    return SeatSuiteTest(path.name[: -len(_EXT)] if path.name.endswith(_EXT) else path.stem, categories, examples)


def read_seat_suite(directory: str | os.PathLike, *, tests: Sequence[str] | None = None) -> list[SeatSuiteTest]:
    """Every test of a SEAT release directory (``*.jsonl``), in natural order, or the named ``tests``."""
    root = Path(directory).expanduser()
    if not root.is_dir():
        raise InputFileError(f"no SEAT suite directory {str(directory)!r}; pass the folder of the published *.jsonl tests")
    available = sorted((p.name[: -len(_EXT)] for p in root.glob(f"*{_EXT}") if not p.name.startswith(".")), key=_natural_key)
    if not available:
        raise InputFileError(f"{root}: no *.jsonl SEAT test")
    chosen = list(tests) if tests else available
    unknown = [t for t in chosen if t not in available]
    if unknown:
        raise InvalidParameterError("tests", unknown, f"test names of {root}: {', '.join(available)}")
    return [read_seat_test(root / f"{name}{_EXT}") for name in chosen]


@dataclass
class SeatSuiteResult:
    """Results of a SEAT suite: per-test rows and the summary (mean absolute effect size)."""

    tests: list[dict[str, Any]]
    overall: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": "seat_suite", "overall": self.overall, "tests": self.tests, "provenance": self.provenance}

    def save(self, out_dir: str | os.PathLike) -> dict[str, Path]:
        """Write ``results.json``, ``tests.csv`` and ``summary.md`` into ``out_dir`` (atomically)."""
        out = Path(out_dir)
        paths = {"results": out / "results.json", "tests": out / "tests.csv", "summary": out / "summary.md"}
        write_json(paths["results"], self.to_dict())
        write_rows_csv(paths["tests"], [{k: v for k, v in row.items() if k != "categories"} for row in self.tests])
        atomic_write_text(paths["summary"], self.markdown())
        return paths

    def markdown(self) -> str:
        lines = [
            "# SEAT suite", "", f"Model: `{(self.provenance.get('model') or {}).get('name_or_path', '?')}`; "
            f"p-values {self.overall['alternative']}; mean |effect size| = {fmt_cell(self.overall['mean_abs_effect_size'], '.3f')}"
            f" over {self.overall['n_tests']} tests", "",
            "| test | X / Y vs A / B | effect size | interval | p |", "|---|---|---:|---|---:|",
        ]
        for row in self.tests:
            c = row["categories"]
            lines.append(f"| {row['test']} | {c['X']} / {c['Y']} vs {c['A']} / {c['B']} | {fmt_cell(row['effect_size'], '.3f')} | "
                         f"[{fmt_cell(row['ci_low'], '.3f')}, {fmt_cell(row['ci_high'], '.3f')}] | {fmt_cell(row['p_value'], '.3g')} |")
        return "\n".join(lines) + "\n"


def _test_row(test: SeatSuiteTest, sets: dict[str, np.ndarray], alternative: str, settings: dict[str, Any]) -> dict[str, Any]:
    result = seat_test(sets["X"], sets["Y"], sets["A"], sets["B"], name=test.name, **settings)
    p_value = result.p_value
    if alternative == "two-sided":
        # P(stat <= observed) is the one-sided p of the test with X and Y exchanged.
        lower = seat_test(sets["Y"], sets["X"], sets["A"], sets["B"], **{**settings, "n_bootstrap": 0}).p_value
        p_value = min(1.0, 2.0 * min(result.p_value, lower))
    low, high = result.effect_size_ci if result.effect_size_ci else (np.nan, np.nan)
    return {
        "test": test.name, "categories": dict(test.categories), "effect_size": result.effect_size, "ci_low": low,
        "ci_high": high, "p_value": p_value, "p_greater": result.p_value, "exact": result.exact,
        "statistic": result.statistic, "n_x": result.n_x, "n_y": result.n_y, "n_a": result.n_a, "n_b": result.n_b,
    }


def run_seat_suite(
    encoder: Any,
    suite: str | os.PathLike | Sequence[SeatSuiteTest],
    *,
    tests: Sequence[str] | None = None,
    alternative: str = "greater",
    pooling: str = "mean",
    layer: int = -1,
    n_permutations: int = 100_000,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    random_state: int = 0,
    batch_tokens: int | None = None,
    progress: bool = True,
) -> SeatSuiteResult:
    r"""Run every test of a SEAT release on an encoder (May et al. 2019; Meade et al. 2022).

    Parameters
    ----------
    encoder : Encoder
    suite : path or sequence of SeatSuiteTest
        A directory of ``*.jsonl`` tests in the public layout, or tests already read.
    tests : sequence of str, optional
        Only these test names (default: every file of the directory).
    alternative : {"greater", "two-sided"}
        ``"greater"``: the usual one-sided permutation p (share of re-partitions with a statistic
        at least the observed one); ``"two-sided"``: :math:`\min(1, 2\min(p_\ge, p_\le))`.
    pooling, layer
        Sentence pooling and hidden layer (:func:`probekit.embedding.embed_sentences`).
    n_permutations, n_bootstrap, confidence_level
        As in :func:`seat_test` (effect size with ddof=1; percentile bootstrap interval).
    random_state : int
        Seed of every test's permutations and bootstrap.
    batch_tokens, progress
        As in :func:`probekit.embedding.embed_sentences`.

    Returns
    -------
    SeatSuiteResult
        ``overall["mean_abs_effect_size"]`` is the benchmark's summary
        :math:`\frac{1}{T}\sum_t |d_t|`.
    """
    if alternative not in SEAT_ALTERNATIVES:
        raise InvalidParameterError("alternative", alternative, SEAT_ALTERNATIVES)
    loaded = read_seat_suite(suite, tests=tests) if isinstance(suite, (str, os.PathLike)) else list(suite)
    texts = list(dict.fromkeys(t for test in loaded for role in SEAT_ROLES.values() for t in test.examples[role]))
    vectors = embed_sentences(encoder, texts, pooling=pooling, layer=layer, batch_tokens=batch_tokens, progress=progress)
    row_of = {t: k for k, t in enumerate(texts)}
    settings = dict(n_permutations=n_permutations, random_state=random_state, n_bootstrap=n_bootstrap,
                    confidence_level=confidence_level)
    rows = []
    for test in loaded:
        sets = {role: vectors[[row_of[t] for t in test.examples[role]]] for role in SEAT_ROLES.values()}
        rows.append(_test_row(test, sets, alternative, settings))
    effects = np.asarray([r["effect_size"] for r in rows], dtype=float)
    overall = {"mean_abs_effect_size": float(np.mean(np.abs(effects))) if len(rows) else np.nan, "n_tests": len(rows),
               "alternative": alternative, "n_significant_05": int(sum(r["p_value"] < 0.05 for r in rows))}
    provenance = collect_provenance(
        model=encoder.describe(), seeds={"random_state": random_state},
        parameters={"suite": str(suite) if isinstance(suite, (str, os.PathLike)) else "in-memory tests",
                    "tests": [t.name for t in loaded], "pooling": pooling, "layer": layer, **settings},
    )
    return SeatSuiteResult(rows, overall, provenance)
