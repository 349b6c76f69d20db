"""The manual's map of where things are is read from the tree: every package and top-level module
is on it with its docstring's first sentence, and one added to the tree appears on it."""

from app.tree_map import first_sentence, map_markdown, rows
from tests.helpers import ROOT


def test_every_package_and_top_level_module_is_on_the_map_with_a_docstring():
    got = dict(rows())
    for top in ("core", "app"):
        for pkg in (ROOT / top).iterdir():
            if (pkg / "__init__.py").is_file():
                assert f"{top}/{pkg.name}/" in got
        for f in (ROOT / top).glob("*.py"):
            if f.name not in ("__init__.py", "__main__.py"):
                assert f"{top}/{f.name}" in got
    missing = [where for where, what in got.items() if what == "(no docstring)"]
    assert not missing, f"say what these are in a docstring: {missing}"
    assert got["core/decode/"].startswith("Did every frame reach the screen")


def test_a_package_added_to_the_tree_appears_on_the_map(tmp_path):
    for top in ("core", "app"):
        (tmp_path / top).mkdir()
        (tmp_path / top / "__init__.py").write_text(f'"""The {top} side."""\n')
    (tmp_path / "core" / "widgets").mkdir()
    (tmp_path / "core" / "widgets" / "__init__.py").write_text('"""Widgets, e.g. dials. More."""\n')
    (tmp_path / "app" / "loose.py").write_text("x = 1\n")
    text = map_markdown(tmp_path)
    assert "| `core/widgets/` | Widgets, e.g. dials. |" in text
    assert "| `app/loose.py` | (no docstring) |" in text
    assert text.index("`core/`") < text.index("`core/widgets/`") < text.index("`app/`")


def test_first_sentence_keeps_abbreviations_and_writes_roles_as_code():
    assert first_sentence("Reads a frame, e.g. a PNG. Then more.") == "Reads a frame, e.g. a PNG."
    assert first_sentence("Uses :func:`~core.decode.analyse` and :mod:`core.atomic`.\n\nMore.") == \
        "Uses `analyse` and `core.atomic`."
    assert first_sentence("``testcard doctor``: checks") == "`testcard doctor`: checks"
    assert first_sentence(None) == "(no docstring)"
