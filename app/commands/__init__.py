"""The commands of ``testcard``, one module each (``gui`` included), and their shared vocabulary,
:mod:`~app.commands.common`; :mod:`app.cli` parses the line and calls the one named."""
