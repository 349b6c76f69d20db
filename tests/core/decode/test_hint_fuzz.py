"""Random mutations of a valid manifest never give a traceback nor a wrong ``ok``.

The capture is synthetic (``tests.helpers.capture_sim``), so the index every frame shows is
known; the manifest beside it (a sidecar) or given with it (``--manifest``) is mutated field by
field, swapped for another panel's, or cut short.  Whatever the manifest says, a frame decodes
to the index it shows or to no index at all, and a refused manifest is one ``ValueError``.
"""

import copy
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.decode import DecodeJob, DecodeRequest
from core.imageio import write_frame
from core.manifest import manifest
from core.patterns import make_spec
from tests.helpers.capture_sim import Look, Schedule, Simulator

W, H, N = 320, 180, 6
FIELDS = ["width", "height", "bits", "pad_x", "pad_y", "cell_w", "cell_h", "layout", "extra"]
EXTRA = ["gray", "bands", "cells", "band_y", "version"]

values = st.one_of(
    st.integers(-5, 40), st.integers(-(2**70), 2**70), st.sampled_from([0, 1, 31, 32, 180, 320, 5000]),
    st.floats(allow_nan=False, allow_infinity=False, width=32), st.booleans(), st.none(),
    st.text(max_size=8), st.sampled_from(["compat", "robust", "16"]),
    st.lists(st.integers(-5, 400), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def spec(bits, layout, gray=False, w=W, h=H):
    return make_spec("counter", {"bits": bits, "layout": layout, "gray": gray}, width=w, height=h,
                     bit_depth=8, dtype="uint8")


@st.composite
def mutations(draw):
    """A list of edits to a manifest document."""
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["field", "extra", "delete", "doc", "other_panel", "counter"]))
        if kind == "field":
            ops.append(("set", ("counter", draw(st.sampled_from(FIELDS))), draw(values)))
        elif kind == "extra":
            ops.append(("set", ("counter", "extra", draw(st.sampled_from(EXTRA))), draw(values)))
        elif kind == "delete":
            ops.append(("delete", ("counter", draw(st.sampled_from(FIELDS))), None))
        elif kind == "doc":
            ops.append(("set", (draw(st.sampled_from(["frame", "testcard_manifest"])),), draw(values)))
        elif kind == "counter":
            ops.append(("set", ("counter",), draw(values)))
        else:   # a valid manifest of another panel: the stale sidecar
            other = spec(draw(st.integers(1, 31)), draw(st.sampled_from(["compat", "robust"])),
                         draw(st.booleans()), w=draw(st.sampled_from([W, 640, 1920])),
                         h=draw(st.sampled_from([H, 360, 1080, 200])))
            ops.append(("replace", (), manifest(other, draw(st.integers(0, 2**31)))))
    return ops


def apply(doc, ops):
    doc = copy.deepcopy(doc)
    for op, path, value in ops:
        if op == "replace":
            doc = copy.deepcopy(value)
            continue
        target = doc
        for k in path[:-1]:
            if not isinstance(target, dict) or not isinstance(target.get(k), dict):
                target = None
                break
            target = target[k]
        if not isinstance(target, dict):
            continue
        if op == "delete":
            target.pop(path[-1], None)
        else:
            target[path[-1]] = value
    return doc


def capture(folder: Path, layout: str, bits: int, start: int, look: Look, seed: int):
    sp = spec(bits, layout)
    modulus = 1 << bits
    frames, truth = Simulator(sp, look, seed).run(Schedule.build(start % modulus, N, modulus, drops={2}))
    for pos, img in enumerate(frames):
        write_frame(folder / f"f{pos:02d}.png", img, 8)
    return sp, [t.top for t in truth]


def decode_and_check(request, truth):
    try:
        job = DecodeJob(request)
    except ValueError as exc:            # a refused --manifest: one sentence, before any work
        assert request.manifest and "\n" not in str(exc)
        return None
    for _ in job:
        pass
    report = job.report()
    json.dumps(report)                   # the report is a JSON document whatever the manifest said
    for f, shown in zip(report["frames"], truth, strict=True):
        if f["status"] in ("ok", "torn"):
            assert f["index"] == shown, (f, shown, report.get("notes"))
    return report


# A compat capture is read without a manifest at the capture's own size (its row has no marks to
# measure a scale by), so compat captures here are unscaled; robust ones are found at any scale.
SAME_SIZE = [Look(), Look(blur=0.7, noise=1.5)]
SCALED = [Look(scale_x=0.8, scale_y=0.8, blur=0.6, noise=1.0),
          Look(scale_x=1.25, scale_y=1.2, offset_x=3.5, offset_y=-2.0, blur=0.8)]


@pytest.mark.parametrize("where", ["sidecar", "--manifest"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(layout=st.sampled_from(["compat", "robust"]), bits=st.sampled_from([8, 12, 16]),
       start=st.integers(1, 2**16), look_at=st.integers(0, 3), seed=st.integers(0, 99), ops=mutations(),
       cut=st.one_of(st.none(), st.integers(0, 400)))
def test_mutated_manifests_never_give_a_wrong_ok(where, layout, bits, start, look_at, seed, ops, cut):
    looks = SAME_SIZE if layout == "compat" else SAME_SIZE + SCALED
    look = looks[look_at % len(looks)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "cap"
        folder.mkdir()
        sp, truth = capture(folder, layout, bits, start, look, seed)
        text = json.dumps(apply(manifest(sp, truth[0]), ops))
        if cut is not None:
            text = text[:cut]
        target = folder / "f00.png.json" if where == "sidecar" else Path(tmp) / "ref.json"
        target.write_text(text)
        decode_and_check(DecodeRequest(str(folder), None if where == "sidecar" else str(target)), truth)
