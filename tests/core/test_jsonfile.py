"""core.jsonfile: the bounded JSON reader every settings, preset, manifest and decision file uses."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.jsonfile import JsonError, load_json, parse_json


def test_plain_document_round_trips():
    assert parse_json('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}


@pytest.mark.parametrize("text, reason", [
    ('{"a": 1, "a": 2}', "duplicate key 'a'"),
    ('{"a": NaN}', "NaN is not a number"),
    ('[Infinity]', "Infinity is not a number"),
    ("[" * 40 + "]" * 40, "nested 40 deep"),
    ("[" + "9" * 31 + "]", "31 digits is too long"),
    ("{", "not valid JSON"),
])
def test_refusals_name_the_source_and_reason(text, reason):
    with pytest.raises(JsonError) as e:
        parse_json(text, source="presets.json")
    assert str(e.value).startswith("presets.json: ")
    assert reason in str(e.value)


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert parse_json(json.dumps({"k": "[" * 100})) == {"k": "[" * 100}


def test_non_utf8_bytes_are_refused():
    with pytest.raises(JsonError, match="not UTF-8"):
        parse_json(b'{"a": "\xff"}')


def test_file_over_the_cap_is_refused_from_its_size(tmp_path):
    p = tmp_path / "big.json"
    p.write_text("[" + "0," * 600 + "0]")
    with pytest.raises(JsonError, match="over the 1000-byte limit"):
        load_json(p, max_bytes=1000)
    assert load_json(p, max_bytes=10_000)[0] == 0


@given(st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.text(),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(), c, max_size=4),
                    max_leaves=20))
def test_whatever_json_writes_reads_back(doc):
    try:
        assert parse_json(json.dumps(doc)) == doc
    except JsonError as e:  # only refusal allowed: too deep
        assert "deep" in str(e)


@given(st.binary(max_size=200))
def test_random_bytes_never_raise_anything_but_jsonerror(data):
    try:
        parse_json(data)
    except JsonError:
        pass


def test_the_nesting_check_is_linear_in_escapes_and_long_strings():
    # a document of escaped quotes, and one long string: the pre-scan must not backtrack
    # (it visits each special character once), so these are refused or read, never stalled
    from core import jsonfile
    text = '"' + '\\\\"' * 200_000
    assert jsonfile._nesting_depth(text) == 0
    with pytest.raises(JsonError):
        parse_json(text)
    assert parse_json(json.dumps(["x" * 2_000_000, {"a": '"[{'}]))[1] == {"a": '"[{'}


@given(st.text(alphabet='[]{}"\\ab', max_size=60))
def test_the_nesting_check_agrees_with_a_plain_scanner(text):
    from core import jsonfile
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    assert jsonfile._nesting_depth(text) == deepest
