"""debias package."""

from debias._projection import INLP, LEACE, LinearEraser, SentDebias, apply_projection

__all__ = ["INLP", "LEACE", "LinearEraser", "SentDebias", "apply_projection"]

# Text interventions: gender swapping and scrubbing over strings, files and datasets.
from debias._interventions_io import (
    FileInterventionResult,
    scrub_dataset,
    scrub_file,
    swap_dataset,
    swap_file,
)
from debias._scrub import ScrubResult, describe_scrub, scrub, scrub_texts
from debias._swap import Span, SwapResult, describe_swap, swap, swap_texts

__all__ += [
    "swap", "swap_texts", "SwapResult", "Span", "describe_swap",
    "scrub", "scrub_texts", "ScrubResult", "describe_scrub",
    "swap_file", "scrub_file", "swap_dataset", "scrub_dataset", "FileInterventionResult",
]

# Weight-changing methods (CDA, Context-debias) on the one Accelerate training loop.
from debias._cda import CDA, add_mlm_head, mask_tokens
from debias._checkpoint import read_debias_record
from debias._context_debias import ContextDebias, attribute_vectors, orthogonality_term
from debias._training import TrainingConfig, TrainingResult, latest_checkpoint, shuffled_batches, train

__all__ += [
    "CDA", "ContextDebias", "TrainingConfig", "TrainingResult", "add_mlm_head", "attribute_vectors",
    "latest_checkpoint", "mask_tokens", "orthogonality_term", "read_debias_record", "shuffled_batches", "train",
]
