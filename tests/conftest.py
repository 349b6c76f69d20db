import os

# Before any QApplication exists: widget tests run on the offscreen platform.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import importlib.util  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402

import av  # noqa: E402, F401  -- on the main thread first: a capture thread's first import can hang
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

# CI (CI=true) runs every property test with fewer examples, so the whole suite, Qt and
# headless, fits its time on a 2-core box; a developer's run keeps hypothesis's default.
settings.register_profile("ci", max_examples=12, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
CI_MAX_EXAMPLES = 12
if os.environ.get("CI") == "true":
    settings.load_profile("ci")
    _settings_init = settings.__init__

    def _ci_settings_init(self, parent=None, **kwargs):   # tests that ask for more get CI's cap
        if isinstance(kwargs.get("max_examples"), int):
            kwargs["max_examples"] = min(kwargs["max_examples"], CI_MAX_EXAMPLES)
        _settings_init(self, parent, **kwargs)

    settings.__init__ = _ci_settings_init

HAVE_QT = importlib.util.find_spec("PySide6") is not None
QT_MARK = re.compile(r"^pytestmark = .*\bpytest\.mark\.qt\b", re.M)


def pytest_ignore_collect(collection_path, config):
    """Without PySide6 (the headless run, ``TESTCARD_HEADLESS=1``) modules marked ``qt`` are not
    collected at all: they would fail on their first import.  Anywhere else a missing PySide6
    is an error, so the Qt tests can never silently drop out of a run."""
    if HAVE_QT or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    if os.environ.get("TESTCARD_HEADLESS") != "1":
        raise pytest.UsageError("PySide6 is not installed: run the Qt tests with it, or set "
                                "TESTCARD_HEADLESS=1 with -m 'not qt' for the headless part")
    return True if QT_MARK.search(collection_path.read_text(encoding="utf-8")) else None


def _backends():
    params = [pytest.param(("numpy", None), id="numpy"), pytest.param(("torch", "cpu"), id="torch-cpu")]
    params.append(pytest.param(("torch", "cuda"), id="torch-cuda", marks=pytest.mark.cuda))
    params.append(pytest.param(("torch", "mps"), id="torch-mps", marks=pytest.mark.mps))
    return params


@pytest.fixture(params=_backends())
def backend(request):
    """(xp, device) for every backend; cuda/mps legs are opt-in with -m cuda / -m mps."""
    name, device = request.param
    from core import xp as X

    xp = X.namespace(name)
    if device in ("cuda", "mps"):
        from core.engine import device_problem

        why = device_problem(device)
        if why:
            pytest.fail(f"{device} leg selected but {why}")
        device = xp.device(device)
    elif device is not None:
        device = xp.device(device)
    return xp, device


@pytest.fixture
def to_np():
    from core.xp import to_numpy

    return lambda a: np.asarray(to_numpy(a))


@pytest.fixture(autouse=True)
def _garbage_on_the_gui_thread(request):
    """Qt tests collect garbage on the GUI (main) thread only, as the app does
    (:func:`app.qt_compat.collect_on_gui_thread`): a collection run by a worker thread's
    allocation can deadlock freeing a wrapped QObject.  After each test what is due is collected
    here, on the main thread."""
    if "qtbot" in request.fixturenames or "qapp" in request.fixturenames:
        from app.qt_compat import collect_on_gui_thread

        collect_on_gui_thread()
    yield
    qt = sys.modules.get("app.qt_compat")
    collector = qt.collector() if qt is not None else None
    if collector is not None:
        collector.check()


@pytest.fixture(autouse=True)
def _isolated_paths(tmp_path, monkeypatch):
    """Every settings, cache and decision path points into the test's own folder."""
    monkeypatch.setenv("TESTCARD_DECISION_CACHE", str(tmp_path / "decisions.json"))
    monkeypatch.setenv("TESTCARD_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TESTCARD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TESTCARD_RENDER_PATH", raising=False)
