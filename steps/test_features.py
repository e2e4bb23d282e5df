"""Binds every feature file under features/ to pytest, so that
`pytest -p steps.plugin --profile FILE` (or the runner, which collects steps/) runs them all."""

from pytest_bdd import scenarios

from steps.rules.catalogue import FEATURES_DIR

scenarios(str(FEATURES_DIR))
