"""When scenarios run and what they share: which scenarios write to grants (`writers`), run
alone and end an epoch (`isolation`), which share a premise (`twin_keys`), how often a check
samples (`sampling`), and what the suite knows of a collected scenario (`meta`). Apart from
`scenario/` (what an application does), so each reads as one concern."""
