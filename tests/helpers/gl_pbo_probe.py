"""Run under a real X server (see tests/app/preview/test_xvfb.py): pixel-buffer uploads.

Prints one JSON object.  For each case the engine writes a frame straight into a buffer the GL
presenter lends (a mapped pixel-buffer object), the presenter uploads it from there, and the
texture is read back with ``glReadPixels``; the same frame is then uploaded from host memory
(the path without pixel buffers) and read back again.  Then counter frames of which only the
changing lines are written and uploaded, over a whole frame of the same spec.  Also: the
window's own framebuffer at 1:1 for 8-bit frames, and how many uploads a frame presented three
times costs.
"""

import json
import sys

import numpy as np

GL_RGBA, GL_BGRA = 0x1908, 0x80E1
GL_UNSIGNED_BYTE, GL_UNSIGNED_INT_2_10_10_10_REV = 0x1401, 0x8368

CASES = (("counter", {"bits": 12}, 8, "rgb8", 5),
         ("zone_plate", {}, 8, "rgb8", 2),
         ("ramp", {}, 10, "rgb10", 0))


def texture(p, data):
    """The presenter's texture, read back in the frame's own layout."""
    h, w = data.shape[:2]
    out = np.zeros_like(data)
    p.makeCurrent()
    p._fbo.bind()
    fmt, typ = (GL_BGRA, GL_UNSIGNED_INT_2_10_10_10_REV) if data.ndim == 2 else (GL_RGBA, GL_UNSIGNED_BYTE)
    p.context().functions().glReadPixels(0, 0, w, h, fmt, typ, out)
    p._fbo.release()
    p.doneCurrent()
    return out


def main() -> int:
    from app.qapp import ensure_qapplication

    app = ensure_qapplication(sys.argv[:1])
    from PySide6.QtCore import QTimer

    from app.preview import GLPresenter
    from core.engine import Engine
    from core.patterns import make_spec
    from tests.helpers.gl_probe import centre, image_rgb

    p = GLPresenter()
    p.resize(400, 300)
    p.set_one_to_one(True)
    results: list[dict] = []
    out: dict = {"cases": results}
    todo = list(CASES)
    state: dict = {}

    def present(data, then):
        state["then"] = then
        p.set_frame(data)
        p.request_present()

    def on_swapped():
        then = state.pop("then", None)
        if then is not None:
            then()

    def next_case():
        if not todo:
            return lines_case()
        name, params, bits, fmt, index = todo.pop(0)
        spec = make_spec(name, params, width=320, height=180, bit_depth=bits)
        with Engine(spec, fmt=fmt) as eng:
            want = eng.render(index).data.copy()          # the engine's own buffer: today's frame
            buf = p.lend_buffer(*eng.frame_layout)
            r = eng.render(index, out=buf)
        case = {"case": f"{name} {bits}-bit {fmt}", "lent_pbo": p._pbos.find(buf) is not None,
                "written_in_place": r.data is buf and r.error is None}
        results.append(case)
        before = dict(p.uploads)

        def after_pbo():
            got = texture(p, want)
            case["pbo_upload"] = p.uploads["pbo"] - before["pbo"]
            case["pbo_equal"] = bool(np.array_equal(got, want))
            if fmt == "rgb8":
                shown = centre(image_rgb(p.grabFramebuffer()), 320, 180)
                case["window_equal"] = bool(np.array_equal(shown, want[..., :3]))
            present(want.copy(), lambda: after_host(got))

        def after_host(pbo_got):
            got = texture(p, want)
            case["host_upload"] = p.uploads["host"] - before["host"]
            case["host_equal_pbo"] = bool(np.array_equal(got, pbo_got))
            next_case()

        present(buf, after_pbo)

    line_cases = [("compat", "rgb8", 8), ("robust", "rgb10", 10)]
    out["lines"] = []

    def lines_case():
        """A whole frame, then frames of which only the changing lines are written and uploaded:
        the texture must equal each whole frame."""
        if not line_cases:
            return static_case()
        layout, fmt, bits = line_cases.pop(0)
        spec = make_spec("counter", {"bits": 12, "layout": layout}, width=320, height=180,
                         bit_depth=bits)
        eng = Engine(spec, fmt=fmt)
        key = (spec, fmt)
        case = {"case": f"{layout} {fmt}", "equal": [], "lines_written": [],
                "uploads_before": p.line_uploads}
        out["lines"].append(case)
        try:
            p.set_frame(eng.render(0).data.copy(), lines=spec.changing_lines, key=key)
            case["refused_without_a_whole_frame"] = False
        except ValueError:
            case["refused_without_a_whole_frame"] = True
        indices = [5, 6, 7, 300, 4095]

        def show(i, lines):
            buf = p.lend_buffer(*eng.frame_layout)
            r = eng.render(i, out=buf, lines=lines)
            case["lines_written"].append(r.lines is not None)
            present_with(buf, r.lines, key, lambda: check(i))

        def check(i):
            want = Engine(spec, fmt=fmt).render(i).data
            case["equal"].append(bool(np.array_equal(texture(p, want), want)))
            if indices:
                show(indices.pop(0), spec.changing_lines)
            else:
                case["line_uploads"] = p.line_uploads - case.pop("uploads_before")
                eng.close()
                lines_case()

        show(indices.pop(0), None)

    def present_with(data, lines, key, then):
        state["then"] = then
        p.set_frame(data, lines=lines, key=key)
        p.request_present()

    def static_case():
        n = dict(p.uploads)
        swaps = [0]

        def again():
            swaps[0] += 1
            if swaps[0] < 3:
                state["then"] = again
                p.request_present()                       # presented again: nothing set
                return
            out["static_uploads"] = sum(p.uploads.values()) - sum(n.values())
            p.release()
            p.close()
            app.quit()

        state["then"] = again
        p.request_present()

    def start(_bits):
        if not state.get("started"):
            state["started"] = True
            QTimer.singleShot(0, next_case)        # after initializeGL: the context exists

    p.frameSwapped.connect(on_swapped)
    p.surface_ready.connect(start)
    p.show()
    app.exec()
    print(json.dumps(out))
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
