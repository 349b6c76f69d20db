"""``testcard latency --source``: the live run.  The robust counter fullscreen through the kiosk
(:class:`app.window.Kiosk`, the output window ``testcard show`` uses: its screen, its render
path, no banner over the counter), and the measurement
(:func:`app.panels.latency_run.latency_steps`) on a worker thread once the output has presented
for :data:`WARMUP_S`.  SIGINT (Ctrl-C), SIGTERM, Esc or a closed output
stop the capture, and the report covers what was captured.  Imported only by that command: it
starts Qt.
"""

from __future__ import annotations

import sys

from app.commands.common import CliError, Progress, open_metrics

WARMUP_S = 1.0            # the output presents this long before the capture starts


def run_live(args, frame_size, capture_size, corrections: tuple = (), wrap=lambda source: source) -> dict:
    """The live run's report (see the module's text).  ``corrections``: those known before the
    source opens (the end-of-frame one follows from the source's rate); ``wrap(source)``: the
    source the measurement reads (the capture test hook)."""
    from app.qapp import ensure_qapplication

    app = ensure_qapplication()

    from PySide6.QtCore import QTimer

    from app.panels import (
        SWITCH_INTERVAL_S,
        LatencyRequest,
        PresentRecorder,
        Refused,
        latency_steps,
        screen_grab_rate,
    )
    from app.window import Kiosk, output_target, quit_on_signals, say
    from app.workers import GeneratorWorker
    from core.capture import open_source, parse_spec
    from core.decode import LiveRequest
    from core.patterns import make_spec

    identity, record = output_target(args.screen)
    w, h = frame_size or record.native_size
    sw, sh = record.native_size
    if w > sw or h > sh:
        raise CliError(f"--size {w}x{h} is larger than screen {record.title} ({sw}x{sh}): the counter "
                       "would be cropped")
    spec = make_spec("counter", {"layout": "robust", "bits": args.bits}, width=w, height=h, bit_depth=8)
    kiosk = Kiosk(spec, wanted=identity, banner=False)   # a banner would cover the counter
    kiosk.note.connect(say)
    loop = kiosk.loop
    captures: list = []                  # the capture's metric families, with --metrics

    def capture_families(registry) -> None:
        from core.metrics import CaptureMetrics

        captures.append(CaptureMetrics(registry))

    _live, metrics = open_metrics(getattr(args, "metrics_at", None), loop, presenter=kiosk.presenter_kind,
                                  extra=capture_families, parent=kiosk)
    recorder = PresentRecorder(loop)
    outcome: dict = {}
    prog = Progress(None, "latency")
    worker: list = []

    def progressed(updates):
        last = updates[-1]
        if captures:
            import numpy as np

            for u in updates:
                for ms in u.latency_ms[np.isfinite(u.latency_ms)]:
                    captures[0].observe_latency(float(ms) / 1e3)
            captures[0].totals(last.batch.summary["frames"], last.capture_drops, last.display_drops)
        prog.update(last.batch.summary["frames"], f"{last.matched}/{last.presented} matched, "
                                                  f"{last.display_drops} dropped")

    def finish():
        if not outcome.get("closing"):
            outcome["closing"] = True
            QTimer.singleShot(0, app.quit)

    def start():
        if outcome:
            return
        refresh = 1000.0 / loop.period_ms
        outcome["refresh_hz"] = refresh
        kind = parse_spec(args.source)[0]
        fps = args.capture_fps or (screen_grab_rate(refresh) if kind == "x11grab" else None)

        def opener():
            return wrap(open_source(args.source, size=capture_size, fps=fps,
                                    pixel_format=args.pixel_format))

        # the end-of-frame correction needs the source's rate: taken once the source is open
        req = LatencyRequest(opener, LiveRequest(display_fps=refresh, seconds=args.seconds),
                             corrections, end_of_frame=args.end_of_frame)
        job = GeneratorWorker(lambda cancel: latency_steps(req, recorder, cancel), name="testcard-latency")
        job.yielded.connect(progressed)
        job.returned.connect(lambda report: (outcome.update(report=report), finish()))
        job.errored.connect(lambda exc: (outcome.update(error=exc), finish()))
        job.aborted.connect(lambda: (outcome.update(error=CliError("stopped before the capture could "
                                                                    "report", 130)), finish()))
        worker.append(job)
        job.start()

    def stop(why: str) -> None:
        if worker:
            worker[0].quit()              # the capture stops; its report follows
        elif not outcome:
            outcome.update(error=CliError(f"stopped ({why}) before the capture started", 130))
            finish()

    kiosk.quit_requested.connect(stop)
    # the present time is read in a Python slot: a decode thread holding the interpreter for its
    # default 5 ms slice would make it late by as much
    switch = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        with quit_on_signals(stop):
            kiosk.start()
            recorder.start()
            QTimer.singleShot(int(WARMUP_S * 1000), start)
            app.exec()
    finally:
        sys.setswitchinterval(switch)
        prog.close()
        if worker:
            worker[0].quit()
            worker[0].wait()
            app.processEvents()           # its outcome, if the event loop ended first
        recorder.stop()
        if metrics is not None:
            metrics.close()
        presenter = kiosk.output.window
        seen = {"presenter": presenter.kind if presenter is not None else kiosk.presenter_kind,
                "pacing": loop.mode}
        kiosk.close()
    err = outcome.get("error")
    if err is not None:
        if isinstance(err, CliError | ValueError | Refused | OSError):   # the source refused: bad input
            raise CliError(str(err), getattr(err, "code", 2)) from None
        raise err
    report = outcome.get("report")
    if report is None:
        raise CliError("the output closed before the capture reported", 130)
    report["output"] = {"pattern": "counter (robust)", "size": f"{spec.width}x{spec.height}",
                        "bits": args.bits, "screen": record.title, **seen, "path": loop.path,
                        "refresh_hz": round(outcome["refresh_hz"], 3)}
    if recorder.dropped_rows:
        say(f"{recorder.dropped_rows} presents past the present log's limit were not kept")
    return report
