"""The one table of training-data settings (Tokpo et al. 2023, §4) and task-time baselines.

Three settings change the training data (original, scrubbed, swapped; Tokpo et al. 2023, §4);
two more keep the data and change the training objective, the standard task-time baselines of
the fairness literature: ``balanced`` (instance reweighting so that every label x gender cell
weighs the same; Han, Baldwin & Cohn 2022) and ``adversarial`` (a gender discriminator on the
pooled representation trained through gradient reversal; Elazar & Goldberg 2018, as in fairlib).

Every place that lists the settings reads this table: :func:`probekit.finetune.apply_setting`,
the fine-tuning runs, the study's configuration checks and the CLI's choices
(``probekit.report`` keeps its own display order, checked against this table by
``tests/unit/test_registry.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DataSetting", "SETTING_TABLE", "DATA_SETTINGS", "PAPER_SETTINGS", "OBJECTIVES"]


@dataclass(frozen=True)
class DataSetting:
    """One training-data setting.

    Attributes
    ----------
    name : str
    description : str
        What the setting is, in one line.
    training_data : str
        What it does to the training data of a fold (the test data is never changed).
    objective : {"cross_entropy", "balanced", "adversarial"}
        The training loss: plain cross-entropy; cross-entropy with per-example weights
        :math:`w_i = N / (n_{cells} n_{y_i g_i})` (:func:`probekit.finetune.balanced_weights`);
        cross-entropy plus a gender discriminator's loss through gradient reversal
        (:func:`probekit.finetune.grad_reverse`, strength ``FinetuneConfig.adversarial_lambda``).
    """

    name: str
    description: str
    training_data: str
    objective: str = "cross_entropy"


SETTING_TABLE: dict[str, DataSetting] = {
    s.name: s
    for s in (
        DataSetting("original", "the data as loaded", "unchanged"),
        DataSetting("scrubbed", "gender words and first names deleted",
                    "every training text scrubbed (debias.scrub_dataset); same labels"),
        DataSetting("swapped", "the data plus its gender-swapped counterfactuals",
                    "every training example plus its counterfactual (debias.swap_dataset), same label"),
        DataSetting("balanced", "every label x gender cell weighs the same in the loss (Han et al. 2022)",
                    "unchanged; loss weights w = N / (n_cells * n_cell) (mean 1)", objective="balanced"),
        DataSetting("adversarial", "gender discriminator through gradient reversal (Elazar & Goldberg 2018)",
                    "unchanged; adversary on the pooled vector, strength adversarial_lambda", objective="adversarial"),
    )
}
"""Every training-data setting: the paper's three in its order, then the two task-time baselines."""

DATA_SETTINGS: tuple[str, ...] = tuple(SETTING_TABLE)

#: The training-data settings of Tokpo et al. (2023); the task-time baselines follow them.
PAPER_SETTINGS: tuple[str, ...] = ("original", "scrubbed", "swapped")
"""The settings: original, scrubbed, swapped (Tokpo et al. 2023), balanced, adversarial."""

OBJECTIVES = ("cross_entropy", "balanced", "adversarial")
"""The training objectives a setting may name (:attr:`DataSetting.objective`)."""
