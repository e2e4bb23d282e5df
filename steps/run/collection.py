"""Collection rewriting: `features/` (or a .feature file) on the command line means the module
that binds the features to pytest (steps/test_features.py), remembered as a filter that
selection applies; with a profile and no paths at all, the whole suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from steps.rules.catalogue import FEATURES_DIR

BINDING = Path(__file__).parent.parent / "test_features.py"
#: The feature files or folders named on the command line (empty: all of them).
FILTER_KEY = pytest.StashKey[list[Path]]()


def redirect_collection(config: pytest.Config, *, whole_suite: bool) -> None:
    """Point `config.args` at the binding module; keep the named features as a filter."""
    base = Path(config.invocation_params.dir)
    features = FEATURES_DIR.resolve()
    args: list[str] = []
    filters: list[Path] = []
    for arg in config.args:
        path = (base / arg.split("::", 1)[0]).resolve()
        if path == features or features in path.parents:
            filters.append(path)
            args.append(str(BINDING))
        else:
            args.append(arg)
    if whole_suite and config.args_source != pytest.Config.ArgsSource.ARGS:
        args = [str(BINDING)]
    config.args = list(dict.fromkeys(args))
    config.stash[FILTER_KEY] = [] if features in filters else filters


def in_filter(config: pytest.Config, feature_file: str) -> bool:
    """Whether a feature file is among those named on the command line (or none was)."""
    filters = config.stash.get(FILTER_KEY, [])
    path = (FEATURES_DIR / Path(feature_file).name).resolve()
    return not filters or any(f == path or f in path.parents for f in filters)
