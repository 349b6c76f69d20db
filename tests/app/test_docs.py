"""The manual's generated pages match the code (regenerated in memory and compared), every
command, option, environment variable, pattern and preset is on its page, and the README, the
front door, links only to pages that exist, every one of which it reaches in two clicks."""

import argparse
import re
import shutil

import pytest

from app import docs
from app.cli import build_parser
from core.patterns import catalog

PAGES = {path: path.read_text(encoding="utf-8") for path in docs.pages()}
README = docs.README.read_text(encoding="utf-8")
MKDOCS = (docs.ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def page(name: str) -> str:
    return PAGES[docs.DOCS / name]


@pytest.mark.parametrize(("file", "name"), list(docs.SECTIONS))
def test_each_generated_section_is_in_sync_with_the_code(file, name):
    text = PAGES[docs.ROOT / file]
    fresh = docs.get_section(docs.regenerate(text, [name]), name)
    assert docs.get_section(text, name) == fresh, f"{file} section {name!r} is out of date: {docs.HINT}"


def test_the_table_names_every_generator_once_and_only_pages_of_the_manual():
    assert sorted(name for _, name in docs.SECTIONS) == sorted(docs.GENERATORS)
    assert docs.sections_in(README) == []          # the front door holds no generated section
    assert {"catalog", "presets", "cli", "env", "shortcuts"} <= set(docs.GENERATORS)
    assert all(file.startswith("docs/") and file.endswith(".md") for file, _ in docs.SECTIONS)


def test_catalog_table_has_one_row_per_registered_pattern():
    section = docs.get_section(page("patterns.md"), "catalog")
    rows = [ln for ln in section.splitlines() if ln.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == [p.name for p in catalog()]


def test_presets_table_lists_every_builtin_preset():
    from core.patterns import builtin_presets

    section = docs.get_section(page("presets.md"), "presets")
    for p in builtin_presets():
        assert f"| {p.name} | {len(p.entries)} (" in section, f"{p.name} missing: {docs.HINT}"


def _all_commands(parser, path="testcard"):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{path} {name}", sub
                yield from _all_commands(sub, f"{path} {name}")


def test_cli_page_covers_every_command_and_option_including_nested_bench():
    section = docs.get_section(page("cli.md"), "cli")
    commands = list(_all_commands(build_parser()))
    assert any(path.startswith("testcard bench ") for path, _ in commands)
    for path, sub in commands:
        assert f"## {path}\n" in section, f"{path} missing from docs/cli.md: {docs.HINT}"
        body = section.split(f"## {path}\n", 1)[1].split("\n## ", 1)[0]
        for action in sub._actions:
            for opt in action.option_strings:
                if opt not in ("-h", "--help") and action.help != argparse.SUPPRESS:
                    assert f"`{opt}`" in body, f"{path} {opt} missing: {docs.HINT}"


def test_a_metavar_with_a_bar_does_not_split_its_table_cell():
    section = docs.get_section(page("cli.md"), "cli")
    rows = [ln for ln in section.splitlines() if ln.startswith("| `--screen`")]
    assert rows and all("INDEX\\|NAME" in r or "INDEX|NAME" not in r for r in rows)
    assert {len(re.split(r"(?<!\\)\|", r)) for r in rows} == {5}     # three cells, no more


def test_every_environment_variable_the_code_reads_is_documented_and_none_is_stale():
    used = docs.env_vars_in_source(docs.source_files())
    missing = sorted(used - set(docs.ENV_VARS))
    assert not missing, f"describe {missing} in ENV_VARS in app/docs.py, then {docs.HINT}"
    stale = sorted(n for n in docs.ENV_VARS if n.startswith("TESTCARD_") and n not in used)
    assert not stale, f"{stale} documented but no code reads them: drop them from ENV_VARS"
    section = docs.get_section(page("environment.md"), "env")
    for name in docs.ENV_VARS:
        assert f"| `{name}` |" in section, f"{name} missing from docs/environment.md: {docs.HINT}"


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


def test_check_mode_reports_a_stale_page_and_writing_fixes_it(tmp_path, capsys):
    path = tmp_path / "patterns.md"
    fresh = page("patterns.md")
    path.write_text(fresh.replace("| `solid` |", "| `solidly` |"), encoding="utf-8")
    assert docs.main(["--check", str(path)]) == 1
    assert "out of date: catalog (run python -m app.docs)" in capsys.readouterr().err
    assert docs.main([str(path)]) == 0
    assert docs.main(["--check", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == fresh


def _copy_of_the_pages(tmp_path, monkeypatch):
    for file, _ in docs.SECTIONS:
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(docs.ROOT / file, tmp_path / file)
    monkeypatch.setattr(docs, "ROOT", tmp_path)


def test_the_check_covers_every_generated_page(tmp_path, monkeypatch, capsys):
    _copy_of_the_pages(tmp_path, monkeypatch)
    assert docs.main(["--check"]) == 0
    for file, name in docs.SECTIONS:
        target = tmp_path / file
        good = target.read_text(encoding="utf-8")
        i, _ = docs.section_bounds(good, name)
        target.write_text(good[:i] + "\nstale line" + good[i:], encoding="utf-8")
        assert docs.main(["--check"]) == 1, file
        assert f"{file}: out of date: {name}" in capsys.readouterr().err
        assert docs.main([]) == 0 and target.read_text(encoding="utf-8") == good
    (tmp_path / "docs" / "cli.md").write_text("# a page that lost its markers\n", encoding="utf-8")
    assert docs.main(["--check"]) == 1
    assert "docs/cli.md: needs exactly one <!-- section:cli -->" in capsys.readouterr().err
    (tmp_path / "docs" / "cli.md").unlink()
    assert docs.main(["--check"]) == 1 and docs.main([]) == 1
    assert "docs/cli.md" in capsys.readouterr().err


def test_a_file_without_generated_sections_is_left_alone_and_is_no_failure(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# testcard\n\nNo generated section here.\n", encoding="utf-8")
    assert docs.main([str(readme)]) == 0 and docs.main(["--check", str(readme)]) == 0
    assert "has no generated section" in capsys.readouterr().err
    assert readme.read_text(encoding="utf-8") == "# testcard\n\nNo generated section here.\n"


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


# ---------------------------------------------------------------- the front door and the manual
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _links(text: str) -> list[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [t for t in LINK.findall(text) if not t.startswith(("http://", "https://", "mailto:"))]


def _anchors(text: str) -> set[str]:
    """The heading ids MkDocs gives (toc's slugify) and explicit ``<a id=...>`` anchors."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    heads = re.findall(r"^#{1,6} (.+)$", text, re.M)
    slugs = {re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", h.replace("`", "")).strip().lower())
             for h in heads}
    return slugs | set(re.findall(r'<a id="([^"]+)"', text))


def _nav_pages() -> list[str]:
    return re.findall(r"^\s*- [^:\n]+: (\S+\.md)\s*$", MKDOCS, re.M)


def test_readme_is_short_and_starts_with_the_two_set_up_commands():
    lines = README.splitlines()
    assert len(lines) <= 200
    block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [ln.split("#")[0].strip() for ln in block.splitlines()]
    assert README.startswith("# testcard\n\n```sh\npackaging/setup run ")
    assert commands == ["packaging/setup run", "packaging/setup test"]


def test_every_readme_link_reaches_a_file_and_anchor_that_exist():
    links = _links(README)
    assert any(t.startswith("docs/") for t in links)
    for target in links:
        path, _, anchor = target.partition("#")
        file = docs.ROOT / path if path else docs.README
        assert file.exists(), f"README links to {target}, which does not exist"
        if anchor and file.suffix == ".md":
            assert anchor in _anchors(file.read_text(encoding="utf-8")), f"README: no #{anchor} in {path}"


def test_every_page_is_in_the_navigation_and_two_clicks_from_the_readme():
    nav = _nav_pages()
    on_disk = sorted(p.name for p in docs.DOCS.glob("*.md"))
    assert sorted(nav) == on_disk and len(nav) == len(set(nav))
    first = {t.partition("#")[0].removeprefix("docs/") for t in _links(README) if t.startswith("docs/")}
    reached = set(first)
    for name in first:
        reached |= {t.partition("#")[0] for t in _links((docs.DOCS / name).read_text(encoding="utf-8"))
                    if t.partition("#")[0].endswith(".md")}
    assert set(on_disk) <= reached, f"not two clicks from the README: {sorted(set(on_disk) - reached)}"


@pytest.mark.parametrize("name", sorted(p.name for p in docs.DOCS.glob("*.md")))
def test_each_page_opens_with_its_purpose_and_a_command(name):
    text = (docs.DOCS / name).read_text(encoding="utf-8")
    head = text.split("\n## ", 1)[0]
    assert text.startswith("# ")
    assert "```" in head or "`testcard" in head or "`packaging/" in head, \
        f"{name}: no command before its detail"
