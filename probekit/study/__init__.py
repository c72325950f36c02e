"""Script a full intrinsic/extrinsic study from one config (Tokpo et al. 2023, §3-4).

The grid encoders x debiasing methods x data settings x datasets x folds, plus the intrinsic suite
once per (encoder, method), read from a TOML file (:func:`load_config`); every unit has a
deterministic id (:func:`plan_units`), is written atomically to ``DIR/units/<id>.json`` and is
skipped when a rerun finds it; shared work (debiased encoders, embeddings) is built once under
``DIR/shared/``. Scale-out: a deterministic share per process (:func:`shard_units`, ``--shard
i/n``, e.g. a SLURM job array) or a Ray cluster (``backend="ray"``). ``probekit report DIR`` turns
the unit files into the paper's tables and figures.
"""

from probekit.study._config import (
    DATASET_KINDS,
    METHODS,
    SETTINGS,
    StudyConfig,
    default_config_path,
    load_config,
    parse_config,
)
from probekit.study._runner import MANIFEST_FILE, StudySummary, dry_run_lines, run_study, unit_done
from probekit.study._units import Unit, parse_shard, plan_units, shard_units

__all__ = [
    "DATASET_KINDS",
    "METHODS",
    "SETTINGS",
    "MANIFEST_FILE",
    "StudyConfig",
    "StudySummary",
    "Unit",
    "default_config_path",
    "dry_run_lines",
    "load_config",
    "parse_config",
    "parse_shard",
    "plan_units",
    "run_study",
    "shard_units",
    "unit_done",
]
