"""``probekit debias METHOD --model CKPT --out DIR``: build a debiased encoder.

Every method writes a directory that ``probekit probe --model DIR``, ``probekit compare`` and
:func:`probekit.load_encoder` accept: post-hoc projections (Sent-debias, INLP, LEACE) as the base
checkpoint's name plus a fitted projection, weight-changing methods (CDA, Context-debias) as a
plain Hugging Face checkpoint with a JSON describing how it was made.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "debias",
        help="build a debiased encoder (sent-debias, inlp, leace, cda, context-debias)",
        description="Debias an encoder and write a directory that probe, compare and load_encoder accept.",
    )
    methods = parser.add_subparsers(dest="method", metavar="METHOD")
    _add_projection_methods(methods)
    _add_training_methods(methods)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


# --- post-hoc projections: sent-debias, inlp, leace ---------------------------------------------

def _add_projection_methods(methods: argparse._SubParsersAction) -> None:
    pass


# --- weight-changing methods: cda, context-debias -----------------------------------------------

def _add_training_methods(methods: argparse._SubParsersAction) -> None:
    pass
