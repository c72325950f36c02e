"""Benchmark of the SEAT permutation test (not a test: prints figures, asserts nothing).

Random embeddings (dim 384): 64 + 64 targets, 100 + 100 attributes, 100,000 Monte Carlo
permutations. Compares

  (a) probekit.seat_test (cosine table once, permutations as subset sums of precomputed s(w, A, B)),
      without the bootstrap interval, best of several repeats;
  (b) a straightforward per-permutation Python loop: draw a permutation of X ∪ Y, sum the
      precomputed s(w, A, B) over each half. It is timed on a subset of the permutations and
      extrapolated linearly to the full count (said so in the output). It already reuses the
      precomputed scores, so the ratio understates the gain over loops that recompute cosines.

Also prints the p-values of both, which agree within Monte Carlo error, and the time of the
bootstrap interval (1,000 replicates) on top.

Usage: python scripts/bench_seat.py [--permutations 100000] [--loop-permutations 5000] [--repeats 5]
The last line reads ``speed-up vs per-permutation loop: X.Xx``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from probekit.intrinsic import seat_test


def loop_p_value(X, Y, A, B, n_permutations: int, seed: int) -> tuple[float, float]:
    """The straightforward version: per-permutation Python loop over precomputed scores."""
    start = time.perf_counter()
    W = np.vstack([X, Y])
    unit = lambda M: M / np.linalg.norm(M, axis=1, keepdims=True)  # noqa: E731
    s = (unit(W) @ unit(A).T).mean(axis=1) - (unit(W) @ unit(B).T).mean(axis=1)
    n_x = len(X)
    observed = s[:n_x].sum() - s[n_x:].sum()
    rng = np.random.default_rng(seed)
    count = 0
    for _ in range(n_permutations):
        perm = rng.permutation(len(s))
        stat = s[perm[:n_x]].sum() - s[perm[n_x:]].sum()
        if stat >= observed:
            count += 1
    elapsed = time.perf_counter() - start
    return (1 + count) / (1 + n_permutations), elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--permutations", type=int, default=100_000)
    parser.add_argument("--loop-permutations", type=int, default=5_000,
                        help="permutations actually run by the loop (then extrapolated)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dim", type=int, default=384)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    direction = rng.normal(size=args.dim)
    shift = 0.02  # a weak effect, so the p-value is neither 0-ish nor 1-ish
    X = rng.normal(size=(64, args.dim)) + shift * direction
    Y = rng.normal(size=(64, args.dim)) - shift * direction
    A = rng.normal(size=(100, args.dim)) + shift * direction
    B = rng.normal(size=(100, args.dim)) - shift * direction

    seat_test(X, Y, A, B, n_permutations=1000, random_state=0, n_bootstrap=0)  # warm-up (imports, caches)
    times = []
    for r in range(args.repeats):
        t = time.perf_counter()
        result = seat_test(X, Y, A, B, n_permutations=args.permutations, random_state=r, n_bootstrap=0)
        times.append(time.perf_counter() - t)
    fast = min(times)
    t = time.perf_counter()
    with_ci = seat_test(X, Y, A, B, n_permutations=args.permutations, random_state=0, n_bootstrap=1000)
    with_ci_time = time.perf_counter() - t

    loop_n = min(args.loop_permutations, args.permutations)
    loop_p, loop_time = loop_p_value(X, Y, A, B, loop_n, seed=1)
    loop_full = loop_time * args.permutations / loop_n

    print(f"machine: {platform.processor() or platform.machine()}, numpy {np.__version__}")
    print(f"sets: 64 + 64 targets x 100 + 100 attributes, dim {args.dim}; {args.permutations:,} permutations")
    print(f"seat_test (no bootstrap): best of {args.repeats}: {fast * 1000:.1f} ms "
          f"(median {np.median(times) * 1000:.1f} ms); p = {result.p_value:.4f}, effect size = {result.effect_size:.4f}")
    print(f"seat_test with a 1,000-replicate bootstrap CI: {with_ci_time * 1000:.1f} ms; "
          f"CI = [{with_ci.effect_size_ci[0]:.3f}, {with_ci.effect_size_ci[1]:.3f}]")
    print(f"per-permutation loop: {loop_n:,} permutations in {loop_time:.3f} s, extrapolated to "
          f"{args.permutations:,}: {loop_full:.2f} s; p = {loop_p:.4f} (from {loop_n:,} permutations)")
    print(f"under 0.1 s: {'yes' if fast < 0.1 else 'no'}")
    print(f"speed-up vs per-permutation loop: {loop_full / fast:.1f}x")


if __name__ == "__main__":
    main()
