"""Where things are in a study directory (see :mod:`probekit.study._runner` for the layout)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["UNITS_DIR", "SHARED_DIR", "RUNS_DIR", "StudyPaths"]

UNITS_DIR = "units"
SHARED_DIR = "shared"
RUNS_DIR = "runs"


@dataclass(frozen=True)
class StudyPaths:
    """The directories of the study in ``out``."""

    out: Path

    @property
    def units_dir(self) -> Path:
        return self.out / UNITS_DIR

    @property
    def shared_dir(self) -> Path:
        return self.out / SHARED_DIR

    @property
    def cache_dir(self) -> Path:
        """The embedding cache shared by every unit."""
        return self.shared_dir / "embeddings"

    def lock_file(self, key: str) -> Path:
        return self.shared_dir / "locks" / f"{key}.lock"

    def debiased_dir(self, key: str) -> Path:
        return self.shared_dir / "debiased" / key

    def work_dir(self, key: str) -> Path:
        """Training checkpoints of the shared work ``key`` being built."""
        return self.shared_dir / "work" / key

    def run_dir(self, key: str) -> Path:
        return self.out / RUNS_DIR / key

    def unit_file(self, unit_id: str) -> Path:
        return self.units_dir / f"{unit_id}.json"
