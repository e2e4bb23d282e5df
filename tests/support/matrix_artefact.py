"""The deployment matrix as a CI artefact: the full runs the tests make anyway (the bundled
server, the foreign-style metabrainz.org-like provider, ...) keep their report folders in
``$MB_OAUTH_ARTEFACTS/matrix/runs/<name>/``, and each one kept rewrites
``$MB_OAUTH_ARTEFACTS/matrix/matrix.html`` and ``matrix.md`` from every run kept so far, so the
matrix holds them all once the last has finished, with no extra run of the suite.

The runs finish on different pytest-xdist workers, possibly at the same moment: a lock file
makes each "put the folder in place, rewrite the matrix" one step. Without
``MB_OAUTH_ARTEFACTS`` nothing is kept.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from steps.reports import HTML, SUMMARY, VERDICTS
from steps.run.compare import write_matrix

#: The files of a report folder the matrix and its links need.
KEPT = (VERDICTS, HTML, SUMMARY)
#: Column order of the known runs; any other name follows, alphabetically.
ORDER = ("bundled-server", "foreign-metabrainz-like", "musicbrainz-stand-in")


def matrix_dir() -> Path | None:
    """$MB_OAUTH_ARTEFACTS/matrix, or None when the variable is not set."""
    parent = os.environ.get("MB_OAUTH_ARTEFACTS")
    return Path(parent) / "matrix" if parent else None


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _column(folder: Path) -> tuple[int, str]:
    name = folder.name
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)


def keep_run(name: str, report_dir: Path) -> Path | None:
    """Keep a run's report folder under `name` and rewrite the matrix of every kept run; the
    matrix folder, or None when nothing is kept (no variable, or the run wrote no verdicts)."""
    out = matrix_dir()
    if out is None or not (report_dir / VERDICTS).is_file():
        return None
    runs = out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=runs))
    staging.chmod(0o755)  # mkdtemp's 0700 would hide the folder from whoever reads artefacts
    for file in KEPT:
        if (report_dir / file).is_file():
            shutil.copy2(report_dir / file, staging / file)
    with _locked(out / ".lock"):
        shutil.rmtree(runs / name, ignore_errors=True)
        staging.rename(runs / name)
        kept = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
        write_matrix(sorted(kept, key=_column), out)
    return out
