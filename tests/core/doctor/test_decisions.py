"""The decision checks: the cache's health (a corrupt one is a warning, said in the cache's own
words) and the path each of the output's bands resolves to, with its source."""

import os

from core.doctor import OK, WARNING, check_band, check_cache
from core.doctor.decisions import decision_steps


def test_no_cache_yet_is_ok_and_names_the_file():
    c = check_cache()
    assert c.verdict == OK and "no file yet" in c.figure
    assert c.data["path"] == os.environ["TESTCARD_DECISION_CACHE"] and c.data["writable"]


def test_a_corrupt_cache_is_a_warning():
    path = os.environ["TESTCARD_DECISION_CACHE"]
    with open(path, "w") as fh:
        fh.write("{not json")
    c = check_cache()
    assert c.verdict == WARNING
    assert "corrupt" in c.figure and "corrupt" in c.detail


def test_a_band_resolves_to_the_default_with_its_reason():
    c = check_band("counter", {}, None, (3840, 2160), "rgb10")
    assert c.verdict == OK and c.name == "counter@2160p/rgb10"
    assert c.figure == "numpy (default)" and "numpy is the default" in c.detail


def test_a_pin_is_named_and_a_pin_that_cannot_run_is_a_warning(monkeypatch):
    monkeypatch.setenv("TESTCARD_RENDER_PATH", "counter@*=torch-eager")
    c = check_band("counter", {}, None, (1920, 1080), "rgb8")
    assert c.verdict == OK and c.figure == "torch-eager (pin)" and c.data["source"] == "pin"
    monkeypatch.setenv("TESTCARD_RENDER_PATH", "torch-cudagraphs")
    c = check_band("bars", {}, None, (1920, 1080), "rgb8")
    assert c.verdict == WARNING and c.data["source"] == "default"
    assert "torch-cudagraphs cannot run here" in c.detail


def test_the_bands_follow_the_format_known_only_when_they_run():
    fmt = ["rgb8"]
    steps = decision_steps((1920, 1080), lambda: fmt[0])
    fmt[0] = "rgb10"
    assert steps[1].run().name == "counter@1080p/rgb10"


def test_the_steps_read_the_cache_once_and_its_verdicts_serve_the_bands(monkeypatch):
    import core.decisions.index as ix
    from core.decisions.schema import encode
    from tests.helpers.decision_helpers import FP, entry, key

    with open(os.environ["TESTCARD_DECISION_CACHE"], "wb") as fh:
        fh.write(encode({key(FP, "counter@1080p/rgb8"): entry("numpy")}))
    reads = []
    real = ix.read_file
    monkeypatch.setattr(ix, "read_file", lambda path: reads.append(path) or real(path))
    checks = [step.run() for step in decision_steps((1920, 1080), "rgb8")]
    assert checks[0].data["entries"] == 1
    assert checks[1].name == "counter@1080p/rgb8" and checks[1].figure == "numpy (cache)"
    assert len(checks) == 4 and len(reads) == 1       # one registry: one read for every step
