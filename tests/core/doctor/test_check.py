"""The doctor's runner: one Running before each step and its Check after, a broken check is a
failed one, skipped and cancelled steps are never ok, and the exit status follows the fails."""

import threading
import warnings

import pytest

from core.doctor import (
    FAIL,
    NOT_AVAILABLE,
    NOT_RUN,
    OK,
    WARNING,
    Check,
    Running,
    Step,
    counts,
    exit_status,
    run_steps,
)


def ok_step(name="a"):
    return Step("g", name, lambda: Check("g", name, OK, "1 thing", "it matters"))


def drain(gen):
    items = []
    while True:
        try:
            items.append(next(gen))
        except StopIteration as stop:
            return items, stop.value


def test_each_step_is_announced_then_checked_in_order():
    items, checks = drain(run_steps([ok_step("a"), ok_step("b")]))
    assert [type(i) for i in items] == [Running, Check, Running, Check]
    assert [(i.index, i.total, i.name) for i in items if isinstance(i, Running)] == [(1, 2, "a"), (2, 2, "b")]
    assert [c.name for c in checks] == ["a", "b"] and all(c.verdict == OK for c in checks)


def test_a_check_that_raises_is_a_failed_check_and_the_rest_still_run():
    def broken():
        raise RuntimeError("the driver went away")

    _, checks = drain(run_steps([Step("g", "broken", broken, why="why"), ok_step("after")]))
    assert checks[0].verdict == FAIL and "RuntimeError: the driver went away" in checks[0].detail
    assert checks[0].why == "why"
    assert checks[1].verdict == OK


def test_skipped_and_cancelled_steps_say_not_run_never_ok():
    ran = []
    cancel = threading.Event()

    def first():
        cancel.set()
        return Check("g", "first", OK, "x", "y")

    steps = [Step("g", "first", first), Step("g", "skipped", lambda: ran.append(1), skip="not run (--quick)"),
             Step("g", "later", lambda: ran.append(2))]
    _, checks = drain(run_steps(steps, cancel))
    assert [c.verdict for c in checks] == [OK, NOT_RUN, NOT_RUN]
    assert checks[1].figure == "not run (cancelled)"        # cancelled outranks the skip
    assert checks[2].figure == "not run (cancelled)"
    assert ran == []


def test_a_skip_is_not_run_with_its_reason():
    _, checks = drain(run_steps([Step("g", "compiled", lambda: 1 / 0, skip="not run (--quick): slow")]))
    assert checks[0].verdict == NOT_RUN and checks[0].figure == "not run (--quick): slow"


def test_warnings_a_check_issues_are_kept_in_its_detail_not_printed():
    def warns():
        warnings.warn("the decision cache is corrupt", UserWarning, stacklevel=1)
        warnings.warn("old api", DeprecationWarning, stacklevel=1)
        return Check("g", "w", WARNING, "x", "y", "first")

    with warnings.catch_warnings():
        warnings.simplefilter("error")        # nothing escapes the runner
        _, checks = drain(run_steps([Step("g", "w", warns)]))
    assert checks[0].detail == "first; the decision cache is corrupt"


def test_exit_status_is_1_only_for_a_fail():
    def c(verdict):
        return Check("g", verdict, verdict, "", "")

    assert exit_status([c(OK), c(WARNING), c(NOT_AVAILABLE), c(NOT_RUN)]) == 0
    assert exit_status([c(OK), c(FAIL)]) == 1
    assert counts([c(OK), c(OK), c(FAIL)]) == {OK: 2, WARNING: 0, FAIL: 1, NOT_AVAILABLE: 0, NOT_RUN: 0}


def test_an_unknown_verdict_is_refused():
    with pytest.raises(ValueError, match="unknown verdict"):
        Check("g", "n", "fine", "", "")
