"""The step definitions: the Given, When and Then that the feature files' words bind to, one
module per area of the spec. Each step says its kind (`@premise` or `@check`,
steps/scenario/kinds.py; a check names the rules it states, so searching a rule's id here finds
its check) and does its work through the scenario's objects (steps/scenario/).
Every module here is a pytest plugin of the suite, listed in `STEP_MODULES`
(steps/run/bdd_registry.py), the one place the run machinery names them."""
