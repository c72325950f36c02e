"""probekit: does debiasing an encoder remove gender information or only hide it?"""

from probekit._version import __version__
from probekit.errors import ProbekitError

__all__ = ["__version__", "ProbekitError"]
