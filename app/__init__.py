"""testcard's Qt side and its command line: the control window, the live output, the panels, and
one module per command (the headless ones never import Qt)."""
