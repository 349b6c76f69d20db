"""Hypothesis strategies for hostile decision files and caches: a valid document mutated by
byte flips, truncation, key deletions and renames, type swaps and huge values."""

import json

from hypothesis import strategies as st

from core.decisions import SCHEMA, document
from tests.helpers.decision_helpers import BAND, FP, HERE, OTHER, entry, key, live_entry

HUGE = st.sampled_from([
    "x" * 100_000,                       # an absurd string
    "cpu:" + "A" * 100_000,              # an absurd fingerprint
    "cpu:Test\nCPU x4",                  # a newline in one
    "cpu:Test\x1b[31mCPU x4",            # a terminal escape in one
    "2999-01-01T00:00:00+00:00",         # a time in the future
    "0001-01-01T00:00:00+14:00",         # the calendar's edge
    10 ** 29, -(10 ** 29), 1e308, -1e308, 5e-324,
    True, False,                         # booleans where numbers belong
])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12) | HUGE
    | st.sampled_from(["numpy", "torch-eager", "torch-compiled", "opencl", "ok", "error", "live", "render",
                       "2025-01-01T00:00:00+00:00", "2025-01-01", HERE, OTHER, FP, BAND, "", "x|y"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def key_paths(node, prefix=()):
    """Every location in a JSON tree (as key paths), the root included."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from key_paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from key_paths(v, prefix + (i,))


def valid_doc(here=HERE):
    """Four entries: three for ``here`` (one measured with an old torch, one raced live), one
    for another box."""
    return document({key(here, BAND): entry("torch-compiled"),
                     key(here, BAND, "live"): live_entry("torch-eager"),
                     key(here, "static@1080p/rgb8"): entry("torch-eager", torch="1.13.0"),
                     key(OTHER, BAND): entry("torch-eager")})


@st.composite
def mutated_files(draw, here=HERE):
    """The bytes of :func:`valid_doc` after one random mutation."""
    doc = valid_doc(here)
    kind = draw(st.sampled_from(["replace", "delete", "insert", "rename", "bytes", "nest", "newer"]))
    if kind == "newer":   # written by a newer testcard, perhaps with fields this one lacks
        doc["schema"] = draw(st.integers(SCHEMA + 1, 10**6))
        if draw(st.booleans()):
            doc[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
        return json.dumps(doc).encode()
    if kind == "bytes":
        raw = bytearray(json.dumps(doc, indent=1).encode())
        pos = draw(st.integers(0, len(raw) - 1))
        how = draw(st.sampled_from(["truncate", "flip", "drop", "duplicate"]))
        if how == "truncate":
            raw = raw[:pos]
        elif how == "flip":
            raw[pos] = draw(st.integers(0, 255))
        elif how == "drop":
            del raw[pos]
        else:   # a line twice: often a duplicate key
            start = raw.rfind(b"\n", 0, pos) + 1
            end = raw.find(b"\n", pos)
            end = len(raw) if end < 0 else end
            raw[start:start] = raw[start:end] + b"\n"
        return bytes(raw)
    if kind == "nest":
        depth = draw(st.integers(20, 5000))
        return ("[" * depth + "1" + "]" * depth).encode()
    where = draw(st.sampled_from(list(key_paths(doc))))
    parent, last = None, None
    node = doc
    for part in where:
        parent, last, node = node, part, node[part]
    if kind == "replace":
        value = draw(json_values)
        if parent is None:
            doc = value
        else:
            parent[last] = value
    elif kind == "delete" and parent is not None:
        del parent[last]
    elif kind in ("insert", "rename") and isinstance(node, dict):
        name = draw(st.text(max_size=10) | HUGE.filter(lambda v: isinstance(v, str))
                    | st.sampled_from(list(node) or ["x"]))
        if kind == "rename" and node:
            old = draw(st.sampled_from(list(node)))
            node[name] = node.pop(old)
        else:
            node[name] = draw(json_values)
    return json.dumps(doc, allow_nan=True).encode()
