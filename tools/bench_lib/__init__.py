"""The pieces of `tools/bench`: load generators, servers under test, fixtures and the report."""
