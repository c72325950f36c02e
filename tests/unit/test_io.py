"""Atomic writes and JSON conversion."""

from __future__ import annotations

import json
import math
import types

import numpy as np
import pytest

from probekit.utils import atomic_path, dumps_json, write_json


def test_json_conversion_of_numpy_nan_and_read_only_mappings(tmp_path):
    data = {"a": np.float32(1.5), "b": np.arange(3), "c": float("nan"), "d": types.MappingProxyType({"x": np.int64(2)})}
    parsed = json.loads(dumps_json(data))
    assert parsed == {"a": 1.5, "b": [0, 1, 2], "c": None, "d": {"x": 2}}
    write_json(tmp_path / "r.json", data)
    assert json.loads((tmp_path / "r.json").read_text()) == parsed


def test_failed_write_leaves_nothing_behind(tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []


def test_non_finite_values_never_reach_the_file():
    assert json.loads(dumps_json([math.inf, -math.inf])) == [None, None]


# ------------------------------------------------------------------------------ the one output-path policy

from probekit.errors import InvalidParameterError  # noqa: E402
from probekit.utils import (  # noqa: E402
    check_output_dir,
    check_output_file,
    check_within,
    removing_created_dirs,
    safe_name,
)


def test_output_dir_policy_new_empty_own_kind_and_others(tmp_path):
    assert check_output_dir(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()  # checked, nothing created
    (tmp_path / "empty").mkdir()
    check_output_dir(tmp_path / "empty")
    ours = tmp_path / "ours"
    ours.mkdir()
    (ours / "run.json").write_text("{}")
    with pytest.raises(InvalidParameterError, match="already holds files; pass resume"):
        check_output_dir(ours, marker="run.json", reuse_option="resume")
    assert check_output_dir(ours, marker="run.json", reuse=True) == ours
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(InvalidParameterError, match="holds other files"):
        check_output_dir(other, marker="run.json", reuse=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidParameterError, match="a file of that name exists"):
        check_output_dir(tmp_path / "file")
    with pytest.raises(InvalidParameterError, match="is a file, not a directory"):
        check_output_dir(tmp_path / "file" / "sub")
    assert (other / "notes.txt").read_text() == "keep me"


def test_output_file_policy_names_the_path_as_given(tmp_path):
    check_output_file(tmp_path / "a" / "b.json")
    assert not (tmp_path / "a").exists()
    with pytest.raises(InvalidParameterError, match="directory of that name exists"):
        check_output_file(tmp_path, parameter="--out")
    with pytest.raises(InvalidParameterError, match=r"ending in \.npz"):
        check_output_file(tmp_path / "x.txt", suffix=".npz")
    with pytest.raises(InvalidParameterError, match="'/proc/x/out.json'"):
        check_output_file("/proc/x/out.json", parameter="--out")


def test_failed_call_removes_only_the_empty_dirs_it_created(tmp_path):
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(RuntimeError):
        with removing_created_dirs(out):
            out.mkdir(parents=True)
            raise RuntimeError("failed")
    assert list(tmp_path.iterdir()) == []
    kept = tmp_path / "kept"
    kept.mkdir()
    with pytest.raises(RuntimeError):
        with removing_created_dirs(kept, tmp_path / "full"):
            (tmp_path / "full").mkdir()
            (tmp_path / "full" / "f").write_text("x")
            raise RuntimeError("failed")
    assert kept.is_dir() and (tmp_path / "full" / "f").is_file()


@pytest.mark.parametrize("name", [".", "..", "", "./", "../", "/", "...", "a/../..", "tiny\n", "-", "._"])
def test_safe_name_is_never_a_path_step(name):
    slug = safe_name(name)
    assert slug not in {"", ".", ".."} and "/" not in slug and "\n" not in slug and not slug.startswith(".")


def test_check_within(tmp_path):
    check_within(tmp_path / "x" / "y", tmp_path)
    with pytest.raises(InvalidParameterError, match="outside"):
        check_within(tmp_path / ".." / "z", tmp_path)


# ------------------------------------------------------------------------------------- one set of checks

from probekit.utils import check_annotated_type, check_number, npz_declared_sizes  # noqa: E402


@pytest.mark.parametrize(
    ("value", "kwargs", "ok"),
    [
        (1, dict(integer=True, minimum=1), True),
        (0, dict(integer=True, minimum=1), False),
        (1.5, dict(integer=True, minimum=1), False),
        (True, dict(integer=True), False),
        (0.0, dict(minimum=0, maximum=1, exclusive=True), False),
        (0.5, dict(minimum=0, maximum=1, exclusive=True), True),
        (float("nan"), dict(), False),
        (None, dict(allow_none=True), True),
        (None, dict(), False),
    ],
)
def test_check_number(value, kwargs, ok):
    if ok:
        assert check_number(value, "x", **kwargs) == value
    else:
        with pytest.raises(InvalidParameterError, match="invalid x="):
            check_number(value, "x", **kwargs)


@pytest.mark.parametrize(
    ("value", "annotation", "ok"),
    [(3, "int | None", True), ("a", "int | None", False), ("cv", "float | str", True), ([1, 2], "Sequence[int]", True),
     (True, "int", False), ({"a": 1}, "Any", True), (1.5, "", True), ("x", "np.random.Generator | int", False)],
)
def test_check_annotated_type(value, annotation, ok):
    if ok:
        assert check_annotated_type(value, annotation, "[t] k") == value
    else:
        with pytest.raises(InvalidParameterError, match=r"\[t\] k"):
            check_annotated_type(value, annotation, "[t] k")


def test_npz_sizes_are_checked_against_the_file(tmp_path):
    from probekit.errors import InputFileError

    np.savez(tmp_path / "ok.npz", a=np.zeros((2, 3)))
    assert npz_declared_sizes(tmp_path / "ok.npz") == {"a": 48}
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(InputFileError, match="not a readable .npz"):
        npz_declared_sizes(tmp_path / "text.npz")


def test_atomic_directory_replaces_the_whole_directory_or_nothing(tmp_path):
    from probekit.utils import atomic_directory

    target = tmp_path / "out" / "run"
    with atomic_directory(target) as staging:
        (staging / "a.txt").write_text("first")
    assert sorted(p.name for p in target.iterdir()) == ["a.txt"]
    with atomic_directory(target) as staging:
        (staging / "b.txt").write_text("second")
    assert sorted(p.name for p in target.iterdir()) == ["b.txt"]  # replaced as a whole, not merged
    try:
        with atomic_directory(target) as staging:
            (staging / "c.txt").write_text("half")
            raise RuntimeError("interrupted")
    except RuntimeError:
        pass
    assert sorted(p.name for p in target.iterdir()) == ["b.txt"]  # a failed write changes nothing
    assert sorted(p.name for p in target.parent.iterdir()) == ["run"]  # no staging or old directory left
