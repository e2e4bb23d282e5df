"""Step definitions, targets, consent drivers and reports of the conformance suite."""
