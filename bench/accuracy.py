"""Accuracy benchmark: every formula x dtype, and the kernel under each numerics model.

Prints, per dtype, a summary row per formula (NumPy, IEEE arithmetic; exhaustive for
float16 and bfloat16, the documented sample of mishgrad.math.samples for float32), then the
kernel on the CPU twin under the ieee, hardware and adversarial models side by side
(mishgrad.evaluation.accuracy: float32 adds every float32 around the root of d and the band where
exp(x) is subnormal), each target's verdict per model, CANN's MERE/MARE, and the tanhx
branch's figures. Exits with status 1 if the kernel misses a target under any model.
Run with ``make bench``.
"""

from __future__ import annotations

import sys

import accuracy_runs as accuracy
import error_summary
import exhaustive_results
import exhaustive_run
import numpy as np

from mishgrad.evaluation.accuracy import float32_inputs
from mishgrad.kernel import twin
from mishgrad.math import dtypes, errors, numerics, oracle, samples

COLUMNS = (
    ("max_ulp", "max ULP", "{:.0f}"),
    ("correctly_rounded_pct", "% CR", "{:.4f}"),
    ("within_1ulp_pct", "% <=1 ULP", "{:.4f}"),
    ("spurious_nonfinite", "NaN/Inf", "{:d}"),
    ("wrong_sign", "wrong sign", "{:d}"),
    ("max_rel_error", "max rel", "{:.3g}"),
    ("max_abs_error", "max abs (root)", "{:.3g}"),
)


def formulas(x: np.ndarray) -> dict[str, np.ndarray]:
    """Every formula's d on ``x``; the tanhx ones get the correctly rounded tanhx."""
    tanhx = oracle.tanh_softplus_oracle(x)
    results = {
        "B1 (tanhx, v1)": numerics.dmish_b1(x, tanhx),
        "ours, tanhx branch": numerics.dmish_tanhx(x, tanhx),
    }
    results.update({name: formula(x) for name, formula in numerics.FORMULAS.items()})
    return results


def print_table(title: str, rows: dict[str, error_summary.ErrorSummary]) -> None:
    headers = ["formula"] + [label for _, label, _ in COLUMNS]
    cells = [
        [name] + [fmt.format(getattr(summary, field)) for field, _, fmt in COLUMNS]
        for name, summary in rows.items()
    ]
    widths = [max(len(row[i]) for row in [headers, *cells]) for i in range(len(headers))]
    print(f"\n{title}")
    for row in [headers, ["-" * w for w in widths], *cells]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def print_checks(title: str, results: dict[str, accuracy.ModelResult]) -> bool:
    models = list(results)
    print(f"\n{title}")
    print(f"  {'criterion':36s} {'target':>22s}  " + "  ".join(f"{m:>22s}" for m in models))
    criteria = [check.criterion for check in results[models[0]].checks]
    for index, criterion in enumerate(criteria):
        cells = []
        for model in models:
            check = results[model].checks[index]
            verdict = "met" if check.met else "MISSED"
            cells.append(f"{check.measured:>14.6g} {verdict:>7s}")
        # one target, or each model's where they differ
        target = " / ".join(dict.fromkeys(results[m].checks[index].target for m in models))
        print(f"  {criterion:36s} {target:>22s}  " + "  ".join(cells))
    cann = "  ".join(
        f"{r.cann.mere:>9.2e}/{r.cann.mare:>8.2e} {r.cann.verdict:>3s}" for r in results.values()
    )
    print(f"  {'CANN MERE/MARE (reported)':36s} {'< T, 10T':>22s}  {cann}")
    return all(result.met for result in results.values())


def print_models(title: str, results: dict[str, accuracy.ModelResult]) -> None:
    print_table(title, {f"kernel, {model}": result.summary for model, result in results.items()})


def sixteen_bit(name: str) -> bool:
    x = dtypes.all_values(name)
    truth = oracle.dmish_oracle(x)
    rows = {label: error_summary.summarize(d, truth) for label, d in formulas(x).items()}
    print_table(f"{name}: all {x.size} finite inputs, NumPy formulas (ieee)", rows)
    results = accuracy.sixteen_bit(name)
    print_models(f"{name}: the kernel on the twin under each numerics model", results)
    return print_checks(f"{name}: targets for the kernel, per model", results)


def float32() -> bool:
    parts = samples.float32_sample()
    x = np.concatenate(list(parts.values()))
    truth = oracle.dmish_oracle(x)
    masks = {
        "rel_mask": errors.MISH_GRAD_REGIONS.normal(x),
        "abs_mask": errors.MISH_GRAD_REGIONS.in_window(x),
    }
    rows = {label: error_summary.summarize(d, truth, **masks) for label, d in formulas(x).items()}
    sizes = ", ".join(f"{name} {part.size}" for name, part in parts.items())
    print_table(f"float32: documented sample ({sizes}), NumPy formulas (ieee)", rows)
    inputs = float32_inputs()
    results = accuracy.float32(inputs)
    sizes = ", ".join(f"{name} {part.size}" for name, part in inputs.items())
    print_models(f"float32 ({sizes}): the kernel under each numerics model", results)
    met = print_checks("float32: targets for the kernel, per model", results)
    print_tanhx(accuracy.tanhx_branch(inputs))
    return met


def print_tanhx(results: dict[str, accuracy.TanhxResult]) -> None:
    print("\nfloat32 tanhx branch (given the correctly rounded tanhx): CANN MERE/MARE")
    columns = {
        "all, vs golden from the same tanhx": "against_golden",
        "all, vs true d": "against_truth",
        "root band, vs golden": "band_against_golden",
        "root band, vs true d": "band_against_truth",
    }
    for label, field in columns.items():
        cells = "  ".join(
            f"{model} {getattr(r, field).mere:.2e}/{getattr(r, field).mare:.2e} "
            f"{getattr(r, field).verdict}"
            for model, r in results.items()
        )
        print(f"  {label:36s} {cells}")


def within_one_ulp() -> None:
    """The share within 1 ULP, uniform[-20, 20] and every float32, beside PyTorch's formula."""
    uniform = accuracy.within_1ulp_uniform()
    entries = exhaustive_results.entries(exhaustive_run.load())
    entries[accuracy.PYTORCH] = entries.pop("pytorch", None)
    print("\nfloat32: % of results within 1 ULP of the correctly rounded d")
    print(f"  {'d computed by':30s} {'uniform[-20, 20]':>17s} {'every float32 (finite)':>23s}")
    for name, share in uniform.items():
        entry = entries.get(name)
        every = f"{exhaustive_results.finite_within_1ulp_pct(entry):.4f}" if entry else "not run"
        print(f"  {name:30s} {share:17.4f} {every:>23s}")
    print(f"  (every float32: {exhaustive_run.RESULTS.name}.json, written by `make exhaustive`)")


def special_values() -> bool:
    x = np.array([np.nan, np.inf, -np.inf], dtype=np.float32)
    met = True
    for model in twin.NUMERICS_MODELS:
        d = accuracy.kernel_d(x, model)
        print(
            f"\nspecial values (kernel, float32, {model}): d(nan) = {d[0]}, d(+inf) = {d[1]}, "
            f"d(-inf) = {d[2]}"
        )
        met = met and bool(np.isnan(d[0]) and d[1] == 1 and d[2] == 0)
    return met


def main() -> int:
    met = [sixteen_bit("float16"), sixteen_bit("bfloat16"), float32(), special_values()]
    within_one_ulp()
    print("\nall targets met" if all(met) else "\nSOME TARGETS MISSED")
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
