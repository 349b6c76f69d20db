"""``testcard presets``: list the presets, or render every frame of one to a folder."""

from __future__ import annotations

import sys
from pathlib import Path

from app.commands.common import Progress, one_line, print_json, refuse_overwriting_inputs


def register(sub) -> None:
    p = sub.add_parser("presets", help="list the presets (named pattern sets), or render one to files")
    p.add_argument("name", nargs="?", help="preset to render (see the list); omit to list them all")
    p.add_argument("--json", action="store_true", help="print the presets as JSON")
    p.add_argument("--size", default="1920x1080", help="frame size for rendering (default 1920x1080)")
    p.add_argument("--bit-depth", type=int, default=10, help="code-value bit depth (default 10)")
    p.add_argument("--limited", action="store_true",
                   help="limited (video) range, unless an entry sets its own")
    p.add_argument("--format", default="png", choices=("png", "tif", "npy"), help="file type (default png)")
    p.add_argument("-o", "--output", help="folder to render the preset's frames into")
    p.set_defaults(func=run)


def user_preset_dirs() -> list[Path]:
    """``presets/`` in the settings folder: a user's own preset files add to the built-in ones."""
    from core.paths import presets_dir

    return [presets_dir()]


def run(args) -> int:
    from core.patterns import get_preset, load_presets

    presets, problems = load_presets(user_preset_dirs())
    for problem in problems:
        print(f"testcard: skipped {problem}", file=sys.stderr)
    if args.name is None:
        if args.json:
            print_json([dict(p.to_dict(), source=p.source) for p in presets])
        else:
            for p in presets:
                # a user's preset file may hold anything: control characters are shown escaped
                print(f"{one_line(p.name)} ({len(p.entries)} frame{'s' if len(p.entries) != 1 else ''}): "
                      f"{one_line(p.description)}")
        return 0
    preset = get_preset(args.name, presets)
    if not args.output:
        raise ValueError("rendering a preset needs -o FOLDER")
    return _render(preset, args)


def _render(preset, args) -> int:
    from core.imageio import check_output_path, sidecar_path
    from core.manifest import save_frame
    from core.patterns import parse_size, render

    w, h = parse_size(args.size)
    specs = preset.specs(w, h, bit_depth=args.bit_depth, limited=args.limited)
    folder = Path(args.output)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create {folder}: {exc.strerror or exc}") from None
    outs = [folder / f"{i + 1:02d}-{spec.pattern}.{args.format}" for i, spec in enumerate(specs)]
    for out in outs:  # every file checked before the first frame is rendered
        check_output_path(out, sidecar=True)
    refuse_overwriting_inputs([*outs, *map(sidecar_path, outs)], [preset.source])
    prog = Progress(len(specs), preset.name)
    for i, (spec, out) in enumerate(zip(specs, outs, strict=True)):
        prog.update(i, spec.pattern)
        save_frame(out, spec, render(spec, 0), 0, "numpy", None)
    prog.update(len(specs))
    prog.close()
    print(f"wrote {len(specs)} frames of {one_line(repr(preset.name))} to {one_line(folder)} ({w}x{h})",
          file=sys.stderr)
    return 0
