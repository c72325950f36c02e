"""Fuzz the whole command line for longer than CI does: ``python scripts/fuzz_cli.py [N] [-k CMD]``.

Runs tests/unit/test_fuzz_cli.py with the Hypothesis profile ``fuzz`` (N examples per subcommand,
default 300; CI runs 12) and prints Hypothesis's statistics: how many cases ran per subcommand and
how many of them the command refused (exit 2) or accepted. Any case breaking the property (a
traceback, an exit status other than 0/2, a message on more than one line or naming a Python
parameter, a write outside --out, a half-written file) is reported minimized, as a failing test.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", nargs="?", type=int, default=300, help="examples per subcommand (default 300)")
    parser.add_argument("-k", default="test_fuzz_every", help="pytest -k expression (default: every subcommand)")
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "HYPOTHESIS_PROFILE": "fuzz", "PROBEKIT_FUZZ_EXAMPLES": str(args.examples),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(root / "tests/unit/test_fuzz_cli.py"),
               "-k", args.k, "--hypothesis-show-statistics"]
    return subprocess.call(command, cwd=root, env=env)


if __name__ == "__main__":
    sys.exit(main())
