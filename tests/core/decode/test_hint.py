"""A manifest is a hint: its geometry is refused unless it is a panel testcard draws, and a
hint the capture contradicts is never believed over the picture."""

import copy
import json

import numpy as np
import pytest

from core.counter import CounterGeometry
from core.decode import CaptureDecoder, decode_path, load_hint
from core.decode.hint import geometry_from_fields
from core.imageio import write_frame
from core.manifest import counter_fields, manifest
from core.patterns import make_spec, render
from tests.helpers.capture_sim import Look, Schedule, Simulator, as_captured

W, H = 320, 180


def spec(bits=12, layout="robust", w=W, h=H):
    return make_spec("counter", {"bits": bits, "layout": layout}, width=w, height=h, bit_depth=8,
                     dtype="uint8")


def write_manifest(path, doc):
    path.write_text(json.dumps(doc))
    return path


def folder(tmp_path, sp, indices, name="cap"):
    d = tmp_path / name
    d.mkdir()
    for pos, idx in enumerate(indices):
        write_frame(d / f"f{pos:03d}.png", render(sp, idx), 8)
    return d


# ---------------------------------------------------------------- geometry checks
@pytest.mark.parametrize("layout", ["compat", "robust"])
def test_a_manifest_testcard_wrote_is_taken_as_is(tmp_path, layout):
    sp = spec(layout=layout)
    hint = load_hint(write_manifest(tmp_path / "m.json", manifest(sp, 7)))
    assert hint.geometry == sp.counter_geometry() and hint.frame == 7
    assert hint.geometry.band_y == sp.counter_geometry().band_y


def edit(doc, path, value):
    d = copy.deepcopy(doc)
    *head, last = path
    target = d
    for k in head:
        target = target[k]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return d


BAD = [  # (layout, path into the manifest, value, words the refusal must contain)
    ("compat", ("counter", "pad_x"), 5000, "outside"),
    ("compat", ("counter", "pad_y"), 170, "outside"),
    ("robust", ("counter", "extra", "band_y"), [10, 80, 170], "outside"),
    ("compat", ("counter", "cell_w"), 0, "counter.cell_w must be 1.."),
    ("compat", ("counter", "cell_h"), -3, "counter.cell_h must be 1.."),
    ("compat", ("counter", "width"), 0, "counter.width must be 1.."),
    ("compat", ("counter", "bits"), 0, "counter.bits must be 1.."),
    ("compat", ("counter", "bits"), 32, "counter.bits must be 1..31"),
    ("robust", ("counter", "bits"), 32, "counter.bits must be 1..31"),
    ("compat", ("counter", "bits"), 12.0, "counter.bits must be a whole number, got 12.0"),
    ("compat", ("counter", "cell_w"), 21.5, "counter.cell_w must be a whole number"),
    ("compat", ("counter", "bits"), True, "counter.bits must be a whole number, got True"),
    ("compat", ("counter", "pad_x"), False, "counter.pad_x must be a whole number"),
    ("compat", ("counter", "width"), "320", "counter.width must be a whole number, got '320'"),
    ("compat", ("counter", "height"), None, "counter.height must be a whole number"),
    ("compat", ("counter", "bits"), "x" * 100_000, "counter.bits must be a whole number"),
    ("compat", ("counter", "cell_h"), KeyError, "counter.cell_h is missing"),
    ("compat", ("counter", "layout"), "fancy", "unknown counter.layout"),
    ("compat", ("counter", "layout"), 3, "counter.layout must be a name"),
    ("compat", ("counter",), [1, 2], "counter must be an object"),
    ("robust", ("counter", "extra", "gray"), 1, "counter.extra.gray must be true or false"),
    ("robust", ("counter", "extra", "bands"), True, "counter.extra.bands must be a whole number"),
    ("robust", ("counter", "extra", "band_y"), "10", "band_y must be a list"),
    ("robust", ("counter", "extra", "band_y"), [7], "band lines"),
    ("robust", ("counter", "extra", "cells"), 41, "counter.extra.cells is 41"),
    ("robust", ("counter", "extra", "version"), 2, "newer"),
    ("robust", ("counter", "extra"), KeyError, "band lines"),
    ("robust", ("counter", "layout"), "compat", "compat panel in a 320x180 frame has"),
    ("compat", ("counter", "layout"), "robust", "band lines"),
    ("compat", ("counter", "bits"), 10, "counter.cell_w is 21, but a 10-bit compat"),
    ("compat", ("counter", "pad_x"), 31, "counter.pad_x is 31, but a 12-bit compat"),
    ("robust", ("counter", "cell_h"), 5, "counter.cell_h is 5, but a 12-bit robust"),
    ("compat", ("frame",), -1, "frame must be a whole number 0 or more"),
    ("compat", ("frame",), 1.5, "frame must be a whole number"),
    ("compat", ("testcard_manifest",), 9, "written by a newer testcard"),
    ("compat", ("testcard_manifest",), True, "testcard_manifest must be a whole number"),
]


@pytest.mark.parametrize("layout,path,value,words", BAD)
def test_bad_geometry_is_refused_naming_the_field(tmp_path, layout, path, value, words):
    doc = edit(manifest(spec(layout=layout), 3), path, value)
    with pytest.raises(ValueError) as info:
        load_hint(write_manifest(tmp_path / "m.json", doc))
    msg = str(info.value)
    assert words in msg and "m.json" in msg and "\n" not in msg and len(msg) < 300


@pytest.mark.parametrize("text,words", [
    ("{not json", "not valid JSON"),
    ('{"counter": 1, "counter": 2}', "duplicate key"),
    ('{"frame": NaN}', "NaN"),
    ("[1, 2]", "not a JSON object"),
    ("[" * 100 + "]" * 100, "nested"),
    ('{"frame": 1' + "0" * 40 + "}", "digits"),
])
def test_unreadable_manifests_are_refused(tmp_path, text, words):
    p = tmp_path / "m.json"
    p.write_text(text)
    with pytest.raises(ValueError, match=words) as info:
        load_hint(p)
    assert str(info.value).startswith("cannot read manifest m.json")


def test_a_huge_file_is_refused_without_reading_it_whole(tmp_path):
    p = tmp_path / "m.json"
    p.write_bytes(b" " * (2 << 20))
    with pytest.raises(ValueError, match="not a manifest"):
        load_hint(p)
    p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ValueError, match="UTF-8"):
        load_hint(p)


def test_no_counter_is_said_so(tmp_path):
    doc = dict(manifest(spec(), 0), counter=None)
    with pytest.raises(ValueError, match="describes no counter panel"):
        load_hint(write_manifest(tmp_path / "m.json", doc))


def test_fields_round_trip_through_the_checks():
    for layout in ("compat", "robust"):
        geom = spec(layout=layout).counter_geometry()
        fields = counter_fields({"counter": geom.to_dict()}, "m.json")
        assert geometry_from_fields(fields, "m.json") == geom


# ---------------------------------------------------------------- hints checked against the picture
def test_stale_compat_sidecar_beside_a_robust_capture_is_not_believed(tmp_path):
    """The issue's case: a compat sidecar beside a robust capture read the clock row as ok."""
    d = folder(tmp_path, spec(16, "robust"), range(100, 130))
    write_manifest(d / "f000.png.json", manifest(spec(16, "compat"), 0))
    rep = decode_path(d)
    assert rep["summary"]["layout"] == "robust"
    assert [f["index"] for f in rep["frames"]] == list(range(100, 130))
    assert rep["decoder"]["hint"]["used"] is False
    assert any("stale" in n for n in rep["notes"])


@pytest.mark.parametrize("bits", [8, 16, 24])
def test_compat_manifest_never_reads_a_robust_capture_as_compat(tmp_path, bits):
    sp = spec(bits, "robust")
    frames, truth = Simulator(sp, Look(scale_x=0.8, scale_y=0.8, blur=0.6)).run(
        Schedule.build(300 % (1 << bits), 12, 1 << bits))
    compat = CounterGeometry.compat(W, H, 16)
    dec = CaptureDecoder(as_captured(frames), compat)
    results = list(dec)
    assert dec.layout == "robust"
    assert [r.index for r in results] == [t.top for t in truth]
    assert any("capture shows a robust one" in n for n in dec.hint_notes())


def test_robust_panel_seen_but_unreadable_is_never_compat():
    sp = spec(16, "robust")
    img = render(sp, 5).copy()
    geom = sp.counter_geometry()
    for y in geom.band_y:   # data rows scribbled over: clock rows intact, nothing checks
        row = slice(y + geom.cell_h, y + 2 * geom.cell_h)
        img[row] = np.where(np.arange(W)[None, :, None] % 7 < 3, 255, 0).astype(np.uint8)
    dec = CaptureDecoder(as_captured([img] * 10), CounterGeometry.compat(W, H, 16))
    results = list(dec)
    assert all(r.status == "undecodable" for r in results)
    assert dec.layout == "robust"


def test_robust_hint_beside_a_compat_capture_falls_back(tmp_path):
    d = folder(tmp_path, spec(16, "compat"), range(2000, 2010))
    write_manifest(d / "f000.png.json", manifest(spec(16, "robust"), 2000))
    rep = decode_path(d)
    assert rep["summary"]["layout"] == "compat" and rep["summary"]["bits"] == 16
    # the compat bit count is read from the picture: two frames go by before it is settled
    assert [f["index"] for f in rep["frames"]] == [None, None] + list(range(2002, 2010))
    assert rep["summary"]["dropped_count"] == 0 and rep["summary"]["gap_frames"] == 2
    assert any("none was found" in n for n in rep["notes"])
    assert any("compat bit count 16 read from the picture" in n for n in rep["notes"])


def test_robust_hint_that_does_not_fit_searches(tmp_path):
    sp = spec(12, "robust")
    look = Look(scale_x=0.5, scale_y=0.5, offset_x=30, offset_y=20, size=(300, 170))
    frames, truth = Simulator(sp, look).run(Schedule.build(7, 4, 4096))
    dec = CaptureDecoder(as_captured(frames), sp.counter_geometry())
    assert [r.index for r in dec] == [t.top for t in truth]
    assert dec.reader.location.found_by == "search"
    assert any("found by searching" in n for n in dec.hint_notes())


@pytest.mark.parametrize("true_bits,sidecar_bits", [(8, 16), (16, 8), (10, 12), (12, 16)])
def test_new_frames_beside_an_old_compat_sidecar(tmp_path, true_bits, sidecar_bits):
    """A frame rewritten without its sidecar: the sidecar no longer describes it."""
    d = folder(tmp_path, spec(true_bits, "compat"), range(100, 110))
    write_manifest(d / "f000.png.json", manifest(spec(sidecar_bits, "compat"), 100))
    rep = decode_path(d)
    assert rep["decoder"]["hint"]["used"] is False
    assert any("sidecar ignored as stale" in n for n in rep["notes"])
    for f in rep["frames"]:
        assert f["status"] != "ok" or f["index"] == 100 + f["position"], f


def test_a_matching_compat_sidecar_is_used(tmp_path):
    d = folder(tmp_path, spec(10, "compat"), range(900, 906))
    write_manifest(d / "f000.png.json", manifest(spec(10, "compat"), 900))
    rep = decode_path(d)
    assert rep["decoder"]["hint"]["used"] is True and "notes" not in rep
    assert rep["summary"]["bits"] == 10
    assert [f["index"] for f in rep["frames"]] == list(range(900, 906))


def test_a_bad_sidecar_is_ignored_with_its_reason(tmp_path):
    d = folder(tmp_path, spec(12, "robust"), range(40, 44))
    doc = edit(manifest(spec(12, "robust"), 40), ("counter", "bits"), 0)
    write_manifest(d / "f000.png.json", doc)
    rep = decode_path(d)
    assert [f["index"] for f in rep["frames"]] == [40, 41, 42, 43]
    assert any("sidecar ignored" in n and "counter.bits" in n for n in rep["notes"])


@pytest.mark.parametrize("true_bits,read_bits", [(8, 16), (16, 8), (4, 8), (10, 16), (20, 16)])
def test_compat_row_of_another_bit_count_is_not_read(true_bits, read_bits):
    """The compat row has no check code: a row of another size is refused by the picture."""
    sp = spec(true_bits, "compat")
    frames, truth = Simulator(sp, Look()).run(Schedule.build(5, 40, 1 << true_bits))
    results = list(CaptureDecoder(as_captured(frames), None, read_bits))
    assert not [r for r in results if r.status == "ok"]
