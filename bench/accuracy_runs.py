"""The kernel's accuracy under each numerics model: the tables ``bench/accuracy.py`` prints.

The kernel runs on the CPU twin with ``grad = 1`` (so its output is d itself) under each
model of :data:`mishgrad.kernel.twin.NUMERICS_MODELS`, and is compared with the correctly
rounded oracle:

- float16 and bfloat16 over every finite input (:func:`sixteen_bit`);
- float32 over :func:`mishgrad.evaluation.accuracy.float32_inputs` (:func:`float32`);
- the tanhx branch against a golden computed from the *same rounded* tanhx input, and
  against the true d (:func:`tanhx_branch`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import error_summary
import numpy as np
import numpy.typing as npt
import precision_standard as precision
from precision_standard import PrecisionReport
from pytorch_formula import dmish_pytorch

from mishgrad.kernel import twin
from mishgrad.math import dtypes, errors, oracle, samples


def kernel_d(x: np.ndarray, model: str, tanhx: np.ndarray | None = None) -> np.ndarray:
    """d(x) as the kernel computes it on the twin under ``model`` (``grad = 1``)."""
    return twin.run_kernel(np.ones_like(x), x, tanhx, numerics=model).out


def _part_mask(parts: dict[str, np.ndarray], name: str) -> np.ndarray:
    """Where the part ``name`` lies in the concatenation of ``parts``."""
    labels = np.concatenate([np.full(part.size, key) for key, part in parts.items()])
    return labels == name


@dataclass(frozen=True)
class ModelResult:
    """One dtype and one numerics model: the error summary, the checks and CANN's verdict."""

    model: str
    summary: error_summary.ErrorSummary
    checks: list[error_summary.Check]
    cann: PrecisionReport

    @property
    def met(self) -> bool:
        """True if every target holds (CANN's verdict is reported, not a target here)."""
        return all(check.met for check in self.checks)


def sixteen_bit(
    name: str,
    models: Sequence[str] = twin.NUMERICS_MODELS,
    derivative: Callable[[np.ndarray, str], np.ndarray] = kernel_d,
) -> dict[str, ModelResult]:
    """The kernel over every finite float16 or bfloat16 input, per model.

    ``derivative(x, model)`` is the kernel's d: by default the twin's under each numerics
    model; ``make exhaustive`` passes its backend's (``exhaustive_device.Device``).
    """
    x = dtypes.all_values(name)
    truth = oracle.dmish_oracle(x)
    results = {}
    for model in models:
        d = derivative(x, model)
        summary = error_summary.summarize(d, truth)
        cann = precision.evaluate(d, truth)
        results[model] = ModelResult(
            model, summary, error_summary.check_exhaustive(summary, name), cann
        )
    return results


def float32(parts: dict[str, np.ndarray]) -> dict[str, ModelResult]:
    """The kernel over the float32 inputs ``parts``, per model.

    ``parts`` as :func:`mishgrad.evaluation.accuracy.float32_inputs` gives them.
    """
    x = np.concatenate(list(parts.values()))
    truth = oracle.dmish_oracle(x)
    positive = x >= 0
    uniform = _part_mask(parts, "uniform")
    results = {}
    for model in twin.NUMERICS_MODELS:
        d = kernel_d(x, model)
        whole = error_summary.summarize(
            d,
            truth,
            rel_mask=errors.MISH_GRAD_REGIONS.normal(x),
            abs_mask=errors.MISH_GRAD_REGIONS.in_window(x),
        )
        tail = error_summary.summarize(d, truth, abs_mask=errors.MISH_GRAD_REGIONS.subnormal(x))
        checks = error_summary.check_float32(
            whole, error_summary.summarize(d[positive], truth[positive])
        )
        checks.append(error_summary.check_float32_subnormal(tail))
        checks.append(
            error_summary.check_float32_uniform(
                error_summary.summarize(d[uniform], truth[uniform]), model
            )
        )
        results[model] = ModelResult(model, whole, checks, precision.evaluate(d, truth))
    return results


#: The formulas the share within 1 ULP is compared across: the kernel under each numerics
#: model (on the twin) and PyTorch's CPU formula (NumPy).
PYTORCH: Final = "PyTorch's CPU formula"


def within_1ulp_uniform(x: np.ndarray | None = None) -> dict[str, float]:
    """Share of results within 1 ULP on uniform[-20, 20], kernel per model and PyTorch.

    ``x`` defaults to the documented sample's uniform part (``samples.float32_uniform``).
    Keys: ``kernel, <model>`` and :data:`PYTORCH`.
    """
    x = samples.float32_sample()["uniform"] if x is None else x
    truth = oracle.dmish_oracle(x)
    computed = {f"kernel, {model}": kernel_d(x, model) for model in twin.NUMERICS_MODELS}
    computed[PYTORCH] = dmish_pytorch(x)
    return {name: error_summary.summarize(d, truth).within_1ulp_pct for name, d in computed.items()}


def golden_from_tanhx(x: npt.ArrayLike, tanhx: npt.ArrayLike) -> np.ndarray:
    """``t + x s (1 - t^2)`` with the given (rounded) t, in float64, rounded to float32.

    The reference for the tanhx branch: what an exact evaluation would make of the input
    it is given. float64 suffices: near the root the two terms cancel to |d| > 1e-9, far
    above float64's absolute error of about 1e-17 there.
    """
    x64 = np.asarray(x, dtype=np.float64)
    t = np.asarray(tanhx, dtype=np.float64)
    with np.errstate(over="ignore"):
        s = 1 / (1 + np.exp(-x64))
    return (t + x64 * s * (1 - t * t)).astype(np.float32)


@dataclass(frozen=True)
class TanhxResult:
    """The tanhx branch (float32) under one model: CANN's standard against two references."""

    model: str
    against_golden: PrecisionReport
    against_truth: PrecisionReport
    band_against_golden: PrecisionReport
    band_against_truth: PrecisionReport


def tanhx_branch(parts: dict[str, np.ndarray]) -> dict[str, TanhxResult]:
    """The tanhx branch on the finite float32 inputs, given the correctly rounded tanhx."""
    x = np.concatenate(list(parts.values()))
    tanhx = oracle.tanh_softplus_oracle(x)
    golden, truth = golden_from_tanhx(x, tanhx), oracle.dmish_oracle(x)
    band = (x >= parts["root band"][0]) & (x <= parts["root band"][-1])
    results = {}
    for model in twin.NUMERICS_MODELS:
        d = kernel_d(x, model, tanhx)
        results[model] = TanhxResult(
            model,
            precision.evaluate(d, golden),
            precision.evaluate(d, truth),
            precision.evaluate(d[band], golden[band]),
            precision.evaluate(d[band], truth[band]),
        )
    return results
