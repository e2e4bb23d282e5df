"""Section 2: a full conformance run (placeholder until written)."""


def run(short: bool, notes: list[str]) -> dict:
    return {"available": False, "reason": "not written yet"}
