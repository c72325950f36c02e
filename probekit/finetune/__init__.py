"""Downstream fine-tuning and extrinsic evaluation (Tokpo et al. 2023, §4).

Data: the synthetic biographies (the embedded, offline default), Bias-in-Bios and Jigsaw loaders,
and the three training-data settings (original, scrubbed, swapped) with the counterfactual test
set. Every dataset shares one representation, a :class:`datasets.Dataset` with the columns
``text`` (str), ``label`` (:class:`datasets.ClassLabel`; class names in
``features["label"].names``), ``gender`` (``"female"`` / ``"male"``) and ``example_id`` (int; the
``source`` id that pairs an example with its counterfactual).
"""

from probekit.finetune._counterfactual import DATA_SETTINGS, apply_setting, counterfactual_dataset
from probekit.finetune._datasets import (
    JIGSAW_LABELS,
    LABHC_PROFESSIONS,
    format_label_gender_counts,
    label_gender_counts,
    load_bios,
    load_jigsaw,
)
from probekit.finetune._synthetic import (
    SYNTHETIC_FEMALE_DOMINATED,
    SYNTHETIC_MALE_DOMINATED,
    SYNTHETIC_PROFESSIONS,
    make_synthetic_bios,
)

__all__ = [
    # data
    "make_synthetic_bios",
    "SYNTHETIC_PROFESSIONS",
    "SYNTHETIC_FEMALE_DOMINATED",
    "SYNTHETIC_MALE_DOMINATED",
    "load_bios",
    "load_jigsaw",
    "LABHC_PROFESSIONS",
    "JIGSAW_LABELS",
    "label_gender_counts",
    "format_label_gender_counts",
    # data settings
    "DATA_SETTINGS",
    "apply_setting",
    "counterfactual_dataset",
]
