"""Section 3: the client kit (placeholder until written)."""


def run(reps: int, short: bool, notes: list[str]) -> dict:
    return {"available": False, "reason": "not written yet"}
