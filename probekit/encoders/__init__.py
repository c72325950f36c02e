"""Encoders: loading checkpoints, the :class:`Encoder` bundle, and output projections.

- :func:`load_encoder`: the embedded default, a Hugging Face id, a local checkpoint or a projection
  directory (a base checkpoint plus a fitted map, written by ``probekit debias sent-debias|inlp|leace``).
- :class:`Encoder`: model, fast tokenizer, device, precision policy and fingerprint.
- :class:`OutputProjection`: the affine map :math:`x' = A x + b` applied by a hook that exists only
  inside :meth:`Encoder.inference`; :func:`write_projection_dir` / :func:`read_projection_dir`.
"""

from probekit.encoders._encoder import (
    DEFAULT_MODEL_NAME,
    Encoder,
    cpu_supports_bf16,
    default_model_path,
    fingerprint,
    resolve_device,
    resolve_dtype,
)
from probekit.encoders._load import checkpoint_fingerprint, load_encoder, load_projected_encoder, weight_files
from probekit.encoders._projection import (
    CONFIG_FILE,
    WEIGHTS_FILE,
    OutputProjection,
    active_projection_digests,
    projected_fingerprint,
    projection_applied,
)
from probekit.encoders._projection_dir import (
    base_record,
    check_output_dir,
    is_projection_dir,
    read_projection_dir,
    write_projection_dir,
)
from probekit.encoders._self_debias_dir import (
    SELF_DEBIAS_FILE,
    SelfDebiasedEncoder,
    is_self_debias_dir,
    read_self_debias_dir,
    self_debiased,
)

__all__ = [
    "DEFAULT_MODEL_NAME",
    "Encoder",
    "cpu_supports_bf16",
    "default_model_path",
    "fingerprint",
    "resolve_device",
    "resolve_dtype",
    "load_encoder",
    "checkpoint_fingerprint",
    "load_projected_encoder",
    "weight_files",
    "OutputProjection",
    "active_projection_digests",
    "projected_fingerprint",
    "projection_applied",
    "base_record",
    "check_output_dir",
    "is_projection_dir",
    "read_projection_dir",
    "write_projection_dir",
    "WEIGHTS_FILE",
    "CONFIG_FILE",
    "SELF_DEBIAS_FILE",
    "SelfDebiasedEncoder",
    "is_self_debias_dir",
    "read_self_debias_dir",
    "self_debiased",
]
