"""Settings and result of the training loop: :class:`TrainingConfig`, :class:`TrainingResult`.

How the seed and checkpoints are used: :mod:`probekit.training._loop`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from probekit.errors import InvalidParameterError

__all__ = ["TrainingConfig", "TrainingResult"]

MIXED_PRECISION = ("no", "bf16", "fp16")


# ---------------------------------------------------------------------------------------------
# configuration and result


@dataclass(frozen=True)
class TrainingConfig:
    """Hyperparameters of one training run.

    Parameters
    ----------
    learning_rate : float
        Peak learning rate of AdamW.
    max_steps : int, optional
        Optimizer steps to take. Exactly one of ``max_steps`` and ``epochs`` is set.
    epochs : int, optional
        Passes over the data (``max_steps = epochs * batches per epoch``).
    batch_size : int
        Examples per optimizer step, over all processes together: each of ``n`` processes gets
        ``batch_size / n`` of every batch, so the batches and the schedule do not depend on the
        number of processes. The results of ``n`` processes equal those of one statistically, not
        bitwise: each process draws its own masking and dropout (seeded by step and process), and
        the gradient is the mean of the processes' loss gradients (for a loss that is a mean over
        tokens, a mean of per-process means).
    warmup_ratio : float
        Fraction of the steps over which the learning rate rises linearly from 0; it then falls
        linearly to 0 at the last step (``transformers.get_linear_schedule_with_warmup``).
    weight_decay : float
        AdamW decoupled weight decay, applied to matrices only (not to biases and norm weights).
    adam_epsilon : float
    max_grad_norm : float, optional
        Clip the global gradient norm to this value; ``None`` disables clipping.
    mixed_precision : {"no", "bf16", "fp16"}, optional
        ``None``: the value of ``ACCELERATE_MIXED_PRECISION`` when ``accelerate launch`` set it,
        else bf16 on a GPU that supports it (fp16 on one that does not) and ``"no"`` (fp32) on CPU.
    device : {"cpu"}, optional
        ``"cpu"`` forces the CPU; ``None`` lets Accelerate choose (the GPU of this process).
    seed : int
        Base seed of every random draw (see the module docstring), unless a generator is given.
    checkpoint_every : int, optional
        Save a checkpoint every this many steps (and always after the last step) when a
        checkpoint directory is given. ``None``: only after the last step.
    keep_checkpoints : int
        How many of the most recent checkpoints to keep.
    eval_every : int, optional
        Call ``eval_fn`` every this many steps and after the last step. ``None``: ten times per run.
    restore_best : bool
        With an ``eval_fn``: load the weights of the best evaluation into the model at the end.
    drop_last : bool
        Drop the last, smaller batch of each epoch.
    find_unused_parameters : bool
        Passed to ``DistributedDataParallel`` (several processes only): set it when some trainable
        parameters get no gradient in some steps.
    log_every : int
        Log the running loss every this many steps (``logging`` at INFO).
    """

    learning_rate: float = 5e-5
    max_steps: int | None = None
    epochs: int | None = None
    batch_size: int = 32
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    adam_epsilon: float = 1e-8
    max_grad_norm: float | None = 1.0
    mixed_precision: str | None = None
    device: str | None = None
    seed: int = 0
    checkpoint_every: int | None = None
    keep_checkpoints: int = 1
    eval_every: int | None = None
    restore_best: bool = True
    drop_last: bool = False
    find_unused_parameters: bool = False
    log_every: int = 50

    def __post_init__(self) -> None:
        if (self.max_steps is None) == (self.epochs is None):
            raise InvalidParameterError(
                "max_steps/epochs", (self.max_steps, self.epochs), "exactly one of max_steps and epochs"
            )
        for name in ("max_steps", "epochs", "checkpoint_every", "eval_every"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
                raise InvalidParameterError(name, value, "a positive integer or None")
        for name in ("batch_size", "keep_checkpoints", "log_every"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise InvalidParameterError(name, value, "a positive integer")
        if not (isinstance(self.learning_rate, (int, float)) and math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise InvalidParameterError("learning_rate", self.learning_rate, "a positive number")
        if not (0.0 <= self.warmup_ratio < 1.0):
            raise InvalidParameterError("warmup_ratio", self.warmup_ratio, "a number in [0, 1)")
        if not self.weight_decay >= 0:
            raise InvalidParameterError("weight_decay", self.weight_decay, "a number >= 0")
        if self.max_grad_norm is not None and not self.max_grad_norm > 0:
            raise InvalidParameterError("max_grad_norm", self.max_grad_norm, "a positive number or None")
        if self.mixed_precision is not None and self.mixed_precision not in MIXED_PRECISION:
            raise InvalidParameterError("mixed_precision", self.mixed_precision, (*MIXED_PRECISION, None))
        if self.device not in (None, "cpu"):
            raise InvalidParameterError("device", self.device, "'cpu' or None (Accelerate chooses)")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise InvalidParameterError("seed", self.seed, "an integer")

    def to_dict(self) -> dict[str, Any]:
        """The settings (or the result) as a JSON-ready dict."""
        return dataclasses.asdict(self)


@dataclass
class TrainingResult:
    """What :func:`train` did.

    Attributes
    ----------
    steps : int
        Optimizer steps taken in total (over all sessions when resumed).
    losses : list of float
        Training loss of every step (mean over processes).
    terms : dict of str -> list of float
        Further values returned by ``loss_fn`` (e.g. the two terms of a composite loss), per step.
    eval_history : list of (int, float)
        ``(step, value)`` of every evaluation.
    best_step, best_value : int or None, float or None
        The evaluation with the lowest value; its weights are in the model when ``restore_best``.
    resumed_from : int or None
        Step of the checkpoint this session started from.
    base_seed : int
        The seed every random draw was derived from.
    seconds, steps_per_second : float
        Wall time of the steps taken in this session, and their rate.
    mixed_precision, device : str
    num_processes : int
    config : dict
    """

    steps: int
    losses: list[float]
    terms: dict[str, list[float]]
    eval_history: list[tuple[int, float]]
    best_step: int | None
    best_value: float | None
    resumed_from: int | None
    base_seed: int
    seconds: float
    steps_per_second: float
    mixed_precision: str
    device: str
    num_processes: int
    config: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The settings (or the result) as a JSON-ready dict."""
        out = dataclasses.asdict(self)
        out["eval_history"] = [list(item) for item in self.eval_history]
        return out

    def summary(self) -> dict[str, Any]:
        """The result without per-step histories (for provenance files)."""
        out = self.to_dict()
        losses = out.pop("losses")
        out.pop("terms")
        n = max(1, min(10, len(losses) // 10 or 1))
        out["first_loss"] = float(np.mean(losses[:n])) if losses else None
        out["last_loss"] = float(np.mean(losses[-n:])) if losses else None
        return out
