"""The ways a deployment can vary under a rule (features/dimensions.toml): dimensions, the
objects a check touches, the combinations no deployment can have, and a rule's domain.

A rule's *domain* is, for each dimension of the objects it touches, the values its scenarios
must cover: all of them, or those the rule keeps (`only`, with its reason). Its combinations
are the domain's product less the impossible ones (steps/rules/combinations.py)."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from steps.rules.catalogue import FEATURES_DIR, Rule

DIMENSIONS_FILE = FEATURES_DIR / "dimensions.toml"
#: A combination: a value for each of a rule's dimensions.
Combination = Mapping[str, str]
#: A rule's dimensions in order, each with the values it must cover.
Domain = dict[str, tuple[str, ...]]


class DimensionError(ValueError):
    """dimensions.toml, or a rule's use of it, is inconsistent."""


@dataclass(frozen=True)
class Dimension:
    """One way a deployment varies: its values and the features' words for each."""

    name: str
    about: str
    words: dict[str, str]
    default: str | None = None

    @property
    def values(self) -> tuple[str, ...]:
        """The values, in the table's order."""
        return tuple(self.words)

    def value_of_cell(self, cell: str) -> str | None:
        """The value an Examples cell names: its words, or the value's own name."""
        text = cell.strip()
        for value, words in self.words.items():
            if text in (words, value):
                return value
        return None


@dataclass(frozen=True)
class ObjectKind:
    """What a check can touch, and the dimensions it varies along."""

    name: str
    about: str
    dimensions: tuple[str, ...]
    only: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Impossible:
    """A combination of values no deployment can have (or that another rule covers), and why:
    `when` names a value, or a list of values, for each dimension it concerns."""

    when: dict[str, str | list[str]]
    because: str

    def excludes(self, combination: Combination) -> bool:
        """Whether the combination has a value of `when` for each of its dimensions."""
        return all(
            combination.get(name) in (value if isinstance(value, list) else [value])
            for name, value in self.when.items()
        )


@dataclass(frozen=True)
class Free:
    """Values that leave other dimensions of an object without meaning (a token never issued
    has no application): a row with them need not say those, and no pair with them is needed."""

    object: str
    when: dict[str, str]
    frees: tuple[str, ...]
    because: str


#: The value of a dimension that does not apply to a combination (see `Free`).
NOT_APPLICABLE = "-"


@dataclass(frozen=True)
class Space:
    """One rule's combinations: its domain, what is impossible, what frees what."""

    domain: Domain
    impossible: tuple[Impossible, ...] = ()
    free: tuple[Free, ...] = ()

    def possible(self, combination: Combination) -> bool:
        """Whether a deployment can have this combination at all."""
        return not any(rule.excludes(combination) for rule in self.impossible)

    def settle(self, combination: Combination) -> dict[str, str]:
        """The combination with the dimensions its values free set to NOT_APPLICABLE."""
        settled = dict(combination)
        for entry in self.free:
            if all(settled.get(name) == value for name, value in entry.when.items()):
                settled |= {name: NOT_APPLICABLE for name in entry.frees if name in self.domain}
        return settled


@dataclass(frozen=True)
class Dimensions:
    """The whole table."""

    dimensions: dict[str, Dimension]
    objects: dict[str, ObjectKind]
    impossible: tuple[Impossible, ...]
    free: tuple[Free, ...] = ()

    def possible(self, combination: Combination) -> bool:
        """Whether a deployment can have this combination at all."""
        return not any(rule.excludes(combination) for rule in self.impossible)

    def space(self, rule: Rule) -> Space:
        """The rule's combinations (steps/rules/combinations.py enumerates them)."""
        frees = tuple(entry for entry in self.free if entry.object in rule.touches)
        excluded = tuple(Impossible(dict(when), rule.because) for when in rule.excluded)
        return Space(self.domain(rule), self.impossible + excluded, frees)

    def domain(self, rule: Rule) -> Domain:
        """The dimensions of the objects the rule touches, each with the values to cover: the
        objects' (a dimension two objects share takes the values of either: each object's
        check applies where it can), or those the rule keeps (`only`)."""
        domain: Domain = {}
        for name in rule.touches:
            kind = self.objects.get(name)
            if kind is None:
                raise DimensionError(f"rule {rule.id} touches {name!r}, not an object")
            for dimension in kind.dimensions:
                values = kind.only.get(dimension, self.dimensions[dimension].values)
                known = domain.get(dimension, ())
                every = self.dimensions[dimension].values  # the table's order
                domain[dimension] = tuple(v for v in every if v in known or v in values)
        for dimension, values in rule.only.items():
            if dimension not in domain:
                raise DimensionError(f"rule {rule.id} keeps {dimension}, which it does not touch")
            unknown = set(values) - set(self.dimensions[dimension].values)
            if unknown:
                raise DimensionError(f"rule {rule.id}: {dimension} has no values {unknown}")
            domain[dimension] = tuple(values)
        return domain


def parse_dimensions(text: str) -> Dimensions:
    """The table from its TOML text, checked for names that point nowhere."""
    data = tomllib.loads(text)
    dimensions = {
        name: Dimension(name, entry.get("about", ""), dict(entry["words"]), entry.get("default"))
        for name, entry in data.get("dimension", {}).items()
    }
    for dimension in dimensions.values():
        if dimension.default is not None and dimension.default not in dimension.words:
            raise DimensionError(f"{dimension.name}: default {dimension.default!r} is no value")
    objects = {name: _object(name, entry, dimensions) for name, entry in data["object"].items()}
    impossible = tuple(
        Impossible(dict(entry["when"]), entry["because"]) for entry in data.get("impossible", ())
    )
    for rule in impossible:
        _known(rule.when.items(), dimensions, "impossible")
    free = tuple(
        Free(entry["object"], dict(entry["when"]), tuple(entry["frees"]), entry["because"])
        for entry in data.get("free", ())
    )
    for entry in free:
        _known(entry.when.items(), dimensions, "free")
        if entry.object not in objects:
            raise DimensionError(f"free: no object {entry.object!r}")
    return Dimensions(dimensions, objects, impossible, free)


def _object(name: str, entry: Mapping[str, Any], dimensions: dict[str, Dimension]) -> ObjectKind:
    kind = ObjectKind(
        name,
        entry.get("about", ""),
        tuple(entry["dimensions"]),
        {k: tuple(v) for k, v in (entry.get("only") or {}).items()},
    )
    unknown = [d for d in kind.dimensions if d not in dimensions]
    if unknown:
        raise DimensionError(f"object {name}: no dimensions {unknown}")
    for dimension, values in kind.only.items():
        _known(((dimension, v) for v in values), dimensions, f"object {name}")
    return kind


def _known(
    pairs: Iterable[tuple[str, str | list[str]]], dimensions: dict[str, Dimension], where: str
) -> None:
    for dimension, given in pairs:
        for value in given if isinstance(given, list) else [given]:
            if dimension not in dimensions or value not in dimensions[dimension].words:
                raise DimensionError(f"{where}: {dimension} = {value!r} is no value of the table")


@cache
def load_dimensions(path: Path = DIMENSIONS_FILE) -> Dimensions:
    """The table shipped beside the feature files."""
    return parse_dimensions(path.read_text(encoding="utf-8"))
