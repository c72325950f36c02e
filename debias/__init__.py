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
