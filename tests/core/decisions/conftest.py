"""Fixtures shared by the decision tests."""

import pytest

from core.decisions import DecisionCache


@pytest.fixture
def cache(tmp_path):
    return DecisionCache(tmp_path / "decisions.json")
