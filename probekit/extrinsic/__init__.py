"""Extrinsic fairness metrics: one engine."""
