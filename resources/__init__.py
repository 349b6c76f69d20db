"""testcard's data files: icons, presets, the desktop entry and its AppStream metainfo.

Loaded with ``importlib.resources``, so they work installed, editable and bundled.  The names
below describe these files, for the app and for ``testcard install-desktop`` alike.
"""

APP_ID = "io.github.testcard.Testcard"           # the .desktop entry's and the metainfo's name
ICON_SIZES = (16, 32, 48, 64, 128, 256)          # icons/testcard-<size>.png
