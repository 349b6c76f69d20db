"""The README's generated sections match the code (regenerated in memory and compared)."""

import argparse

import pytest

from app import docs
from app.cli import build_parser
from core.patterns import catalog

README = docs.README.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(docs.GENERATORS))
def test_readme_section_is_in_sync_with_the_code(name):
    fresh = docs.get_section(docs.regenerate(README), name)
    assert docs.get_section(README, name) == fresh, \
        f"README.md section {name!r} is out of date: {docs.HINT}"


def test_catalog_table_has_one_row_per_registered_pattern():
    section = docs.get_section(README, "catalog")
    rows = [ln for ln in section.splitlines() if ln.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == [p.name for p in catalog()]


def _all_commands(parser, path="testcard"):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{path} {name}", sub
                yield from _all_commands(sub, f"{path} {name}")


def test_cli_reference_covers_every_command_and_option_including_nested_bench():
    section = docs.get_section(README, "cli")
    commands = list(_all_commands(build_parser()))
    assert any(path.startswith("testcard bench ") for path, _ in commands)
    for path, sub in commands:
        assert f"### {path}\n" in section, f"{path} missing from the CLI reference: {docs.HINT}"
        body = section.split(f"### {path}\n", 1)[1].split("\n### ", 1)[0]
        for action in sub._actions:
            for opt in action.option_strings:
                if opt not in ("-h", "--help") and action.help != argparse.SUPPRESS:
                    assert f"`{opt}`" in body, f"{path} {opt} missing: {docs.HINT}"


def test_every_environment_variable_the_code_reads_is_documented_and_none_is_stale():
    used = docs.env_vars_in_source(docs.source_files())
    missing = sorted(used - set(docs.ENV_VARS))
    assert not missing, f"describe {missing} in ENV_VARS in app/docs.py, then {docs.HINT}"
    stale = sorted(n for n in docs.ENV_VARS if n.startswith("TESTCARD_") and n not in used)
    assert not stale, f"{stale} documented but no code reads them: drop them from ENV_VARS"


def test_env_scan_finds_reads_in_every_form(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import os\nfrom os import environ\nNAME = 'TESTCARD_X'\n"
                 "os.environ.get('A')\nos.getenv('B')\nenviron['C']\nos.environ.setdefault('D', '1')\n"
                 "d = {}\nd.get('NOT_ENV')\n")
    assert docs.env_vars_in_source([f]) == {"TESTCARD_X", "A", "B", "C", "D"}


def test_replace_section_touches_only_its_markers():
    text = ("a\n<!-- section:x -->\nold\n<!-- /section:x -->\n"
            "b <!-- section:y -->keep<!-- /section:y -->\n")
    new = docs.replace_section(text, "x", "new")
    assert new == text.replace("\nold\n", "\nnew\n")
    with pytest.raises(ValueError, match="exactly one"):
        docs.replace_section(text, "z", "x")


def test_check_mode_reports_a_stale_readme_and_writing_fixes_it(tmp_path, capsys):
    path = tmp_path / "README.md"
    path.write_text(README.replace("| `solid` |", "| `solidly` |"), encoding="utf-8")
    assert docs.main(["--check", str(path)]) == 1
    assert "run python -m app.docs" in capsys.readouterr().err
    docs.main([str(path)])
    assert docs.main(["--check", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == docs.regenerate(README)


def test_presets_table_lists_every_builtin_preset():
    from core.patterns import builtin_presets

    section = docs.get_section(README, "catalog")
    for p in builtin_presets():
        assert f"| {p.name} | {len(p.entries)} (" in section, f"{p.name} missing: {docs.HINT}"


def test_shortcut_table_has_one_row_per_entry_of_the_windows_table_and_needs_no_qt():
    import subprocess
    import sys

    from app.window import SHORTCUTS
    from tests.helpers import ROOT

    table = docs.shortcuts_markdown()
    rows = [ln for ln in table.splitlines() if ln.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == [s.keys for s in SHORTCUTS]
    assert all(f"| {s.menu} | {s.label} |" in table for s in SHORTCUTS)
    code = ("import sys\nfrom app import docs\ndocs.shortcuts_markdown()\n"
            "print(any(k.split('.')[0] in ('PySide6', 'shiboken6') for k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"
