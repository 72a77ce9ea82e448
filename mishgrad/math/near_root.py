"""The four ways of computing d near its zero x0 that notebooks 03 and 10 compare.

Notebook 03 measures the errors of :func:`forms` on :func:`neighbourhood`; notebook 10 judges
the same results by CANN's precision standard.
"""

from typing import Final

import numpy as np

from . import numerics, oracle, samples

#: Half the width of the neighbourhood of x0 the comparison covers.
HALF_WIDTH: Final = 1e-3


def neighbourhood(half_width: float = HALF_WIDTH) -> np.ndarray:
    """Every float32 within ``half_width`` of x0 (the float32 nearest the zero of d)."""
    x0 = float(numerics.root_expansion().high)
    return samples.float32_every(x0 - half_width, x0 + half_width)


def forms(x: np.ndarray) -> dict[str, np.ndarray]:
    """The gradient d on float32 ``x`` by each of the four forms, keyed by a table label."""
    return {
        "v1 sign split (t + p)": numerics.dmish_sign_split(x),
        "ours, tanhx branch, t correctly rounded (t + p)": numerics.dmish_tanhx(
            x, oracle.tanh_softplus_oracle(x)
        ),
        "ours, rational form without the window": numerics.dmish_rational(x),
        "ours, root-centred polynomial (the kernel)": numerics.dmish_ours(x),
    }
