"""The float32 inputs the kernel's accuracy is measured on (notebook 11, ``bench/accuracy.py``).

:func:`float32_inputs`: the documented sample of :mod:`mishgrad.math.samples`, every float32
within :data:`ROOT_BAND` of the root of d, and every 16th float32 of the band where the
exponential is subnormal (:data:`FLUSH_BAND`). ``bench/accuracy_runs.py`` runs the kernel on
them under each numerics model and judges the results.
"""

from typing import Final

import numpy as np

from mishgrad.math import near_root, samples

#: Half-width of the band around the root of d swept with every float32 in it.
ROOT_BAND: Final = 0.06
#: The x interval where exp(x) is subnormal in float32 and d is still normal (around it).
FLUSH_BAND: Final = (-100.0, -86.0)


def float32_inputs() -> dict[str, np.ndarray]:
    """The float32 inputs of the tables, by part (see the module doc)."""
    parts = samples.float32_sample()
    parts["root band"] = near_root.neighbourhood(ROOT_BAND)
    parts["flush band"] = samples.float32_every(*FLUSH_BAND, 16)
    return parts
