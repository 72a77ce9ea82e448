"""CANN's precision standard for experimental operators, in both of its published versions.

CANN's operator base library states how a contributed ("experimental") operator proves its
accuracy, in :data:`STANDARD_PATH` of cann/opbase; notebook 10 writes both versions out.

**As first released** (opbase commit ``6049643``, 2026-04-09; :data:`FIRST_RELEASE`), each
output element ``a`` is compared with a golden value ``g`` through ``r = |a - g| / (|g| + 1e-7)``,
and a case passes when ``MERE = mean(r) < T`` and ``MARE = max(r) < 10 T``, T per dtype
(:func:`threshold`). The floor ``1e-7`` is an *absolute* scale, the same for every dtype: r
is relative for ``|g| >> 1e-7`` and absolute for ``|g| << 1e-7``; between the two, near a zero
of the output, a float32 result must be accurate to a tiny fraction of its own ULP to pass
MARE (:func:`allowed_abs_error`).

**Since 2026-07-15** (opbase commit ``adbe441``, still in force at ``aa3cd74``) the same page
states a *mixed tolerance* instead: an element matches when ``|a - g| <= atol + rtol |g|``, and
a case passes when at least 99 % of its elements match and its largest absolute error stays
below a hard cap, "1e-1 or 32 * ULP" for float16 (1e-0 for bfloat16, 1e-2 for float32).

Both versions applied to whole arrays of kernel results are ``bench/precision_standard.py``,
with the correctly rounded truth of :mod:`mishgrad.math.oracle` as the golden. Neither version
discusses non-finite values: equal values (two NaNs or two infinities of one sign included)
count as error 0, any other pair with a NaN or an infinity as an infinite error.
"""

from typing import Final

import numpy as np
import numpy.typing as npt

from mishgrad.citations import OPBASE, permalink
from mishgrad.math.dtypes import TABLE, dtype_name

#: The floor added to ``|golden|`` in the denominator of the relative error.
FLOOR: Final = 1e-7
#: MARE must stay below this multiple of the threshold.
MARE_FACTOR: Final = 10
#: The threshold T of each dtype (its record's ``threshold_exponent``: T = 2**exponent).
THRESHOLDS: Final[dict[str, float]] = {k: 2.0**r.threshold_exponent for k, r in TABLE.items()}
#: Where the standard is stated in cann/opbase.
STANDARD_PATH: Final = "docs/zh/ops_precision_standard/experimental_standard.md"
#: opbase at the commit that first released the standard (2026-04-09).
OPBASE_FIRST_RELEASE: Final = (OPBASE[0], "60496434718ec45c5c61de86389d4e947bff1d58")
#: The standard as first released: MERE and MARE (lines 8-19), the thresholds per dtype
#: (lines 47-55) and the pass rule (lines 59-60).
FIRST_RELEASE: Final = permalink(OPBASE_FIRST_RELEASE, STANDARD_PATH, (8, 60))


def threshold(dtype: npt.DTypeLike | str) -> float:
    """The threshold T of ``dtype`` (MERE must stay below T, MARE below 10 T).

    ``2**-13``, ``2**-10`` or ``2**-7`` for float32, float16 or bfloat16 (a dtype or its name).
    """
    return THRESHOLDS[dtype_name(dtype)]


def allowed_abs_error(golden: npt.ArrayLike, dtype: npt.DTypeLike | str) -> np.ndarray:
    """The largest absolute error an element may have without breaking MARE's limit.

    ``10 T (|golden| + 1e-7)``, float64 in the shape of ``golden``, with T that of the output
    ``dtype``: where ``golden`` is 0 it is ``10 T 1e-7``, for float32 about a hundredth of an
    ULP of a number near 0.25.
    """
    g = np.abs(np.asarray(golden).astype(np.float64))
    return MARE_FACTOR * threshold(dtype) * (g + FLOOR)
