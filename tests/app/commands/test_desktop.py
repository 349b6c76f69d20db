"""Desktop integration: the shipped entry and metainfo agree, and install-desktop installs them."""

import configparser
import shutil
import subprocess
import xml.etree.ElementTree as ET
from importlib import resources

import pytest
from hypothesis import given
from hypothesis import strategies as st

import core
from app.cli import main
from app.commands.desktop import exec_value
from resources import APP_ID, ICON_SIZES

RES = resources.files("resources")


def _desktop(text):
    cp = configparser.ConfigParser(interpolation=None, strict=True)
    cp.optionxform = str
    cp.read_string(text)
    return cp["Desktop Entry"]


def test_desktop_entry_and_metainfo_agree_with_each_other_and_the_version():
    entry = _desktop(RES.joinpath(f"{APP_ID}.desktop").read_text())
    assert entry["Type"] == "Application" and entry["Icon"] == APP_ID
    assert entry["Exec"].split()[0] == "testcard"
    meta = ET.fromstring(RES.joinpath(f"{APP_ID}.metainfo.xml").read_bytes())
    assert meta.findtext("id") == APP_ID
    assert meta.find("launchable").text == f"{APP_ID}.desktop"
    assert meta.find("provides/binary").text == "testcard"
    assert meta.find("releases/release").get("version") == core.__version__


def test_every_icon_size_is_a_png_of_that_size():
    icons = resources.files("resources.icons")
    for n in ICON_SIZES:
        data = icons.joinpath(f"testcard-{n}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (width, height) == (n, n)
    assert b"<svg" in icons.joinpath("testcard.svg").read_bytes()


@pytest.mark.parametrize("tool, args, name", [
    ("desktop-file-validate", [], f"{APP_ID}.desktop"),
    ("appstreamcli", ["validate", "--no-net"], f"{APP_ID}.metainfo.xml"),
])
def test_the_freedesktop_validators_accept_the_files(tool, args, name):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    with resources.as_file(RES.joinpath(name)) as path:
        out = subprocess.run([tool, *args, str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_install_desktop_writes_everything_and_remove_takes_it_back(tmp_path, capsys):
    root = tmp_path / "share"
    assert main(["install-desktop", "--prefix", str(root)]) == 0
    entry_path = root / "applications" / f"{APP_ID}.desktop"
    entry = _desktop(entry_path.read_text())
    assert entry["Exec"].endswith(" gui") and entry["Exec"].split()[0] != "testcard"  # absolute
    assert (root / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    assert (root / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg").is_file()
    for n in ICON_SIZES:
        assert (root / f"icons/hicolor/{n}x{n}/apps" / f"{APP_ID}.png").is_file()
    if shutil.which("desktop-file-validate"):
        out = subprocess.run(["desktop-file-validate", str(entry_path)], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout
    assert main(["install-desktop", "--prefix", str(root), "--remove"]) == 0
    assert not any(p.is_file() for p in root.rglob("*"))


def test_install_desktop_into_an_unwritable_place_is_one_clear_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["install-desktop", "--prefix", str(blocker)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("testcard: error: cannot write")


def _parse_exec(value):
    """The Desktop Entry spec's reading of an Exec value: string unescape, then quoting."""
    unesc = {"\\": "\\", "s": " ", "n": "\n", "t": "\t", "r": "\r"}
    s, i = "", 0
    while i < len(value):
        if value[i] == "\\":
            s += unesc[value[i + 1]]
            i += 2
        else:
            s += value[i]
            i += 1
    args, cur, quoted, started, i = [], "", False, False, 0
    while i < len(s):
        c = s[i]
        if quoted:
            if c == "\\":
                cur += s[i + 1]
                i += 1
            elif c == '"':
                quoted = False
            else:
                cur += c
        elif c == '"':
            quoted = started = True
        elif c == " ":
            if started:
                args.append(cur)
            cur, started = "", False
        else:
            cur += c
            started = True
        i += 1
    if started:
        args.append(cur)
    return [a.replace("%%", "%") for a in args]


@given(st.lists(st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF, exclude_characters="\x7f"),
                        min_size=1), min_size=1, max_size=4))
def test_exec_value_round_trips_any_argv(argv):
    assert _parse_exec(exec_value(argv)) == argv


def test_exec_value_refuses_control_characters():
    with pytest.raises(ValueError, match="control character"):
        exec_value(["/opt/test\ncard"])
