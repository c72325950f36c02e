"""The one table of training-data settings (Tokpo et al. 2023, §4).

Every place that lists the settings reads this table: :func:`probekit.finetune.apply_setting`,
the fine-tuning runs, the study's configuration checks and the CLI's choices
(``probekit.report`` keeps its own display order, checked against this table by
``tests/unit/test_registry.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DataSetting", "SETTING_TABLE", "DATA_SETTINGS"]


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
    """

    name: str
    description: str
    training_data: str


SETTING_TABLE: dict[str, DataSetting] = {
    s.name: s
    for s in (
        DataSetting("original", "the data as loaded", "unchanged"),
        DataSetting("scrubbed", "gender words and first names deleted",
                    "every training text scrubbed (debias.scrub_dataset); same labels"),
        DataSetting("swapped", "the data plus its gender-swapped counterfactuals",
                    "every training example plus its counterfactual (debias.swap_dataset), same label"),
    )
}
"""Every training-data setting, in the paper's order."""

DATA_SETTINGS: tuple[str, ...] = tuple(SETTING_TABLE)
"""The training-data settings of Tokpo et al. (2023): original, scrubbed, swapped."""
