"""Plotting and notebook display settings shared by every notebook.

Figures are PNG only: nbval does not compare images, so a plot can never make a
notebook flaky, while its caption and the numbers printed beside it are compared.
"""

from __future__ import annotations

import warnings

import matplotlib as mpl
import numpy as np


def setup_notebook() -> None:
    """Deterministic display settings: NumPy print options, PNG figures, quiet warnings.

    Call once in a notebook's first code cell.
    """
    np.set_printoptions(precision=6, suppress=False, linewidth=100, floatmode="maxprec")
    mpl.rcParams.update(
        {
            "figure.figsize": (8.0, 3.6),
            "figure.dpi": 100,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "svg.hashsalt": "mishgrad",
        }
    )
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # outside IPython there is nothing to configure
        return
    set_matplotlib_formats("png")
    # Overflow is this project's subject; the results show it, the warnings add noise.
    warnings.filterwarnings(
        "ignore", message=r"(overflow|underflow|invalid value|divide by zero) encountered"
    )
