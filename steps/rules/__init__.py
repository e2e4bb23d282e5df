"""The rules the suite checks: the catalogue (features/rules.toml), the variants a rule's words
cover and which scenarios check them (coverage.py)."""
