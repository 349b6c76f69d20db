"""FrameFormat: the one value every spec of an output is built from, and the counter-overlay rule
it owns (on every pattern but the counter, a spec's own overlay winning), for a pattern, a preset
entry and the first frame from stored parameters."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.patterns import FrameFormat, PresetEntry, make_spec, parse_preset, render

W, H = 640, 360


def test_a_pattern_is_built_in_the_format_with_its_overlay_and_transfer():
    fmt = FrameFormat(W, H, 8, True, 12, "pq")
    spec = fmt.spec("solid", {"color": "203nits"})
    assert spec == make_spec("solid", {"color": "203nits"}, width=W, height=H, bit_depth=8, limited=True,
                             counter_bits=12, transfer="pq")
    assert (spec.transfer, spec.counter_bits, spec.bit_depth, spec.limited) == ("pq", 12, 8, True)


def test_the_overlay_is_left_off_the_counter_pattern_and_an_own_one_there_is_refused():
    fmt = FrameFormat(W, H, 10, False, 16)
    assert fmt.overlay_for("bars") == 16 and fmt.overlay_for("counter") is None
    assert fmt.overlay_for("bars", own=12) == 12
    assert fmt.spec("counter").counter_bits is None
    assert fmt.spec("bars", counter_bits=12).counter_bits == 12
    with pytest.raises(ValueError, match="already is a counter"):
        fmt.spec("counter", counter_bits=16)
    assert FrameFormat(W, H).spec("bars").counter_bits is None


def test_a_preset_entry_keeps_its_own_depth_range_overlay_and_transfer():
    fmt = FrameFormat(W, H, 8, False, 16, "pq")
    own = PresetEntry("checkerboard", bit_depth=10, limited=True, counter_bits=12, transfer="hlg")
    spec = fmt.entry_spec(own)
    assert (spec.bit_depth, spec.limited, spec.counter_bits, spec.transfer) == (10, True, 12, "hlg")
    plain = fmt.entry_spec(PresetEntry("checkerboard"))
    # an entry says what its code values mean: the session's transfer is not laid on it
    assert (plain.bit_depth, plain.limited, plain.counter_bits, plain.transfer) == (8, False, 16, "sdr")
    assert fmt.entry_spec(PresetEntry("counter")).counter_bits is None


def test_preset_specs_are_the_formats_and_a_refusal_names_the_entry():
    preset = parse_preset({"schema": 1, "name": "mine", "entries": [
        {"pattern": "solid"}, {"pattern": "counter"}, {"pattern": "checkerboard", "counter_bits": 12}]},
        "m.json")
    fmt = FrameFormat(W, H, 8, counter_bits=16)
    assert fmt.preset_specs(preset) == preset.specs(W, H, bit_depth=8, counter_bits=16)
    assert [s.counter_bits for s in fmt.preset_specs(preset)] == [16, None, 12]
    with pytest.raises(ValueError, match="preset 'mine' entry 1 .*does not fit"):
        fmt.with_size(8, 8).preset_specs(preset)


def test_the_first_spec_takes_the_stored_parameters_else_the_defaults_and_says_why():
    fmt = FrameFormat(W, H, 8)
    notes: list[str] = []
    assert fmt.start_spec("bars", {"level": 50}, notes.append) == fmt.spec("bars", {"level": 50})
    assert notes == []
    spec = fmt.start_spec("bars", {"level": 50, "nope": 1}, notes.append)
    assert spec == fmt.spec("bars")
    assert len(notes) == 1 and notes[0].startswith("stored settings for bars not usable (")
    # a colour typed at 10 bits is over an 8-bit frame's codes: refused there, not clipped
    assert fmt.start_spec("solid", {"color": [1023, 0, 0]}, notes.append) == fmt.spec("solid")


def test_the_first_spec_is_a_plain_checkerboard_where_nothing_else_fits():
    tiny = FrameFormat(8, 8, 8, counter_bits=16)      # no counter panel fits 8x8
    notes: list[str] = []
    spec = tiny.start_spec("bars", {}, notes.append)
    assert (spec.pattern, spec.counter_bits, spec.width, spec.bit_depth) == ("checkerboard", None, 8, 8)
    assert len(notes) == 1 and notes[0].endswith("; showing a checkerboard")


def test_a_depth_and_range_that_cannot_go_together_are_refused_when_the_format_is_made():
    with pytest.raises(ValueError):
        FrameFormat(W, H, 4, True)
    with pytest.raises(ValueError):
        FrameFormat(W, H, 8).with_depth(4, limited=True)


@settings(max_examples=25, deadline=None)
@given(bits=st.integers(8, 16), limited=st.booleans(), counter=st.sampled_from([None, 8, 16]),
       pattern=st.sampled_from(["bars", "checkerboard", "solid", "counter", "ramp"]))
def test_every_spec_of_a_format_has_the_formats_size_depth_and_range(bits, limited, counter, pattern):
    fmt = FrameFormat(W, H, bits, limited, counter)
    spec = fmt.spec(pattern)
    assert (spec.width, spec.height, spec.bit_depth, spec.limited) == (W, H, bits, limited)
    assert spec.counter_bits == (None if pattern == "counter" else counter)


def test_a_format_built_spec_renders_as_make_spec_builds_it():
    fmt = FrameFormat(64, 36, 8, counter_bits=8)
    a = render(fmt.spec("bars", {"level": 50}), 3)
    b = render(make_spec("bars", {"level": 50}, width=64, height=36, bit_depth=8, counter_bits=8), 3)
    assert (a == b).all()


def test_a_typed_transfer_carries_to_patterns_that_take_it_and_never_locks_out_one_drawn_per_transfer():
    pq, sdr = FrameFormat(64, 36, 10, True, None, "pq"), FrameFormat(64, 36, 10, True, None, "sdr")
    assert pq.chosen_spec("bars").transfer == "pq"                    # carried
    assert pq.chosen_spec("hdr_bars").transfer == "pq"                # it can take it
    assert pq.chosen_spec("hdr_bars", {"transfer": "hlg"}).transfer == "hlg"   # its own wins
    assert sdr.chosen_spec("hdr_bars").transfer == "pq"               # sdr it cannot draw: its own
    assert sdr.chosen_spec("bars").transfer == "sdr"
    assert FrameFormat(64, 36, 10, True).chosen_spec("hdr_bars").transfer == "pq"
    with pytest.raises(ValueError, match="drawn for pq or hlg only"):   # typed, strictly
        sdr.spec("hdr_bars")


def test_a_start_from_a_typed_pattern_says_why_its_defaults_do_not_fit_rather_than_a_checkerboard():
    tiny = FrameFormat(16, 9, 8, False, 16)
    notes = []
    with pytest.raises(ValueError, match="does not fit a 16x9 frame"):
        tiny.start_spec("bars", {"nope": 1}, notes.append, checkerboard=False)
    assert notes and notes[0].startswith("stored settings for bars not usable")
    assert tiny.start_spec("bars", {}).pattern == "checkerboard"
