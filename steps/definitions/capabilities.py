"""Steps about what the profile declares of the deployment (features: desktop, scopes).

A capability the spec requires is never a reason to skip: a profile that declares it absent
makes its rules fail with that reason. Likewise the profile's `[scopes]` vocabulary lets every
flow be checked with the deployment's names, while the renaming itself is reported against
the rule that requires the spec's identifiers (2.4)."""

from __future__ import annotations

from pytest_bdd import then

from steps.profiles.profile import TargetProfile
from steps.scenario.kinds import check


@then("the deployment offers out-of-band delivery")
@check()
def offers_oob(profile: TargetProfile) -> None:
    """Spec 4.1, 2.2: installed applications may use urn:ietf:wg:oauth:2.0:oob."""
    assert profile.capabilities.oob, "the profile declares no out-of-band support"


@then("the deployment names every scope as the spec does")
@check()
def spec_scope_names(profile: TargetProfile) -> None:
    """Spec 2.4: scope identifiers are given exactly."""
    renamed = profile.renamed_scopes()
    assert not renamed, "; ".join(
        f"the deployment names scope {spec} as {own}" for spec, own in renamed.items()
    )
