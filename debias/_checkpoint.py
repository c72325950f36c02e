"""The output of the weight-changing methods: a plain Hugging Face checkpoint plus ``debias.json``.

The directory holds what ``save_pretrained`` writes (``config.json``, ``model.safetensors``) and the
tokenizer files, so :func:`probekit.load_encoder`, ``probekit probe --model DIR`` and any
transformers code load it unchanged; ``debias.json`` says how it was made (method,
hyperparameters, data, training, base model and its fingerprint, seeds, versions). The directory
is written under a temporary name beside its destination and renamed at the end, so a failure
never leaves a half-written checkpoint.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Mapping

from probekit.encoders import fingerprint, weight_files
from probekit.errors import InvalidParameterError
from probekit.utils import Nullable, atomic_directory, dumps_json, is_main_process, read_json_file, wait_for_everyone
from probekit.utils import check_output_dir as check_output_dir_policy

__all__ = ["DEBIAS_FILE", "check_output_dir", "save_debiased_checkpoint", "read_debias_record"]

logger = logging.getLogger(__name__)

#: Name of the JSON file describing how a debiased checkpoint was made.
DEBIAS_FILE = "debias.json"
RECORD_FORMAT = "probekit-debiased-checkpoint"
RECORD_VERSION = 1


def check_output_dir(out: str | os.PathLike, *, overwrite: bool = False, parameter: str = "out") -> Path:
    """Check, before any long work, that ``out`` can be written: absent or empty (or ``overwrite``),
    and its parent directory creatable and writable. Creates the parent, nothing else.

    Raises
    ------
    InvalidParameterError
        ``out`` is a file, a non-empty directory without ``overwrite``, or cannot be created.
    """
    return check_output_dir_policy(
        out, parameter=parameter, marker=DEBIAS_FILE, reuse=overwrite,
        reuse_option="overwrite (--overwrite)", kind="a debiased checkpoint",
    )


def save_debiased_checkpoint(
    model: Any,
    tokenizer: Any,
    out: str | os.PathLike,
    record: Mapping[str, Any],
    *,
    overwrite: bool = False,
) -> Path:
    """Write ``model`` (``save_pretrained``, safetensors), ``tokenizer`` and ``debias.json`` to ``out``.

    ``record`` is completed with the format name and version and the fingerprint of the written
    checkpoint (the one :func:`probekit.load_encoder` will report for ``out``). With several
    processes (``accelerate launch``) the main one checks ``out`` and writes it while the others
    wait, so that every process returns once the directory is complete.

    Returns
    -------
    Path
        ``out``.
    """
    from transformers import AutoConfig, AutoTokenizer


    if not is_main_process():
        # The main process checks and writes; the others wait until the directory is there.
        wait_for_everyone()
        return Path(out).expanduser()
    target = check_output_dir(out, overwrite=overwrite)
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    with atomic_directory(target) as tmp:  # an existing target is empty, or replaced with overwrite=True
        hf_logging.disable_progress_bar()  # one shard of a small model needs no bar
        try:
            model.save_pretrained(tmp, safe_serialization=True)
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        tokenizer.save_pretrained(tmp)
        saved_fingerprint = fingerprint(
            AutoConfig.from_pretrained(tmp, local_files_only=True),
            weight_files=weight_files(tmp),
            tokenizer=AutoTokenizer.from_pretrained(tmp, use_fast=True, local_files_only=True),
        )
        full = {"format": RECORD_FORMAT, "format_version": RECORD_VERSION, **record, "fingerprint": saved_fingerprint}
        (tmp / DEBIAS_FILE).write_text(dumps_json(full), encoding="utf-8")
    logger.info("wrote the debiased checkpoint %s (fingerprint %s)", target, saved_fingerprint)
    wait_for_everyone()
    return target


def read_debias_record(directory: str | os.PathLike) -> dict[str, Any]:
    """The ``debias.json`` of a checkpoint written by CDA or Context-debias."""
    path = Path(directory) / DEBIAS_FILE
    if not path.is_file():
        raise InvalidParameterError("directory", str(directory), f"a directory with {DEBIAS_FILE}")
    return read_json_file(path, schema={"base_model": Nullable(dict)})
