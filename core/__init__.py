"""testcard's compute core: patterns, frame engine, timing, decoding, decisions.

Pure Python on arrays. Never imports Qt or ``app``.
"""

__version__ = "0.1.0"
