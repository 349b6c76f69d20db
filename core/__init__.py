"""testcard's compute core: patterns, frame engine, timing, decoding, decisions.

Pure Python on arrays. Never imports Qt or ``app``.  This module holds only what every layer
may ask for: the version.
"""

__version__ = "0.1.0"


def version() -> str:
    """testcard's version: the installed distribution's, else this source tree's (a checkout or a
    bundle without metadata)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("testcard")
    except PackageNotFoundError:
        return __version__
