"""``probekit info``: versions, device, the default model and whether it has a masked-LM head."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("info", help="versions, device and the default model")
    parser.add_argument("--model", default=None, metavar="CKPT", help="describe this checkpoint instead of the default")
    parser.add_argument("--trust-remote-code", action="store_true", help="allow checkpoints that ship their own code")
    parser.add_argument("--safetensors-only", action="store_true", help="refuse pickled weights (pytorch_model.bin)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from probekit import load_encoder
    from probekit.encoders import cpu_supports_bf16, resolve_device
    from probekit.utils import git_commit, library_versions, toolkit_version

    print(f"probekit {toolkit_version()}" + (f" (git {git_commit()[:12]})" if git_commit() else ""))
    for name, version in library_versions().items():
        print(f"  {name:14s} {version or 'not installed'}")
    device = resolve_device(None)
    print(f"device: {device}" + (" (CPU bf16 supported)" if device.type == "cpu" and cpu_supports_bf16() else ""))
    encoder = load_encoder(args.model, device="cpu", trust_remote_code=args.trust_remote_code,
                           safetensors_only=args.safetensors_only)
    print("model:" if args.model else "default model:")
    for key, value in encoder.describe().items():
        if key not in {"device", "dtype"}:
            print(f"  {key:14s} {value}")
    if not encoder.has_mlm_head:
        print("  note: no masked-LM head, so LPBS and CDA pretraining are unavailable for this checkpoint")
    return 0
