"""Where testcard keeps its files (core.paths): the environment overrides, else platformdirs."""

from pathlib import Path

import platformdirs
import pytest

from core.paths import ENV_CACHE_DIR, ENV_CONFIG_DIR, cache_dir, config_dir, presets_dir

DIRS = [pytest.param(config_dir, ENV_CONFIG_DIR, "config", platformdirs.user_config_path, id="config"),
        pytest.param(cache_dir, ENV_CACHE_DIR, "cache", platformdirs.user_cache_path, id="cache")]


def test_the_variable_names():
    assert (ENV_CONFIG_DIR, ENV_CACHE_DIR) == ("TESTCARD_CONFIG_DIR", "TESTCARD_CACHE_DIR")


@pytest.mark.parametrize("folder,env,sub,platform_path", DIRS)
def test_the_environment_decides(tmp_path, monkeypatch, folder, env, sub, platform_path):
    assert folder() == tmp_path / sub                     # set per test by tests/conftest.py
    monkeypatch.setenv(env, str(tmp_path / "elsewhere" / sub))
    assert folder() == tmp_path / "elsewhere" / sub
    monkeypatch.setenv(env, f"  {tmp_path / 'padded'}  ")  # surrounding blanks are not part of it
    assert folder() == tmp_path / "padded"
    monkeypatch.setenv(env, "~/tc")                        # a home-relative value is expanded
    assert folder() == Path("~/tc").expanduser() and "~" not in folder().parts


@pytest.mark.parametrize("folder,env,sub,platform_path", DIRS)
def test_unset_falls_back_to_the_platform_folder(tmp_path, monkeypatch, folder, env, sub, platform_path):
    monkeypatch.delenv(env)
    got = folder()
    assert got == platform_path("testcard", appauthor=False)
    assert "testcard" in got.parts
    assert tmp_path not in got.parents


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
@pytest.mark.parametrize("folder,env,sub,platform_path", DIRS)
def test_a_blank_value_is_unset(monkeypatch, folder, env, sub, platform_path, blank):
    monkeypatch.delenv(env)
    unset = folder()
    monkeypatch.setenv(env, blank)
    assert folder() == unset == platform_path("testcard", appauthor=False)
    assert folder() != Path(blank) and folder() != Path.cwd()


def test_config_and_cache_fall_back_to_different_folders(monkeypatch):
    monkeypatch.delenv(ENV_CONFIG_DIR)
    monkeypatch.delenv(ENV_CACHE_DIR)
    assert config_dir() != cache_dir()


def test_presets_live_in_the_config_folder(tmp_path, monkeypatch):
    assert presets_dir() == tmp_path / "config" / "presets"
    monkeypatch.delenv(ENV_CONFIG_DIR)
    assert presets_dir() == platformdirs.user_config_path("testcard", appauthor=False) / "presets"
