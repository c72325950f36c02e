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
