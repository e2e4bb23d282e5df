"""The run machinery behind the two entry modules (`steps.plugin`, pytest's side, and
`steps.runner`, `mb-oauth-conformance`): options, collection and selection, the run-wide
state and fixtures, twins' replay, the estimate of prompts, the preflight, result payloads and
the pytest subprocess. It reaches the step definitions only through the registry
(bdd_registry.py)."""
