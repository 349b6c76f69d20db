"""Which render path serves which band on which box.

``bands`` names classes of render work, ``fingerprint`` names the hardware, ``race`` races
candidates fairly (through the ``Runner`` Protocol) in the ``render`` form, ``live`` in the
``live`` form (through the Qt side's ``PresentFrames``), ``verdict`` holds both forms' pure
verdict rules, ``figures`` names every figure a race reports (one statistic per name, the same
in every view), ``rows`` builds a race's table rows for every view, ``candidates`` makes the
engine's paths candidates (``RaceRequest``), ``schema`` validates decision documents (and caps
them; ``fields`` are its checks), ``cache`` keeps verdicts on disk, ``index`` holds them in
memory for lookups (one index per file in each ``Indexes`` registry, which its owner passes to
the caches that share it), ``choose`` picks a path (race > pin > cache, live before render >
default; the race a ``RaceOverride`` its owner passes), ``exchange`` exports and imports
decision files.
"""

from core.decisions.bands import (
    BAND_FORMATS,
    RESOLUTIONS,
    Band,
    band_chain,
    families,
    format_band,
    make_band,
    parse_band,
    representative_spec,
)
from core.decisions.cache import DecisionCache, DecisionCacheWarning, cache_path, record_result
from core.decisions.candidates import RaceRequest, band_candidates, live_race_band, race_band
from core.decisions.choose import Decision, RaceOverride, choose_path, choose_path_for, parse_pin
from core.decisions.exchange import (
    export_decisions,
    import_decisions,
    list_entries,
    read_decision_file,
    resolve_devices,
)
from core.decisions.figures import (
    RANKED,
    VS_DEFAULT,
    Figure,
    half_iqr,
    ms_text,
    paired_ratio,
    ranked,
    ratio_text,
)
from core.decisions.fingerprint import box_fingerprints, fingerprint, is_fingerprint
from core.decisions.index import Indexes
from core.decisions.live import (
    LiveFrames,
    LiveOutputLost,
    LiveRound,
    LiveRunner,
    PresentFrames,
    live_race,
    live_ready_s,
    round_figures,
)
from core.decisions.racing import (
    FORMS,
    Candidate,
    CandidateResult,
    RaceCancelled,
    RaceProgress,
    RaceResult,
    RaceSettings,
    Runner,
    race,
    run_race,
)
from core.decisions.rows import (
    RaceRow,
    columns,
    default_path,
    progress_step,
    race_rows,
    running_rows,
    time_left,
)
from core.decisions.schema import (
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    SCHEMA,
    DecisionFileError,
    NewerSchemaError,
    candidate_figures,
    document,
    key_form,
    make_key,
    parse_cache,
    parse_document,
    split_key,
    torch_version,
    validate_document,
)
from core.decisions.verdict import decide, decide_live, order_by_preference

__all__ = [
    "BAND_FORMATS",
    "Band",
    "Candidate",
    "CandidateResult",
    "Decision",
    "DecisionCache",
    "DecisionCacheWarning",
    "DecisionFileError",
    "FORMS",
    "Figure",
    "Indexes",
    "LiveFrames",
    "LiveOutputLost",
    "LiveRound",
    "LiveRunner",
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "NewerSchemaError",
    "PresentFrames",
    "RANKED",
    "RESOLUTIONS",
    "RaceCancelled",
    "RaceOverride",
    "RaceProgress",
    "RaceRequest",
    "RaceResult",
    "RaceRow",
    "RaceSettings",
    "Runner",
    "SCHEMA",
    "band_candidates",
    "band_chain",
    "cache_path",
    "candidate_figures",
    "choose_path",
    "choose_path_for",
    "columns",
    "decide",
    "decide_live",
    "default_path",
    "document",
    "export_decisions",
    "families",
    "fingerprint",
    "format_band",
    "half_iqr",
    "import_decisions",
    "is_fingerprint",
    "key_form",
    "list_entries",
    "live_race",
    "live_race_band",
    "live_ready_s",
    "make_band",
    "make_key",
    "ms_text",
    "order_by_preference",
    "paired_ratio",
    "parse_band",
    "parse_cache",
    "parse_document",
    "parse_pin",
    "race",
    "race_band",
    "progress_step",
    "race_rows",
    "ranked",
    "ratio_text",
    "read_decision_file",
    "record_result",
    "representative_spec",
    "resolve_devices",
    "round_figures",
    "run_race",
    "running_rows",
    "split_key",
    "time_left",
    "torch_version",
    "validate_document",
    "box_fingerprints",
    "VS_DEFAULT",
]
