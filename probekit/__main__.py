"""``python -m probekit``: the command-line interface."""

import sys

from probekit.cli.main import main

sys.exit(main())
