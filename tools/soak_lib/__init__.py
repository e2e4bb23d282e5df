"""Load, crash and integrity helpers of `tools/soak` (also used by tests/hardening)."""
