"""The drift detector on synthetic series (issue #18): steps, outliers, walks, short history."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from aeon_evals.model import DriftMode
from aeon_evals.model.drift import DEFAULT, Direction, Params, bound, detect, parse_drift_spec

START = date(2026, 3, 1)


def weekly(values: list[float]) -> list[tuple[date, float]]:
    return [(START + timedelta(days=7 * i), v) for i, v in enumerate(values)]


def noisy(n: int, level: float, spread: float, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [level * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


BASE = noisy(8, 570, 0.05)


def test_a_40_percent_step_down_is_flagged_on_its_second_run_and_dated_at_the_first() -> None:
    first = weekly([*BASE, 342])
    assert detect(first, Direction.HIGHER_BETTER) is None  # one run down: not yet
    second = weekly([*BASE, 342, 340])
    step = detect(second, Direction.HIGHER_BETTER)
    assert step is not None and step.worse
    assert step.since == second[8][0]
    assert step.runs == 2 and step.value == 340 and step.bound.points == 8
    text = step.describe("words")
    assert text.startswith("words 340 vs 5")
    assert text.endswith(f"(median of 8 runs), since {second[8][0].isoformat()}")


def test_the_step_keeps_its_first_day_on_later_runs_then_settles() -> None:
    values = [*BASE, 340, 338, 345]
    step = detect(weekly(values), Direction.HIGHER_BETTER)
    assert step is not None and step.runs == 3 and step.since == weekly(values)[8][0]
    assert step.bound.points == 8  # the baseline is the history before the step
    settled = [*BASE, *([340.0] * (DEFAULT.settle + 1))]
    assert detect(weekly(settled), Direction.HIGHER_BETTER) is None  # the new normal


def test_a_single_outlier_is_not_flagged() -> None:
    assert detect(weekly([*BASE, 200]), Direction.HIGHER_BETTER) is None
    assert detect(weekly([*BASE, 200, 565]), Direction.HIGHER_BETTER) is None


@pytest.mark.parametrize("seed", range(5))
def test_a_slow_noisy_walk_inside_the_bounds_is_not_flagged(seed: int) -> None:
    # a random walk of at most ±1 % a run under ±5 % noise, for a year of weekly runs
    rng = random.Random(seed)
    level, values = 500.0, []
    for n in range(52):
        level *= 1 + rng.uniform(-0.01, 0.01)
        values.append(level * (1 + rng.uniform(-0.05, 0.05)))
        assert detect(weekly(values), Direction.EITHER) is None, n


@pytest.mark.parametrize("n", range(0, 8))
def test_fewer_than_the_minimum_points_never_flags(n: int) -> None:
    # n runs of history, then two runs far away: only 6 runs before the step may judge it
    values = [*([100.0] * n), 10.0, 10.0]
    found = detect(weekly(values), Direction.EITHER)
    assert (found is not None) == (n >= DEFAULT.min_points)


def test_zero_iqr_uses_the_floor_of_ten_percent_of_the_median() -> None:
    flat = [4.0] * 10
    assert bound(flat).low == pytest.approx(3.6) and bound(flat).high == pytest.approx(4.4)
    assert detect(weekly([*flat, 3.7, 3.7]), Direction.HIGHER_BETTER) is None  # within 10 %
    step = detect(weekly([*flat, 3.0, 3.0]), Direction.HIGHER_BETTER)
    assert step is not None and step.worse and step.bound.median == 4.0
    zeros = [0.0] * 10  # always exactly 0: any sustained change is a step
    assert detect(weekly([*zeros, 0.0, 0.0]), Direction.EITHER) is None
    assert detect(weekly([*zeros, 3.0, 2.0]), Direction.EITHER) is not None


def test_an_improvement_is_found_but_not_worse() -> None:
    up = detect(weekly([*BASE, 900, 910]), Direction.HIGHER_BETTER)
    assert up is not None and not up.worse
    older = detect(weekly([1.0] * 8 + [9.0, 9.5]), Direction.LOWER_BETTER)
    assert older is not None and older.worse
    either = detect(weekly([*BASE, 900, 910]), Direction.EITHER)
    assert either is not None and either.worse


def test_a_step_that_changes_side_is_not_confirmed() -> None:
    assert detect(weekly([*BASE, 900, 200]), Direction.EITHER) is None


def test_parameters_change_the_rule() -> None:
    strict = Params(confirm=1)
    assert detect(weekly([*BASE, 200]), Direction.HIGHER_BETTER, strict) is not None


def test_drift_spec_values_are_validated() -> None:
    problems: list[tuple[str, str, str]] = []
    assert parse_drift_spec("off", [], "skills.x.drift", problems) == (("*", DriftMode.OFF),)
    got = parse_drift_spec(
        {"words": "fail", "dollars": "off", "wrods": "warn", "quality": "loud"},
        ["dollars"],
        "skills.x.drift",
        problems,
    )
    assert got == (("words", DriftMode.FAIL), ("dollars", DriftMode.OFF))
    assert [(w, s) for w, _m, s in problems] == [
        ("skills.x.drift.wrods", "warning"),
        ("skills.x.drift.quality", "error"),
    ]
    assert parse_drift_spec(3, [], "d", problems) == () and problems[-1][2] == "error"
