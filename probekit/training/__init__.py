"""The one training loop (Accelerate) that debiasing (CDA, Context-debias) and fine-tuning share.

:func:`train` runs an objective over shuffled batches with AdamW, warm-up, gradient accumulation,
mixed precision, checkpoints every N steps and exact resume; :class:`TrainingConfig` holds its
settings and :class:`TrainingResult` what it did.
"""

from probekit.training._checkpoints import latest_checkpoint
from probekit.training._config import TrainingConfig, TrainingResult
from probekit.training._loop import NonFiniteLossError, derive_seed, shuffled_batches, train

__all__ = ["NonFiniteLossError", "TrainingConfig", "TrainingResult", "derive_seed", "latest_checkpoint", "shuffled_batches", "train"]
