"""probekit: does debiasing an encoder remove gender information or only hide it?

The public API is listed in ``__all__``; everything else lives in private modules.
"""

from probekit._embedding import WordEmbeddings, embed_sentences, embed_words
from probekit._encoders import DEFAULT_MODEL_NAME, Encoder, load_encoder
from probekit._version import __version__
from probekit.errors import ProbekitError

__all__ = [
    "__version__",
    "DEFAULT_MODEL_NAME",
    "Encoder",
    "ProbekitError",
    "WordEmbeddings",
    "embed_sentences",
    "embed_words",
    "load_encoder",
]
