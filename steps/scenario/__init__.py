"""What a scenario is made of: its state (`Scene`), the target it reaches (`Target`: profile,
endpoints, consent, clock, observations), the requests the application sends and what it keeps
of them, the grants it starts from, the control requests that say whose failure a missing code
is, and who may share what with whom (isolation, twins, writers). Below the step definitions,
above the HTTP layer and the consent drivers."""
