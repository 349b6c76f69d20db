"""The Measure panel's decision files: Save the verdict shown, Export this box's verdicts,
Import another box's with its receipt.  Each runs on the panel's task runner (the cache lock
may wait on another process) and says how it went in the panel's receipt view.

A mixin of :class:`~app.panels.measure.MeasurePanel` (as the main window's actions are of the
window): it uses the panel's ``result``, ``saved_key``, ``decisions`` (the cache: the live
output's where the panel has one, so a saved or imported verdict reaches its loop at once),
``tasks``, ``dialogs``, ``receipt_view``, ``save_button``, ``_update_buttons`` and its file
signals.
"""

from __future__ import annotations

from PySide6.QtCore import Slot

from core.decisions import DecisionCache, export_decisions, import_decisions, record_result


class DecisionFileActions:
    decisions: DecisionCache | None     # the panel's (set in its __init__)

    @Slot()
    def save(self) -> None:
        if self.result is None or self.result.winner is None:
            return

        result = self.result
        self.save_button.setEnabled(False)
        self.tasks.submit(lambda: record_result(result, self.decisions), self._saved)

    def _saved(self, key, exc) -> None:
        if exc is not None:
            self._file_message(f"Save failed: {exc}", error=True)
            self._update_buttons()
            return
        self.saved_key = key
        self._file_message(f"Saved: {key}")
        self._update_buttons()
        self.decision_saved.emit(key)
        self.decisions_changed.emit()

    def export_to(self, path: str, bands=None) -> None:
        """Write this box's verdicts (all bands, or ``bands``) to ``path`` off the GUI thread."""
        self.tasks.submit(lambda: export_decisions(path, bands=bands, cache=self.decisions),
                       lambda n, exc: self._exported(path, n, exc))

    def _exported(self, path, n, exc) -> None:
        if exc is not None:
            self._file_message(f"Export failed: {exc}", error=True)
            return
        self._file_message(f"Exported {n} decision(s) to {path}")
        self.decisions_exported.emit(path, n)

    def import_from(self, path: str) -> None:
        """Merge a decision file off the GUI thread; the receipt is shown when it is done."""
        self.tasks.submit(lambda: import_decisions(path, cache=self.decisions), self._imported)

    def _imported(self, receipt, exc) -> None:
        if exc is not None:
            self._file_message(f"Import refused: {exc}", error=True)
            return
        lines = [receipt.summary()]
        for e in receipt.entries:
            lines.append(f"  {e['action']:<10} {e['band']:<28} {e['form']:<6} {e['winner']:<16} "
                         f"{e['device']}")
        lines += [f"warning: {w}" for w in receipt.warnings]
        self.receipt_view.setPlainText("\n".join(lines))
        self.decisions_imported.emit(receipt)
        self.decisions_changed.emit()

    def _file_message(self, text: str, error: bool = False) -> None:
        self.receipt_view.setPlainText(text)
        if error:
            self.file_failed.emit(text)

    @Slot()
    def _export_dialog(self) -> None:
        path = self.dialogs.save_file(self, "decisions", "Export decisions", "decisions.json",
                                      "Decision files (*.json)")
        if path:
            self.export_to(path)

    @Slot()
    def _import_dialog(self) -> None:
        path = self.dialogs.open_file(self, "decisions", "Import decisions", "Decision files (*.json)")
        if path:
            self.import_from(path)
