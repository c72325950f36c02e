"""The ``probekit`` command line: a thin argparse layer over the library (see :mod:`probekit.cli.main`)."""
