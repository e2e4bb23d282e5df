"""The conformance suite, in rooms that import only the rooms below them: the step definitions
(definitions/), the scenario's objects (scenario/), the consent drivers (consent/), the HTTP
layer (http/), the deployment profiles (profiles/), the rule catalogue (rules/), the run
machinery (run/) and the reports (reports/); `plugin.py` and `runner.py` are the entries."""
