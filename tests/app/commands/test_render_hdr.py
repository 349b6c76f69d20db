"""``testcard render --transfer``: colours in cd/m2 resolved to code values in the sidecar, the
HDR_OUTPUT_METADATA blob from the rendered frame, and one-line refusals that write nothing."""

import json
import struct

import pytest

from app.cli import main
from core.imageio import read_frame


def test_pq_nits_resolve_to_code_values_and_the_sidecar_says_so(tmp_path, capsys):
    out = tmp_path / "g.npy"
    assert main(["render", "solid", "--size", "32x18", "--limited", "--transfer", "pq",
                 "--set", "color=203nits", "-o", str(out)]) == 0
    assert (read_frame(out) == 573).all()
    doc = json.loads((tmp_path / "g.npy.json").read_text())
    assert doc["params"]["color"] == [573, 573, 573] and doc["transfer"] == "pq"
    assert doc["signal"]["tagged"] is False and doc["hdr"]["max_cll_metadata"] == 204
    assert "the file tags nothing HDR" in capsys.readouterr().err


def test_hdr_metadata_blob_is_written_from_the_frame(tmp_path, capsys):
    out, blob = tmp_path / "w.png", tmp_path / "w.bin"
    assert main(["render", "window", "--size", "160x90", "--transfer", "pq", "--set", "color=1000nits",
                 "--set", "area=100", "--mastering-max-nits", "4000", "--mastering-primaries", "p3",
                 "-o", str(out), "--hdr-metadata", str(blob)]) == 0
    data = blob.read_bytes()
    fields = struct.unpack("<IBB12H2x", data)
    doc = json.loads((tmp_path / "w.png.json").read_text())
    assert len(data) == 32 and fields[:3] == (0, 2, 0)
    assert fields[3:9] == (34000, 16000, 13250, 34500, 7500, 3000) and fields[11] == 4000
    assert fields[13:] == (doc["hdr"]["max_cll_metadata"], doc["hdr"]["max_fall_metadata"]) == (999, 999)
    assert "HDR_OUTPUT_METADATA, 32 bytes" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["solid", "--set", "color=203nits"], "color: a colour in cd/m2 needs transfer pq or hlg"),
    (["solid", "--hdr-metadata", "{tmp}/m.bin"], "--hdr-metadata: an SDR frame has no HDR metadata"),
    (["solid", "--transfer", "pq", "--hdr-metadata", "{tmp}/o.npy"], "o.npy"),
    (["hdr_bars", "--transfer", "hlg"], "transfer: HLG bars in full range are not in the standard"),
    (["solid", "--transfer", "pq", "--mastering-white", "0.3"], "mastering white: expected d65, dci"),
    (["solid", "--transfer", "pq", "--set", "color=20000nits"], "color: 20000 cd/m2 is over PQ's"),
])
def test_bad_hdr_input_is_one_line_exit_2_nothing_written(tmp_path, capsys, argv, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    rc = main(["render", *argv[:1], "--size", "16x16", *argv[1:], "-o", str(tmp_path / "o.npy")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and message in err[0], err
    assert list(tmp_path.iterdir()) == []
