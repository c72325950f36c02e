"""The processes of one ``accelerate launch`` / ``torchrun``: who is the main process, and a barrier.

One home for the helpers that the training loop, debiasing, fine-tuning and the study runner use to
let the main process alone check and write shared files while the others wait. With a single
process (the usual case, and whenever Accelerate cannot tell) the main process is this one and the
barrier does nothing.
"""

from __future__ import annotations

__all__ = ["process_count_and_rank", "is_main_process", "wait_for_everyone"]


def process_count_and_rank() -> tuple[int, bool]:
    """``(number of processes, whether this is the main one)`` under Accelerate's ``PartialState``."""
    try:
        from accelerate import PartialState  # deferred: importing accelerate costs about a second

        state = PartialState()
        return int(state.num_processes), bool(state.is_main_process)
    except Exception:  # pragma: no cover - accelerate is a dependency; any failure means one process
        return 1, True


def is_main_process() -> bool:
    """Whether this process writes shared files (always true with one process)."""
    return process_count_and_rank()[1]


def wait_for_everyone() -> None:
    """A barrier across the processes of ``accelerate launch`` / ``torchrun`` (nothing with one process)."""
    if process_count_and_rank()[0] > 1:
        from accelerate import PartialState

        PartialState().wait_for_everyone()
