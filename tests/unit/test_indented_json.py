"""Answers are written as indented JSON by orjson, and by the standard library for what orjson
refuses, so writing an answer never fails."""

from __future__ import annotations

import json

import numpy as np

from explorer.core.codec import indented_json


def test_the_layout_is_the_standard_librarys() -> None:
    value = {"a": [1, 2], "b": {}, "c": [], "d": "ünï", "e": 0.25, "f": None, "g": True}
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_numpy_numbers_are_numbers() -> None:
    assert json.loads(indented_json({"x": np.float64(0.5), "n": np.int64(3)})) == {"x": 0.5, "n": 3}


def test_what_orjson_refuses_is_still_written() -> None:
    lone = "q\udc80"  # a lone surrogate, as a caller's argument name may carry
    written = indented_json({lone: 1, "big": 2**70})
    assert '"big": 1180591620717411303424' in written and lone in written
