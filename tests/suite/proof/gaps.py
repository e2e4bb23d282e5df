"""Targets the suite is known to miss (or to blame on another rule), by target name or by
rule: the generated proof found them, and the suite's fix belongs in features/ or steps/. The
sample in tests/suite/test_proof.py expects them to fail (strictly: a fixed gap fails the test
until its entry goes); tools/proof reports them like any other."""

from __future__ import annotations

KNOWN_GAPS: dict[str, str] = {}
