"""Hardening tests: attacks, bad input, races, crashes and load.

tools/ is put on the import path here, before any module of the package is imported, so the
tests can use the tools' own modules (soak_lib, stability_lib) whatever the import order.
"""

import sys
from pathlib import Path

TOOLS_DIR = Path(__file__).resolve().parents[2] / "tools"
if str(TOOLS_DIR) not in sys.path:
    sys.path.insert(0, str(TOOLS_DIR))
