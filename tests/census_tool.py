"""``tools/cell_census.py`` for the tests, loaded once (``tools/`` is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "cell_census", Path(__file__).resolve().parents[1] / "tools" / "cell_census.py"
)
cell_census = importlib.util.module_from_spec(_SPEC)
sys.modules["cell_census"] = cell_census  # dataclasses look their module up there
_SPEC.loader.exec_module(cell_census)
