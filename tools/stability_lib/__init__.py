"""Comparison of conformance runs for `tools/stability`."""
