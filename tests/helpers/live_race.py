"""A fake live loop for race tests: paths presented at a fixed vsync cadence on an injected
clock, every time an exact number of milliseconds."""

import numpy as np

from core.decisions import Candidate, LiveFrames


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class IsolatedRunner:
    """A render-form runner: each render advances the clock by ``cost_ms``; frames are the
    numpy reference's (index-dependent), so parity holds."""

    ready = True
    compile_seconds = None

    def __init__(self, clock, cost_ms):
        self.clock, self.cost_ms = clock, cost_ms
        self.closed = False

    def render(self, index):
        self.clock.now += self.cost_ms / 1e3
        return np.full((4, 6, 3), index % 1024, dtype=np.uint16)

    def sync(self):
        pass

    def wait_ready(self, timeout):
        pass

    def close(self):
        self.closed = True


def isolated(clock, costs_ms: dict) -> list[Candidate]:
    """Render-form candidates with these per-frame costs (ms)."""
    return [Candidate(name, lambda c=cost: IsolatedRunner(clock, c)) for name, cost in costs_ms.items()]


class FakeLoop:
    """``present(path, count)`` as a vsync-paced loop at ``period_ms`` would: each frame takes
    ``cost[path]`` ms of render + transfer + upload and ``stall[path](i)`` ms more that is no part
    of its cost (contention for the display server), then is presented at the next vblank.
    After a switch to a path in ``compile_frames``, that many frames come from ``torch-eager``
    (as warm-up) while it compiles.  A path in ``stand_in`` is never served: its frames come from
    the path named there and none is a warm-up (a still frame presented again from a render
    cache that never switches).  Every call is logged in ``calls``."""

    def __init__(self, clock, cost_ms: dict, *, period_ms: int = 16, stall=None, compile_frames=None,
                 stray=None, stand_in=None):
        self.clock, self.cost_ms, self.period = clock, cost_ms, period_ms
        self.stall = stall or {}
        self.compile_frames = compile_frames or {}
        self.stand_in = stand_in or {}
        self.stray = stray or {}          # path -> frame count after which one frame comes from numpy
        self.calls: list[tuple[str, int]] = []
        self.vblank = 0
        self.last = None
        self.since_switch = 0
        self.shown = {}

    def __call__(self, path, count):
        self.calls.append((path, count))
        # time passed since the last call (isolated renders, say): the loop kept presenting
        self.vblank = max(self.vblank, int(np.ceil(self.clock.now * 1000.0 / self.period - 1e-9)))
        if path != self.last:
            self.last, self.since_switch = path, 0
        t, cost, warm, served = [], [], [], []
        for _ in range(count):
            n = self.shown[path] = self.shown.get(path, 0) + 1
            compiling = self.since_switch < self.compile_frames.get(path, 0)
            self.since_switch += 1
            by = "torch-eager" if compiling else self.stand_in.get(path, path)
            if self.stray.get(path) == n:
                by = "numpy"
            busy = self.cost_ms[by] + (self.stall[path](n) if path in self.stall else 0)
            # the first vblank at least one period after the last, once the frame is ready
            ready = self.vblank * self.period + busy
            self.vblank = max(self.vblank + 1, -(-ready // self.period))
            self.clock.now = self.vblank * self.period / 1000.0
            t.append(self.clock.now)
            cost.append(self.cost_ms[by])
            warm.append(compiling)
            served.append(by)
        z = np.zeros(count)
        return LiveFrames(np.array(t), np.array(cost, dtype=float), z, z.copy(), np.array(warm),
                          tuple(served), float(self.period))
