"""Accuracy benchmark: every formula x dtype against the correctly rounded oracle.

Prints, per dtype, a summary row per formula (exhaustive for float16 and bfloat16, the
documented sample of mishgrad.samples for float32), then the DESIGN §4 target checks for
ours. Exits with status 1 if ours misses a target. Run with ``make bench``.
"""

from __future__ import annotations

import sys

import numpy as np

from mishgrad import dtypes, errors, numerics, oracle, samples

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


def print_table(title: str, rows: dict[str, errors.ErrorSummary]) -> None:
    headers = ["formula"] + [label for _, label, _ in COLUMNS]
    cells = [
        [name] + [fmt.format(getattr(summary, field)) for field, _, fmt in COLUMNS]
        for name, summary in rows.items()
    ]
    widths = [max(len(row[i]) for row in [headers, *cells]) for i in range(len(headers))]
    print(f"\n{title}")
    for row in [headers, ["-" * w for w in widths], *cells]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def print_checks(title: str, checks: list[errors.Check]) -> bool:
    print(f"\n{title}")
    for check in checks:
        verdict = "met" if check.met else "MISSED"
        measured = f"{check.measured:.6g}"
        print(f"  {check.criterion:46s} {measured:>12s}  target {check.target:9s} {verdict}")
    return all(check.met for check in checks)


def sixteen_bit(name: str) -> bool:
    x = dtypes.all_values(name)
    truth = oracle.dmish_oracle(x)
    rows = {label: errors.summarize(d, truth) for label, d in formulas(x).items()}
    print_table(f"{name}: all {x.size} finite inputs", rows)
    return print_checks(f"{name}: targets for ours", errors.check_16bit(rows["ours"]))


def float32() -> bool:
    parts = samples.float32_sample()
    x = np.concatenate(list(parts.values()))
    truth = oracle.dmish_oracle(x)
    masks = {"rel_mask": errors.float32_rel_mask(x), "abs_mask": errors.in_root_window(x)}
    results = formulas(x)
    rows = {label: errors.summarize(d, truth, **masks) for label, d in results.items()}
    sizes = ", ".join(f"{name} {part.size}" for name, part in parts.items())
    print_table(f"float32: documented sample ({sizes})", rows)
    positive = x >= 0
    uniform = slice(parts["grid"].size, parts["grid"].size + parts["uniform"].size)
    ours = results["ours"]
    checks = errors.check_float32(
        rows["ours"],
        errors.summarize(ours[positive], truth[positive]),
        errors.summarize(ours[uniform], truth[uniform]),
    )
    return print_checks("float32: targets for ours", checks)


def special_values() -> bool:
    x = np.array([np.nan, np.inf, -np.inf], dtype=np.float32)
    d = numerics.dmish_ours(x)
    print(f"\nspecial values (ours, float32): d(nan) = {d[0]}, d(+inf) = {d[1]}, d(-inf) = {d[2]}")
    return bool(np.isnan(d[0]) and d[1] == 1 and d[2] == 0)


def main() -> int:
    met = [sixteen_bit("float16"), sixteen_bit("bfloat16"), float32(), special_values()]
    print("\nall targets met" if all(met) else "\nSOME TARGETS MISSED")
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
