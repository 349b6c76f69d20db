"""Where testcard keeps its files: the platform's folders (``platformdirs``), each overridable
by an environment variable (the tests point every one at a temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

ENV_CONFIG_DIR = "TESTCARD_CONFIG_DIR"
ENV_CACHE_DIR = "TESTCARD_CACHE_DIR"


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    """Settings and the user's own presets: ``$TESTCARD_CONFIG_DIR``, else the platform's
    user config folder."""
    env = _env_path(ENV_CONFIG_DIR)
    if env is not None:
        return env
    from platformdirs import user_config_path

    return user_config_path("testcard", appauthor=False)


def presets_dir() -> Path:
    """A user's own preset files, added to the built-in ones: ``presets/`` in :func:`config_dir`."""
    return config_dir() / "presets"


def cache_dir() -> Path:
    """Measured data (the decision cache): ``$TESTCARD_CACHE_DIR``, else the platform's user
    cache folder."""
    env = _env_path(ENV_CACHE_DIR)
    if env is not None:
        return env
    from platformdirs import user_cache_path

    return user_cache_path("testcard", appauthor=False)
