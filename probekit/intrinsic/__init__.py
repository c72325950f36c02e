"""Intrinsic bias tests."""
