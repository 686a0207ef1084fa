"""The point reader's error table (``TurnConfig.point_errors``): how it ships, how a malformed one is refused,
and how ``tools/fit_turn_reader.py`` bounds an error rate from what it counted (issue 44, item 5: a turn is
ruled illegal only where the picture contradicts every legal play beyond what the reader's calibration says
it can be wrong by)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from willughby.vision.turns_config import TurnConfig, default_config, load_calibration, load_point_errors

ROOT = Path(__file__).resolve().parents[2]


def _fit_tool():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("fit_turn_reader", ROOT / "tools" / "fit_turn_reader.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _write(tmp_path: Path, table: object) -> Path:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"temperature": 1.5, "config": {}, "point_errors": table}), encoding="utf-8")
    load_calibration.cache_clear()
    return path


def test_the_shipped_table_says_what_it_was_fitted_on_and_falls_as_the_confidence_rises():
    doc = load_calibration()["point_errors"]
    assert doc["fitted_on"]["style_set"] == "held-out-fit" and doc["command"].startswith("python tools/")
    pairs = default_config().point_errors
    assert len(pairs) == len(doc["edges"]) >= 4
    assert all(a[0] < b[0] and a[1] >= b[1] for a, b in zip(pairs, pairs[1:]))
    # each bound is no less than the share misread (a bound, not the rate itself)
    assert all(u >= w / n for u, w, n in zip(doc["upper"], doc["wrong"], doc["points"]) if n)


@pytest.mark.parametrize("table", [
    {"edges": [0.9, 0.99], "upper": [0.01]},                     # lengths differ
    {"edges": [0.99, 0.9], "upper": [0.01, 0.001]},              # not rising
    {"edges": [0.9, 0.99], "upper": [0.001, 0.01]},              # a surer bin claiming more error
    {"edges": [0.9, 1.5], "upper": [0.01, 0.001]},               # not a probability
    {"edges": ["a", 0.99], "upper": [0.01, 0.001]},
    [0.9, 0.01],
])
def test_a_malformed_table_is_not_taken_and_the_doubt_itself_is_the_error(tmp_path, table):
    path = _write(tmp_path, table)
    try:
        assert load_point_errors(path) == ()
        assert default_config(path).reader_error(0.97) == pytest.approx(0.03)
    finally:
        load_calibration.cache_clear()


def test_a_good_table_is_looked_up_by_bin(tmp_path):
    path = _write(tmp_path, {"edges": [0.9, 0.99], "upper": [0.02, 0.001]})
    try:
        cfg = default_config(path)
        assert cfg.point_errors == ((0.9, 0.02), (0.99, 0.001))
        assert (cfg.reader_error(0.5), cfg.reader_error(0.95), cfg.reader_error(0.995)) == (1.0, 0.02, 0.001)
    finally:
        load_calibration.cache_clear()
    assert TurnConfig().reader_error(0.9) == pytest.approx(0.1)


def test_the_fit_bounds_an_error_rate_from_above_and_claims_little_from_few_points():
    fit = _fit_tool()
    # none misread of 300: the "rule of three", about 1%
    assert fit.error_upper(0, 300) == pytest.approx(1 - 0.05 ** (1 / 300), rel=1e-3)
    assert 0.0099 < fit.error_upper(0, 300) < 0.0101
    assert fit.error_upper(3, 1000) > 0.003 and fit.error_upper(3, 1000) < 0.01
    assert fit.error_upper(0, 0) == 1.0 and fit.error_upper(5, 5) == 1.0
    table = fit.error_table([(0.95, True)] * 300 + [(0.995, True)] * 3000 + [(0.6, False)] * 10)
    assert table["points"][table["edges"].index(0.95)] == 300
    assert table["upper"][table["edges"].index(0.5)] == 1.0           # all misread there
    # a bin with no points claims no less error than the surer bins' bounds, never zero
    assert table["upper"][table["edges"].index(0.97)] >= table["upper"][table["edges"].index(0.99)] > 0
