"""Plumbing every other part of probekit shares: files, provenance, checks, processes, offline mode.

- Files (:mod:`probekit.utils._io`): atomic writes (:func:`atomic_path`, :func:`atomic_write_text`,
  :func:`write_json`), JSON of results (:func:`to_jsonable`, :func:`dumps_json`) and the check that an
  output path can be written, checked before any work by one policy (:func:`check_output_dir`,
  :func:`check_output_file`, :func:`ensure_writable_dir`, :func:`check_within`, :func:`safe_name`).
- Readers (:mod:`probekit.utils._records`): regular files only (:func:`check_regular_file`), JSON within size and
  depth limits checked against a schema (:func:`read_json_file`, :func:`validate_record`), npz files
  with their headers checked (:func:`load_npz`). Memory (:mod:`probekit.utils._memory`): :func:`check_allocation`.
- Provenance (:mod:`probekit.utils._provenance`): toolkit and library versions, git commit, word-list hashes.
- Parameter declarations (:mod:`probekit.utils._constraints`): ``_parameter_constraints`` of :class:`Interval`,
  :class:`Options`, ... declared once on the class that owns a parameter and read by the CLI and the
  study (:func:`validate_parameters`, :func:`parse_declared`, :func:`declared_constraints`).
- Parameter checks (:mod:`probekit.utils._validation`): one set of checks whose errors name the parameter, the
  value and what would be valid; seeds and generators from a ``random_state``.
- Processes (:mod:`probekit.utils._processes`): the main process and a barrier under ``accelerate launch``.
- :func:`hub_offline`: whether the Hugging Face hub may be reached.

This package imports only :mod:`probekit.errors` (and NumPy); everything else in probekit builds on it.
"""

from probekit.utils._arrays import as_1d, factorize, missing_values_error, resolve_class, resolve_group
from probekit.utils._constraints import (
    MAX_SEED,
    Interval,
    Options,
    check_parameter,
    declared_constraints,
    declared_defaults,
    describe_constraints,
    parse_declared,
    validate_parameters,
)
from probekit.utils._io import (
    DISK_ERRNOS,
    DiskWriteError,
    atomic_directory,
    atomic_path,
    atomic_write_text,
    check_confined,
    check_output_dir,
    check_output_file,
    check_within,
    confined_writes,
    disk_error_message,
    dumps_json,
    ensure_writable_dir,
    is_within,
    npz_declared_sizes,
    removing_created_dirs,
    safe_name,
    to_jsonable,
    write_json,
)
from probekit.utils._memory import available_memory, check_allocation, format_bytes
from probekit.utils._offline import hub_offline
from probekit.utils._processes import is_main_process, process_count_and_rank, wait_for_everyone
from probekit.utils._provenance import (
    attribute_hashes,
    collect_provenance,
    describe_attribute,
    git_commit,
    hash_words,
    library_versions,
    toolkit_version,
)
from probekit.utils._records import Check, Nullable, check_regular_file, load_npz, read_json_file, validate_record
from probekit.utils._table import Table
from probekit.utils._validation import (
    RandomStateLike,
    as_embedding_matrix,
    check_annotated_type,
    check_choice,
    check_fraction,
    check_layer_index,
    check_number,
    check_positive_int,
    check_same_width,
    resolve_seed,
    spawn_generators,
)

__all__ = [
    "Table",
    "atomic_path",
    "atomic_write_text",
    "dumps_json",
    "ensure_writable_dir",
    "check_output_dir",
    "check_output_file",
    "check_within",
    "is_within",
    "removing_created_dirs",
    "safe_name",
    "npz_declared_sizes",
    "to_jsonable",
    "write_json",
    "hub_offline",
    "is_main_process",
    "process_count_and_rank",
    "wait_for_everyone",
    "collect_provenance",
    "attribute_hashes",
    "describe_attribute",
    "git_commit",
    "hash_words",
    "library_versions",
    "toolkit_version",
    "RandomStateLike",
    "as_embedding_matrix",
    "check_choice",
    "check_annotated_type",
    "check_number",
    "check_fraction",
    "check_layer_index",
    "check_positive_int",
    "check_same_width",
    "resolve_seed",
    "spawn_generators",
    "resolve_group",
    "resolve_class",
    "factorize",
    "as_1d",
    "missing_values_error",
    "atomic_directory",
    "DiskWriteError",
    "DISK_ERRNOS",
    "check_confined",
    "confined_writes",
    "disk_error_message",
    "available_memory",
    "check_allocation",
    "format_bytes",
    "Check",
    "Nullable",
    "check_regular_file",
    "load_npz",
    "read_json_file",
    "validate_record",
    "Interval",
    "Options",
    "MAX_SEED",
    "check_parameter",
    "validate_parameters",
    "describe_constraints",
    "declared_constraints",
    "declared_defaults",
    "parse_declared",
]
