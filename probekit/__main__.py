import sys

from probekit.cli.main import main

sys.exit(main())
