"""Which combinations of a rule's dimensions its scenarios must cover.

A defect can live on one combination of two dimensions alone (an installed application's
refresh, a token from a refresh passed in a form body), so a rule covers every pair of values
of its dimensions (all-pairs) at least, and the full product when that is small
(`PRODUCT_LIMIT`: a cheap rule). Combinations no deployment can have are left out
(features/dimensions.toml, `impossible`), and so are the pairs only they hold.

`all_pairs` builds a small covering set greedily and deterministically (the same rows every
time, so a feature table and the printout agree)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence

from steps.rules.dimensions import Combination, Space

#: A rule whose full product has at most this many combinations covers all of them.
PRODUCT_LIMIT = 12
#: A pair of values of two dimensions: ((dimension, value), (dimension, value)).
Pair = tuple[tuple[str, str], tuple[str, str]]


def product(space: Space) -> list[dict[str, str]]:
    """Every possible combination of the domain's values (once each, settled)."""
    names = list(space.domain)
    found: dict[tuple[str, ...], dict[str, str]] = {}
    for values in itertools.product(*space.domain.values()):
        row = dict(zip(names, values, strict=True))
        if space.possible(row):
            settled = space.settle(row)
            found.setdefault(tuple(settled.values()), settled)
    return list(found.values())


def pairs_of(combination: Combination, names: Sequence[str]) -> Iterator[Pair]:
    """The pairs of values a combination holds, over the given dimensions."""
    for first, second in itertools.combinations(names, 2):
        yield (first, combination[first]), (second, combination[second])


def needed_pairs(space: Space) -> set[Pair]:
    """The pairs some possible combination holds: those a covering set must hold."""
    names = list(space.domain)
    return {pair for row in product(space) for pair in pairs_of(row, names)}


def all_pairs(space: Space) -> list[dict[str, str]]:
    """A small set of possible combinations holding every needed pair (greedy: each row the
    candidate that covers most pairs still missing; ties go to the earliest candidate)."""
    names = list(space.domain)
    candidates = product(space)
    if len(names) < 2:
        return candidates
    missing = needed_pairs(space)
    rows: list[dict[str, str]] = []
    while missing:
        best = max(candidates, key=lambda row: len(missing & set(pairs_of(row, names))))
        rows.append(best)
        missing -= set(pairs_of(best, names))
    return rows


def is_cheap(space: Space) -> bool:
    """Whether the rule covers its full product (small enough to run whole)."""
    return len(product(space)) <= PRODUCT_LIMIT


def required(space: Space) -> list[dict[str, str]]:
    """The rows a rule's scenarios need: the product when cheap, else all pairs."""
    return product(space) if is_cheap(space) else all_pairs(space)


def uncovered(space: Space, covered: Iterable[Combination]) -> list[str]:
    """What the covered combinations miss, as readable lines (empty: nothing)."""
    names = list(space.domain)
    rows = [space.settle(row) for row in covered]
    if is_cheap(space):
        wanted = {tuple(row.items()) for row in product(space)}
        have = {tuple((name, row.get(name, "")) for name in names) for row in rows}
        return [_words(dict(row)) for row in sorted(wanted - have)]
    have_pairs = {pair for row in rows if _complete(row, names) for pair in pairs_of(row, names)}
    missing = needed_pairs(space) - have_pairs
    return [f"{a}={x} with {b}={y}" for (a, x), (b, y) in sorted(missing)]


def _complete(row: Mapping[str, str], names: Sequence[str]) -> bool:
    return all(row.get(name) for name in names)


def _words(row: Mapping[str, str]) -> str:
    return ", ".join(f"{name}={value}" for name, value in row.items())
