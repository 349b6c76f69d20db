"""Helpers shared by the tests (capture simulation, decision entries, the GL probe)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]   # the repository
