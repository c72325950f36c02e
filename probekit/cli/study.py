"""``probekit study [CONFIG.toml] --out DIR``: run a full intrinsic/extrinsic study from one config."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Run the grid of a study: encoders x debiasing methods (none, or any method of `probekit debias`;
built on the fly or taken from a path) x data settings (the paper's original, scrubbed, swapped and
the task-time baselines balanced, adversarial) x datasets x folds, plus the intrinsic suite and any
[benchmarks] once per (encoder, method). Without CONFIG
the default study runs (the embedded encoder, the built-in corpus, synthetic biographies; offline).
A [sweep] table (or --preset dose-response) makes it a dose-response study: strength axes x seeds,
one point unit per model, analysed in DIR/dose_response.json (probekit report DIR renders it).

Each unit is written atomically to DIR/units/<id>.json; a rerun skips finished units and redoes
interrupted ones. Shared work (debiased encoders, embeddings) is built once under DIR/shared/.
--dry-run prints one line per unit to stdout (id, parameters, done|todo) and nothing else;
status lines go to stderr. Scale out with --shard i/n (e.g. a SLURM job array writing to one
directory: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) or --backend ray. Then:
probekit report DIR.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "study",
        help="run a full intrinsic/extrinsic study from a TOML config (resumable, shardable, Ray)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("config", nargs="?", default=None, metavar="CONFIG.toml",
                        help="study configuration (default: the default study shipped with probekit)")
    parser.add_argument("--preset", default=None, choices=["default", "dose-response"],
                        help="a study shipped with probekit instead of CONFIG: default (the paper's grid on the embedded "
                        "encoder) or dose-response (153 sweep points: does intrinsic bias predict downstream bias?)")
    parser.add_argument("--out", required=True, metavar="DIR", help="study directory (new, or the same study to continue)")
    parser.add_argument("--attribute", default=None, metavar="gender|race|religion|NAME",
                        help="the protected attribute of the study, replacing the config's [intrinsic] attribute: "
                        "another than gender runs the k-class probe of its groups, the methods debiased for it and "
                        "[benchmarks] restricted to it (needs [study] finetune = false and no [sweep]; default: the config's)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print one line per unit (id, parameters, done|todo) to stdout and run nothing")
    parser.add_argument("--shard", default=None, metavar="i/n", help="run only shard i of n (0 <= i < n) of the units")
    parser.add_argument("--backend", default="local", choices=["local", "ray"],
                        help="local: this process; ray: one Ray task per unit (pip install 'probekit[ray]')")
    parser.add_argument("--data-path", action="append", default=[], metavar="NAME=PATH",
                        help="location of the dataset NAME of the config (bios, jigsaw); repeatable")
    parser.add_argument("--keep-going", action="store_true", help="report a failed unit and run the others")
    parser.add_argument("--prepare", action="store_true",
                        help="only build the debiased encoders the (shard's) unfinished units need, run no unit")
    parser.add_argument("--progress", action="store_true", help="progress bars of the library calls (default: one line per unit)")
    ray = parser.add_argument_group("ray backend")
    ray.add_argument("--ray-address", default=None, metavar="ADDR",
                     help="Ray cluster address (default: $RAY_ADDRESS, else a new local Ray instance)")
    ray.add_argument("--ray-cpus-per-unit", type=float, default=1.0, help="CPUs a unit asks for (default %(default)s)")
    ray.add_argument("--ray-gpus-per-unit", type=float, default=0.0, help="GPUs a unit asks for (default %(default)s)")
    from probekit.cli._outputs import declare_output

    declare_output(parser, "study")
    parser.set_defaults(func=run)


def _data_paths(items: list[str]) -> dict[str, str]:
    from probekit.errors import InvalidParameterError

    paths = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise InvalidParameterError("--data-path", item, "NAME=PATH, NAME a dataset name of the config")
        paths[name.strip()] = path.strip()
    return paths


def run(args: argparse.Namespace) -> int:
    from probekit.errors import InvalidParameterError
    from probekit.study import dry_run_lines, load_config, parse_shard, preset_path, run_study

    shard = parse_shard(args.shard)
    if args.preset is not None and args.config is not None:
        raise InvalidParameterError("--preset", args.preset, "either CONFIG or --preset, not both",
                                    f"CONFIG {args.config!r} was given too")
    config = load_config(preset_path(args.preset) if args.preset else args.config, attribute=args.attribute)
    paths = _data_paths(args.data_path)
    if paths:
        config = config.with_data_paths(paths)
    if args.dry_run:
        lines = dry_run_lines(config, args.out, shard)
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
        done = sum(line.endswith("\tdone") for line in lines)
        print(f"probekit study: {len(lines)} unit(s){f' in shard {args.shard}' if shard else ''}, {done} done, "
              f"{len(lines) - done} to run (config: {config.source})", file=sys.stderr)
        return 0
    for option in ("ray_cpus_per_unit", "ray_gpus_per_unit"):
        if getattr(args, option) < 0:
            raise InvalidParameterError("--" + option.replace("_", "-"), getattr(args, option), "a number >= 0")

    def say(message: str) -> None:
        print(f"probekit study: {message}", file=sys.stderr, flush=True)

    summary = run_study(
        config, args.out, shard=shard, backend=args.backend, progress=args.progress, keep_going=args.keep_going,
        say=say, ray_address=args.ray_address, ray_cpus_per_unit=args.ray_cpus_per_unit,
        ray_gpus_per_unit=args.ray_gpus_per_unit, prepare=args.prepare,
    )
    if args.prepare:
        say(f"shared work built under {args.out}/shared/; now run the units (the same command without --prepare)")
        return 0
    if summary.failed:
        for unit_id, message in summary.failed:
            say(f"failed: {unit_id}: {message}")
        return 1
    say(f"results: {args.out}/units/ ({summary.n_units} units in the study); tables and figures: probekit report {args.out}")
    return 0
