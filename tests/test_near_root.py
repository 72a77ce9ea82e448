"""The near-root comparison of notebooks 03 and 10: the t + p forms lose, the polynomial keeps."""

from __future__ import annotations

import numpy as np

from mishgrad.math import near_root, oracle


def test_only_the_root_centred_polynomial_keeps_relative_accuracy_at_x0() -> None:
    x = near_root.neighbourhood()
    truth = oracle.dmish_oracle(x).astype(np.float64)
    assert np.any(np.diff(np.signbit(truth)))  # the neighbourhood holds the zero of d
    nonzero = truth != 0
    worst = {
        label: np.max(np.abs(d.astype(np.float64)[nonzero] / truth[nonzero] - 1))
        for label, d in near_root.forms(x).items()
    }
    polynomial = "ours, root-centred polynomial (the kernel)"
    assert worst.pop(polynomial) < 1e-6
    assert all(error > 0.1 for error in worst.values()), worst
