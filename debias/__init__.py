"""debias: debiasing methods for BERT-style encoders, and the text interventions.

- Projections fitted on embeddings (Sent-debias, INLP, LEACE): scikit-learn style estimators
  (:class:`SentDebias`, :class:`INLP`, :class:`LEACE`, :class:`LinearEraser`) applied to every
  output of an encoder by :func:`apply_projection`.
- Weight-changing methods on the one training loop of :mod:`probekit.training`: :class:`CDA`
  (counterfactual data augmentation with masked-LM training) and :class:`ContextDebias`
  (Kaneko & Bollegala 2021); their checkpoints carry ``debias.json`` (:func:`read_debias_record`).
- Text interventions: gender swapping (:func:`swap`) and scrubbing (:func:`scrub`) of strings,
  files and datasets.
"""

from debias._cda import CDA, MaskedLMCollator, MaskedLMObjective, add_mlm_head, mask_tokens
from debias._checkpoint import check_output_dir, read_debias_record
from debias._context_debias import (
    ContextDebias,
    ContextDebiasCollator,
    ContextDebiasObjective,
    attribute_vectors,
    context_debias_dev_loss,
    context_debias_layers,
    orthogonality_term,
    pad_token_id,
)
from debias._gendered_words import ANY, get_vocabulary
from debias._interventions_io import (
    FileInterventionResult,
    scrub_dataset,
    scrub_file,
    swap_dataset,
    swap_file,
)
from debias._projection import INLP, LEACE, LinearEraser, SentDebias, apply_projection
from debias._scrub import ScrubResult, describe_scrub, scrub, scrub_texts
from debias._swap import Span, SwapResult, describe_swap, swap, swap_texts, unambiguous_words
from probekit.training import TrainingConfig, TrainingResult, latest_checkpoint, shuffled_batches, train

__all__ = [
    # projections
    "INLP", "LEACE", "LinearEraser", "SentDebias", "apply_projection",
    # text interventions
    "swap", "swap_texts", "SwapResult", "Span", "describe_swap",
    "scrub", "scrub_texts", "ScrubResult", "describe_scrub",
    "swap_file", "scrub_file", "swap_dataset", "scrub_dataset", "FileInterventionResult",
    # weight-changing methods and their training parts
    "CDA", "ContextDebias", "add_mlm_head", "attribute_vectors", "mask_tokens", "orthogonality_term",
    "read_debias_record", "check_output_dir",
    "MaskedLMCollator", "MaskedLMObjective", "ContextDebiasCollator", "ContextDebiasObjective",
    "context_debias_dev_loss", "context_debias_layers", "pad_token_id",
    # the training loop (re-exported from probekit.training, where it lives)
    "TrainingConfig", "TrainingResult", "latest_checkpoint", "shuffled_batches", "train",
    "get_vocabulary",
    "ANY",
    "unambiguous_words",
]
