"""The decode's image cap is a memory cap: what one frame costs to decode (its samples twice and
the working planes) is counted from its header, so a small PNG declaring a huge picture is
refused before it is inflated -- in a process whose peak memory stays far below the picture."""

import json
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

from core.capture import check_image, open_capture
from core.capture.header import MAX_FRAME_BYTES
from core.imageio import write_frame
from tests.helpers import ROOT

BOUND_KIB = 256 * 1024      # the 16384x8192 RGB frame's samples alone are 384 MiB, 1.8 GiB decoded


def flat_png(path, width, height, depth=8, colour_type=2):
    """A PNG of black rows, written a row at a time (never held whole): a few hundred kB."""
    channels = {0: 1, 2: 3, 6: 4}[colour_type]
    row = b"\x00" + bytes(width * channels * depth // 8)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    z = zlib.compressobj(9)
    idat = b"".join(z.compress(row) for _ in range(height)) + z.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth,
                                                                          colour_type, 0, 0, 0))
                     + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
    return path


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    return flat_png(tmp_path_factory.mktemp("huge") / "huge.png", 16384, 8192)


# the probe's own peak: VmHWM is this process's (ru_maxrss would carry over the forking test
# process's size through exec)
PROBE = """
import json, re, resource, sys
from app.cli import main
rc = main(["decode", sys.argv[1], "--json"])
try:
    with open("/proc/self/status") as fh:
        peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", fh.read()).group(1))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rc": rc, "peak_kib": peak}))
"""


def test_a_small_png_declaring_a_huge_picture_is_refused_without_inflating_it(huge):
    assert huge.stat().st_size < 1 << 20
    run = subprocess.run([sys.executable, "-c", PROBE, str(huge)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.strip().splitlines()
    probe = json.loads(lines[-1])
    report = json.loads("\n".join(lines[:-1]))
    frame = report["frames"][0]
    assert frame["status"] == "unreadable"
    assert frame["note"] == ("cannot read huge.png: its header declares 16384x8192 pixels of 8-bit samples, "
                             "which would take 1.8 GiB to decode, over the limit of 1.0 GiB a frame "
                             "(refused before decoding)")
    assert probe["peak_kib"] < BOUND_KIB, f"peak {probe['peak_kib']} KiB: the picture was inflated"


def test_the_cost_counts_sample_size_not_only_pixels(tmp_path):
    assert MAX_FRAME_BYTES == 2**30
    eight = flat_png(tmp_path / "eight.png", 8192, 8192)          # 67 Mpx at 8 bits: 0.9 GiB
    assert check_image(eight).decode_bytes == 8192 * 8192 * 14 <= MAX_FRAME_BYTES
    sixteen = flat_png(tmp_path / "sixteen.png", 8192, 8192, depth=16)   # at 16 bits: 1.25 GiB
    with pytest.raises(ValueError, match="8192x8192 pixels of 16-bit samples, which would take 1.2 GiB"):
        check_image(sixteen)
    assert check_image(flat_png(tmp_path / "half.png", 8192, 4096, depth=16)).decode_bytes == 8192 * 4096 * 20
    big = tmp_path / "big.npy"     # a float64 array's header says what it will cost
    with open(big, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (6144, 4096, 3)})
        fh.truncate(fh.tell() + 6144 * 4096 * 3 * 8)   # sparse: never written
    with pytest.raises(ValueError, match="of 64-bit samples"):
        check_image(big)


def test_in_a_folder_the_refused_frame_is_a_gap_and_the_rest_decode(tmp_path, huge):
    (tmp_path / "f1.png").write_bytes(huge.read_bytes())
    for name in ("f0.png", "f2.png"):
        write_frame(tmp_path / name, np.full((8, 8, 3), 200, np.uint8), 8)
    frames = list(open_capture(tmp_path).frames())
    assert [f.image is None for f in frames] == [False, True, False]
    assert "would take 1.8 GiB to decode" in frames[1].error
