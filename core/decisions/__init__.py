"""Which render path serves which band on which box.

``bands`` names classes of render work, ``fingerprint`` names the hardware, ``race`` races
candidates fairly (through the ``Runner`` Protocol), ``candidates`` makes the engine's paths
candidates (``RaceRequest``),
``schema`` validates decision documents (and caps them), ``cache`` keeps verdicts on disk,
``index`` holds them in memory for lookups, ``choose`` picks a path (pin > cache > default),
``exchange`` exports and imports decision files.
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
from core.decisions.candidates import RaceRequest, band_candidates
from core.decisions.choose import choose_path, choose_path_for, parse_pin
from core.decisions.exchange import (
    export_decisions,
    import_decisions,
    list_entries,
    read_decision_file,
    resolve_devices,
)
from core.decisions.fingerprint import fingerprint, is_fingerprint
from core.decisions.race import (
    Candidate,
    CandidateResult,
    RaceCancelled,
    RaceProgress,
    RaceResult,
    RaceSettings,
    Runner,
    decide,
    order_by_preference,
    race,
    run_race,
)
from core.decisions.schema import (
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    SCHEMA,
    DecisionFileError,
    NewerSchemaError,
    candidate_figures,
    document,
    make_key,
    parse_cache,
    parse_document,
    torch_version,
    validate_document,
)

__all__ = [
    "BAND_FORMATS",
    "Band",
    "Candidate",
    "CandidateResult",
    "DecisionCache",
    "DecisionCacheWarning",
    "DecisionFileError",
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "NewerSchemaError",
    "RESOLUTIONS",
    "RaceCancelled",
    "RaceProgress",
    "RaceRequest",
    "RaceResult",
    "RaceSettings",
    "Runner",
    "SCHEMA",
    "band_candidates",
    "band_chain",
    "cache_path",
    "candidate_figures",
    "choose_path",
    "choose_path_for",
    "decide",
    "document",
    "export_decisions",
    "families",
    "fingerprint",
    "format_band",
    "import_decisions",
    "is_fingerprint",
    "list_entries",
    "make_band",
    "make_key",
    "order_by_preference",
    "parse_band",
    "parse_cache",
    "parse_document",
    "parse_pin",
    "race",
    "read_decision_file",
    "record_result",
    "representative_spec",
    "resolve_devices",
    "run_race",
    "torch_version",
    "validate_document",
]
