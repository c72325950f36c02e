"""The one training loop of probekit: Hugging Face Accelerate, exact resume, reproducible randomness.

CDA, Context-debias and downstream fine-tuning all train through :func:`train`. The loop owns
what every method needs and no method should re-implement: AdamW with the usual weight-decay
groups, a linear warm-up/decay schedule, gradient clipping, mixed precision (bf16 on GPU, fp32 on
CPU by default), checkpoints that resume to the same weights, evaluation with best-checkpoint
selection, and a switchable tqdm bar. The same code runs on CPU, on one GPU and on several GPUs
under ``accelerate launch``.

Reproducibility
---------------
Every random draw of step ``t`` is a pure function of one *base seed* and ``t``:

* the batch order of epoch ``e`` comes from a ``torch.Generator`` seeded from (base seed, e);
* the ``collate_fn`` of step ``t`` (e.g. masked-LM masking) receives a generator seeded from
  (base seed, t, process index);
* dropout in step ``t`` draws from the global RNG, which the loop forks (``torch.random.fork_rng``)
  and seeds from (base seed, t, process index) for that step only, so the caller's global RNG
  state is left exactly as it was.

Nothing therefore depends on how many steps ran in this process, and a run resumed from a
checkpoint recomputes exactly the steps an uninterrupted run would have taken: same final weights
(bitwise on CPU). The base seed is ``TrainingConfig.seed``, or one draw from the
``torch.Generator`` passed to :func:`train`.

Checkpoints are directories ``step-NNNNNNNN`` holding ``model.safetensors``,
``optimizer.safetensors`` and ``trainer_state.json`` (step, schedule, optimizer hyperparameters,
loss history, evaluation history, the best weights in ``best.safetensors`` when an ``eval_fn`` is
used). No pickle is read or written. Each is written to a temporary directory and renamed, so an
interruption never leaves a half-written checkpoint behind.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import torch

from probekit.errors import InvalidParameterError
from probekit.training._checkpoints import (
    _check_resumable,
    _checkpoints,
    _cpu_state,
    _load_checkpoint,
    _save_checkpoint,
    latest_checkpoint,
)
from probekit.training._config import MIXED_PRECISION, TrainingConfig, TrainingResult

__all__ = [
    "TrainingConfig",
    "TrainingResult",
    "train",
    "shuffled_batches",
    "latest_checkpoint",
]

logger = logging.getLogger(__name__)

# Purposes mixed into derived seeds, so that the batch order, the collate randomness and the
# dropout of a step never share a stream.
_EPOCH_ORDER, _COLLATE, _DROPOUT = 1, 2, 3


# ---------------------------------------------------------------------------------------------
# seeds and batch order


def derive_seed(base_seed: int, *keys: int) -> int:
    """A 63-bit seed for one purpose, mixed from the base seed and integer keys (NumPy SeedSequence)."""
    words = np.random.SeedSequence([int(base_seed) & 0xFFFFFFFFFFFFFFFF, *(int(k) for k in keys)]).generate_state(2)
    return int((int(words[0]) << 31) ^ int(words[1])) & 0x7FFFFFFFFFFFFFFF


def _seeded_generator(seed: int) -> torch.Generator:
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator


def shuffled_batches(n_examples: int, batch_size: int, *, drop_last: bool = False) -> Callable[[torch.Generator], list[list[int]]]:
    """The default batch order: a fresh random permutation each epoch, cut into batches.

    Returns a function ``generator -> list of index lists``; :func:`train` calls it once per epoch
    with a generator seeded from (base seed, epoch). Other orders (e.g. length-sorted buckets) are
    functions of the same shape; they must return the same number of batches every epoch.
    """

    def plan(generator: torch.Generator) -> list[list[int]]:
        order = torch.randperm(n_examples, generator=generator).tolist()
        batches = [order[i:i + batch_size] for i in range(0, n_examples, batch_size)]
        if drop_last and batches and len(batches[-1]) < batch_size:
            batches.pop()
        return batches

    return plan


@contextlib.contextmanager
def _seeded_global_rng(seed: int, device: torch.device) -> Iterator[None]:
    """Seed the global RNG of the CPU and of ``device`` for one step, restoring both afterwards.

    Dropout draws from the global RNG; seeding it inside ``fork_rng`` makes dropout a function of
    the step without touching the caller's random state.
    """
    devices = [device.index if device.index is not None else torch.cuda.current_device()] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices, device_type="cuda"):
        torch.default_generator.manual_seed(seed)
        if devices:
            torch.cuda.manual_seed(seed)  # the current device only
        yield


# ---------------------------------------------------------------------------------------------
# accelerator, optimizer


def _auto_mixed_precision(config: TrainingConfig) -> str:
    if config.mixed_precision is not None:
        return config.mixed_precision
    from_launcher = os.environ.get("ACCELERATE_MIXED_PRECISION")
    if from_launcher in MIXED_PRECISION:
        return from_launcher
    if config.device != "cpu" and torch.cuda.is_available():
        return "bf16" if torch.cuda.is_bf16_supported() else "fp16"
    return "no"


def _make_accelerator(config: TrainingConfig, mixed_precision: str) -> Any:
    from accelerate import Accelerator
    from accelerate.utils import DistributedDataParallelKwargs

    kwargs = dict(
        cpu=config.device == "cpu",
        mixed_precision=mixed_precision,
        kwargs_handlers=[DistributedDataParallelKwargs(find_unused_parameters=config.find_unused_parameters)],
    )
    try:
        return Accelerator(**kwargs)
    except ValueError as exc:
        # Accelerate keeps one process-wide state; a later run in the same process with another
        # precision (e.g. fp32 CDA on CPU, then bf16 fine-tuning) must start it afresh.
        if "already been initialized" not in str(exc):
            raise
        from accelerate.state import AcceleratorState

        logger.debug("resetting Accelerate's process-wide state: %s", exc)
        AcceleratorState._reset_state(reset_partial_state=False)
        return Accelerator(**kwargs)


def _parameter_groups(module: torch.nn.Module, weight_decay: float) -> list[dict[str, Any]]:
    """Trainable parameters, matrices with weight decay and vectors (biases, norm weights) without.

    A submodule with a float attribute ``learning_rate`` (e.g. a freshly initialized adversary
    beside a pre-trained encoder) trains its parameters at that peak rate, in groups of its own;
    the schedule scales every group alike.
    """
    own_rates = {id(p): float(m.learning_rate) for m in module.modules()
                 if isinstance(getattr(m, "learning_rate", None), float) for p in m.parameters()}
    buckets: dict[tuple[float | None, bool], list[torch.nn.Parameter]] = {}
    seen: set[int] = set()
    for _, parameter in module.named_parameters():
        if not parameter.requires_grad or id(parameter) in seen:
            continue
        seen.add(id(parameter))
        buckets.setdefault((own_rates.get(id(parameter)), parameter.ndim >= 2), []).append(parameter)
    if not buckets:
        raise InvalidParameterError("module", type(module).__name__, "a module with trainable parameters (requires_grad=True)")
    groups = []
    for rate in [None, *sorted({r for r, _ in buckets if r is not None})]:
        for decayed in (True, False):
            params = buckets.get((rate, decayed))
            if params:
                group = {"params": params, "weight_decay": weight_decay if decayed else 0.0}
                groups.append(group if rate is None else group | {"lr": rate})
    return groups


# ---------------------------------------------------------------------------------------------
# the loop


class NonFiniteLossError(InvalidParameterError, FloatingPointError):
    """The training loss became NaN or infinite: the run diverged, most likely because the learning
    rate (or a loss weight such as an adversary's lambda) is too large. Names ``learning_rate``,
    which the command line shows as its option (``--lr``).

    Parameters
    ----------
    learning_rate : float
        The configured peak learning rate.
    description : str
        What was being trained.
    loss : float
        The non-finite loss value.
    step : int
        The 1-based step at which it appeared.
    """

    def __init__(self, learning_rate: float, description: str, loss: float, step: int):
        super().__init__(
            "learning_rate", learning_rate, "a smaller learning rate, or smaller loss weights (e.g. lambda)",
            f"{description}: the loss became {loss} at step {step}; training stopped and its checkpoints were removed",
        )


def _default_loss(module: torch.nn.Module, batch: Any) -> Any:
    output = module(**batch) if isinstance(batch, Mapping) else module(batch)
    return output.loss if hasattr(output, "loss") else output


def _split_loss(output: Any) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    if isinstance(output, Mapping):
        if "loss" not in output:
            raise InvalidParameterError("loss_fn", sorted(output), "a tensor, or a mapping with the key 'loss'")
        return output["loss"], {k: v for k, v in output.items() if k != "loss"}
    if not torch.is_tensor(output):
        raise InvalidParameterError("loss_fn", type(output).__name__, "a scalar tensor or a mapping with 'loss'")
    return output, {}


def train(
    module: torch.nn.Module,
    dataset: Sequence[Any],
    config: TrainingConfig,
    *,
    collate_fn: Callable[[list[Any], torch.Generator], Any],
    loss_fn: Callable[[torch.nn.Module, Any], Any] | None = None,
    batch_order: Callable[[torch.Generator], Sequence[Sequence[int]]] | None = None,
    generator: torch.Generator | None = None,
    checkpoint_dir: str | os.PathLike | None = None,
    resume: bool = False,
    eval_fn: Callable[[torch.nn.Module], float] | None = None,
    callback: Callable[[int, dict[str, float]], None] | None = None,
    progress: bool = True,
    description: str = "training",
) -> TrainingResult:
    r"""Train ``module`` in place with AdamW on batches of ``dataset``, through Hugging Face Accelerate.

    Each step takes the next batch of the epoch's order, shards it over the processes, builds
    tensors with ``collate_fn``, computes ``loss_fn(module, batch)``, back-propagates
    (``accelerator.backward``), clips the gradient norm, and steps AdamW and the linear schedule:

    .. math:: \eta_t = \eta \min\left(\frac{t}{t_w}, \frac{T - t}{T - t_w}\right),
       \qquad t_w = \lfloor \text{warmup ratio} \cdot T \rfloor

    Parameters
    ----------
    module : torch.nn.Module
        The trainable module (parameters with ``requires_grad=True`` are trained). For several
        processes it is wrapped in ``DistributedDataParallel``: the forward pass must go through
        ``module(...)`` (wrap a model and its objective in one ``nn.Module`` when the loss needs more
        than a forward call). Trained in place; left in eval mode.
    dataset : sequence
        Examples, indexable by position (e.g. token-id lists).
    config : TrainingConfig
    collate_fn : callable
        ``collate_fn(examples, generator) -> batch`` (tensors, or a mapping of tensors, moved to the
        device by the loop). ``generator`` is a CPU ``torch.Generator`` seeded for this step and
        process: use it for any random choice (masking), so that the step is reproducible.
    loss_fn : callable, optional
        ``loss_fn(module, batch)`` returning a scalar tensor, or a mapping with ``"loss"`` and
        further scalar tensors to log (kept in ``TrainingResult.terms``). Default:
        ``module(**batch).loss`` (or the output itself when it has no ``loss``).
    batch_order : callable, optional
        ``generator -> list of index lists`` for one epoch (see :func:`shuffled_batches`, the default).
    generator : torch.Generator, optional
        Source of the base seed (one draw); default ``config.seed``.
    checkpoint_dir : path, optional
        Where checkpoints go (see ``config.checkpoint_every``). A finished run leaves its last step
        there, so that calling again with ``resume=True`` returns at once with the final weights.
    resume : bool
        Continue from the latest checkpoint in ``checkpoint_dir`` (start afresh when there is none).
        The settings and data must be those of the interrupted run. Without ``resume`` an existing
        checkpoint is an error rather than silently overwritten.
    eval_fn : callable, optional
        ``eval_fn(module) -> float``, lower is better, called in eval mode without gradients every
        ``config.eval_every`` steps and after the last; with ``config.restore_best`` the best
        weights are loaded at the end.
    callback : callable, optional
        ``callback(step, values)`` after every step (and its checkpoint); raising stops training.
    progress : bool
        Show a tqdm bar (main process only).
    description : str
        Label of the bar and the log lines.

    Returns
    -------
    TrainingResult
    """
    run = _Run(module, dataset, config, collate_fn=collate_fn, loss_fn=loss_fn, batch_order=batch_order,
               generator=generator, description=description)
    directory = Path(checkpoint_dir) if checkpoint_dir is not None else None
    if directory is not None:
        run.resume_from(directory, resume)
    bar = run.progress_bar(progress)
    started = time.perf_counter()
    existing = set(_checkpoints(directory)) if directory is not None and directory.is_dir() else set()
    try:
        for step in range(run.start_step, run.total_steps):
            values = run.step(step)
            done = step + 1
            run.after_step(done, values, eval_fn=eval_fn, directory=directory)
            bar.update(1)
            bar.set_postfix(loss=f"{values['loss']:.4g}", refresh=False)
            if callback is not None:
                callback(done, values)
    except NonFiniteLossError:
        if directory is not None and directory.is_dir() and run.accelerator.is_main_process:
            for path in set(_checkpoints(directory)) - existing:  # a diverged run's checkpoints resume nothing
                shutil.rmtree(path, ignore_errors=True)
        raise
    finally:
        bar.close()
        seconds = time.perf_counter() - started
        _remove_forward_patch(run.accelerator, run.prepared, module)
        module.eval()
    if eval_fn is not None and config.restore_best:
        run.restore_best()
    return run.result(seconds)


def _base_seed(config: TrainingConfig, generator: torch.Generator | None) -> int:
    """``config.seed``, or one draw from ``generator``."""
    if generator is None:
        return int(config.seed)
    return int(torch.randint(0, 2**62, (1,), generator=generator, device=generator.device).item())


class _Run:
    """The state of one call of :func:`train`: the prepared module, optimizer and schedule, the
    batch plan, and the history so far (restored on resume, saved in every checkpoint).
    """

    def __init__(self, module: torch.nn.Module, dataset: Sequence[Any], config: TrainingConfig, *,
                 collate_fn: Callable, loss_fn: Callable | None, batch_order: Callable | None,
                 generator: torch.Generator | None, description: str):
        if not isinstance(module, torch.nn.Module):
            raise InvalidParameterError("module", type(module).__name__, "a torch.nn.Module")
        self.n_examples = len(dataset)
        if self.n_examples == 0:
            raise InvalidParameterError("dataset", "empty", "at least one example")
        self.dataset, self.config, self.description = dataset, config, description
        self.collate_fn = collate_fn
        self.loss_fn = loss_fn or _default_loss
        self.batch_order = batch_order or shuffled_batches(self.n_examples, config.batch_size, drop_last=config.drop_last)
        self.base_seed = _base_seed(config, generator)
        self.mixed_precision = _auto_mixed_precision(config)
        self.accelerator = _make_accelerator(config, self.mixed_precision)
        self.world, self.rank = self.accelerator.num_processes, self.accelerator.process_index
        self._plan_steps()
        self._prepare(module)
        self.losses: list[float] = []
        self.terms: dict[str, list[float]] = {}
        self.eval_history: list[tuple[int, float]] = []
        self.best_step: int | None = None
        self.best_value: float | None = None
        self.best_state: dict[str, torch.Tensor] | None = None
        self.start_step: int = 0
        self.resumed_from: int | None = None

    # -- set-up --------------------------------------------------------------------------------

    def epoch_plan(self, epoch: int) -> list[list[int]]:
        generator = _seeded_generator(derive_seed(self.base_seed, _EPOCH_ORDER, epoch))
        plan = [list(batch) for batch in self.batch_order(generator)]
        return [batch for batch in plan if len(batch) >= self.world]  # every process needs an example

    def _plan_steps(self) -> None:
        config = self.config
        self.plan, self.epoch_of_plan = self.epoch_plan(0), 0
        self.batches_per_epoch = len(self.plan)
        if self.batches_per_epoch == 0:
            raise InvalidParameterError("batch_size", config.batch_size, f"at most the number of examples ({self.n_examples})")
        self.total_steps = int(config.max_steps) if config.max_steps is not None else int(config.epochs) * self.batches_per_epoch
        self.warmup_steps = int(config.warmup_ratio * self.total_steps)
        self.eval_every = config.eval_every or max(1, self.total_steps // 10)

    def _prepare(self, module: torch.nn.Module) -> None:
        from transformers import get_linear_schedule_with_warmup

        config = self.config
        optimizer = torch.optim.AdamW(
            _parameter_groups(module, config.weight_decay), lr=config.learning_rate, eps=config.adam_epsilon
        )
        self.scheduler = get_linear_schedule_with_warmup(optimizer, self.warmup_steps, self.total_steps)
        self.prepared, self.optimizer = self.accelerator.prepare(module, optimizer)
        self.trainable = [p for group in self.optimizer.param_groups for p in group["params"]]
        self.unwrapped = self.accelerator.unwrap_model(self.prepared)
        self.scaler = getattr(self.accelerator, "scaler", None)

    def resume_from(self, directory: Path, resume: bool) -> None:
        """Continue from the latest checkpoint in ``directory`` (``resume``), or refuse to overwrite it."""
        last = latest_checkpoint(directory)
        if last is not None and not resume:
            raise InvalidParameterError(
                "resume", False, "True to continue, or an empty checkpoint directory",
                f"{directory} already holds a checkpoint ({last.name}) of an earlier run",
            )
        if last is None:
            if resume:
                logger.info("%s: no checkpoint in %s; starting afresh", self.description, directory)
            return
        state, self.best_state = _load_checkpoint(last, self.unwrapped, self.optimizer, self.scheduler, self.scaler)
        _check_resumable(state, self.config, self.base_seed, self.n_examples, last)
        self.start_step = self.resumed_from = int(state["step"])
        self.losses = list(state["losses"])
        self.terms = {k: list(v) for k, v in state["terms"].items()}
        self.eval_history = [(int(s), float(v)) for s, v in state["eval_history"]]
        self.best_step, self.best_value = state["best_step"], state["best_value"]
        logger.info("%s: resuming from %s (step %d of %d)", self.description, last, self.start_step, self.total_steps)

    def progress_bar(self, progress: bool) -> Any:
        from tqdm.auto import tqdm

        return tqdm(
            total=self.total_steps, initial=self.start_step, desc=self.description, unit="step", dynamic_ncols=True,
            disable=not progress or not self.accelerator.is_local_main_process,
        )

    # -- one step --------------------------------------------------------------------------------

    def _batch(self, step: int) -> Any:
        """The share of the step's batch for this process, collated with the step's generator, on the device."""
        epoch, position = divmod(step, self.batches_per_epoch)
        if epoch != self.epoch_of_plan:
            self.plan, self.epoch_of_plan = self.epoch_plan(epoch), epoch
            if len(self.plan) != self.batches_per_epoch:
                raise InvalidParameterError(
                    "batch_order", f"{len(self.plan)} batches in epoch {epoch}", f"{self.batches_per_epoch} batches every epoch"
                )
        shard = self.plan[position][self.rank::self.world]
        collate_generator = _seeded_generator(derive_seed(self.base_seed, _COLLATE, step, self.rank))
        batch = self.collate_fn([self.dataset[i] for i in shard], collate_generator)
        return _to_device(batch, self.accelerator.device)

    def step(self, step: int) -> dict[str, float]:
        """Forward, backward, clip, AdamW and schedule for step ``step`` (0-based); the logged values."""
        accelerator, optimizer = self.accelerator, self.optimizer
        batch = self._batch(step)
        self.prepared.train()
        with _seeded_global_rng(derive_seed(self.base_seed, _DROPOUT, step, self.rank), accelerator.device):
            loss, extra = _split_loss(self.loss_fn(self.prepared, batch))
            if not torch.isfinite(loss.detach()):
                raise NonFiniteLossError(self.config.learning_rate, self.description, loss.item(), step + 1)
            accelerator.backward(loss)
        if self.config.max_grad_norm is not None:
            accelerator.clip_grad_norm_(self.trainable, self.config.max_grad_norm)
        optimizer.step()
        if not getattr(optimizer, "step_was_skipped", False):  # fp16 overflow: keep the schedule in step
            self.scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        logged = {"loss": loss.detach(), **{k: v.detach() for k, v in extra.items()}}
        return {k: float(accelerator.reduce(v.float().reshape(()), reduction="mean")) for k, v in logged.items()}

    def after_step(self, done: int, values: Mapping[str, float], *, eval_fn: Callable | None, directory: Path | None) -> None:
        """Record the step's values; evaluate, checkpoint and log when due."""
        config = self.config
        self.losses.append(values["loss"])
        for key, value in values.items():
            if key != "loss":
                self.terms.setdefault(key, []).append(value)
        if eval_fn is not None and (done % self.eval_every == 0 or done == self.total_steps):
            self.evaluate(done, eval_fn)
        if directory is not None and (done == self.total_steps or (config.checkpoint_every and done % config.checkpoint_every == 0)):
            if self.accelerator.is_main_process:
                _save_checkpoint(directory, done, self.unwrapped, self.optimizer, self.scheduler, self.scaler,
                                 self.checkpoint_state(done), self.best_state, config.keep_checkpoints)
            self.accelerator.wait_for_everyone()
        if done % config.log_every == 0:
            recent = self.losses[-config.log_every:]
            logger.info("%s: step %d/%d, loss %.5g", self.description, done, self.total_steps, float(np.mean(recent)))

    def evaluate(self, step: int, eval_fn: Callable[[torch.nn.Module], float]) -> None:
        self.unwrapped.eval()
        with torch.no_grad(), self.accelerator.autocast():
            value = float(eval_fn(self.unwrapped))
        self.eval_history.append((step, value))
        if self.best_value is None or value < self.best_value:
            self.best_step, self.best_value = step, value
            self.best_state = _cpu_state(self.unwrapped)
        logger.info("%s: step %d, evaluation %.6g (best %.6g at step %d)",
                    self.description, step, value, self.best_value, self.best_step)

    def checkpoint_state(self, step: int) -> dict[str, Any]:
        return {
            "step": step, "total_steps": self.total_steps, "base_seed": self.base_seed, "n_examples": self.n_examples,
            "config": self.config.to_dict(), "losses": self.losses, "terms": self.terms,
            "eval_history": [list(e) for e in self.eval_history], "best_step": self.best_step,
            "best_value": self.best_value,
        }

    # -- the end -----------------------------------------------------------------------------

    def restore_best(self) -> None:
        if self.best_state is None:
            return
        self.unwrapped.load_state_dict(self.best_state, strict=True)
        logger.info("%s: restored the best weights (step %s, evaluation %.6g)", self.description, self.best_step, self.best_value)

    def result(self, seconds: float) -> TrainingResult:
        ran = self.total_steps - self.start_step
        return TrainingResult(
            steps=self.total_steps,
            losses=self.losses,
            terms=self.terms,
            eval_history=self.eval_history,
            best_step=self.best_step,
            best_value=self.best_value,
            resumed_from=self.resumed_from,
            base_seed=self.base_seed,
            seconds=seconds,
            steps_per_second=ran / seconds if ran and seconds > 0 else float("nan"),
            mixed_precision=self.mixed_precision,
            device=str(self.accelerator.device),
            num_processes=self.world,
            config=self.config.to_dict(),
        )


def _remove_forward_patch(accelerator: Any, prepared: torch.nn.Module, module: torch.nn.Module) -> None:
    """Undo Accelerate's mixed-precision patching of ``forward`` so the caller's module is plain again."""
    import types

    accelerator.unwrap_model(prepared, keep_fp32_wrapper=False)
    patched = module.__dict__.get("forward")
    if isinstance(patched, types.MethodType) and patched.__func__ is type(module).forward:
        del module.__dict__["forward"]


def _to_device(batch: Any, device: torch.device) -> Any:
    from accelerate.utils import send_to_device

    return send_to_device(batch, device)
