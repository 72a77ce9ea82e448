"""Every float32 input through the kernel: on the twin under each numerics model, or on an NPU.

``make exhaustive`` runs this: all 2**32 inputs (grad = 1, no tanhx) through
``aclnnMishBackward`` against the correctly rounded d, in tiles, with a progress bar, and
PyTorch's CPU formula (NumPy) the same way, then every finite float16 and bfloat16 input; a
summary per model in ``build/exhaustive/`` (``--folder``) lets an interrupted run continue
where it stopped (run the same command again). ``--backend`` (default ``$MISHGRAD_BACKEND``,
else ``twin``) chooses where the kernel runs: ``twin`` runs it under each of the twin's
numerics models; ``ascend`` on the NPU, this repository's operator from its installed package;
``ascend-builtin`` CANN's own. At the end it writes the result file and its tables
(``bench/results/exhaustive.json`` and ``.md`` for the twin, the table notebook 11 shows;
``bench/results/exhaustive-<backend>-<SoC>`` for an NPU) and exits with status 1 if a target
is missed or an assumption about the vector unit does not hold. ``--stride N`` visits every
N-th bit pattern instead and writes its result next to the summaries.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import exhaustive_results
import exhaustive_run
from exhaustive_device import Device
from exhaustive_run import Plan

from mishgrad.aclnn.backends import BACKENDS


def parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stride", type=int, default=1, help="visit every N-th bit pattern")
    parser.add_argument("--tile", type=int, default=exhaustive_run.DEFAULT_TILE)
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default=os.environ.get("MISHGRAD_BACKEND", "twin"),
        help="where the kernel runs (default: $MISHGRAD_BACKEND, else twin)",
    )
    parser.add_argument(
        "--models", nargs="+", help="the backend's models and references to run (default: all)"
    )
    parser.add_argument(
        "--folder",
        type=Path,
        default=exhaustive_run.SUMMARIES,
        help="where the summaries, and a strided run's result, are kept",
    )
    return parser


def main() -> int:
    command = parser()
    args = command.parse_args()
    plan = Plan(args.stride, args.tile)
    try:
        device = Device.open(args.backend)
    except (OSError, RuntimeError, ValueError) as error:  # no such backend, or the wrong kernel
        print(f"exhaustive.py: {error}", file=sys.stderr)
        return 1
    with device:
        known = [*device.models, *exhaustive_run.REFERENCES]
        unknown = sorted(set(args.models or known) - set(known))
        if unknown:
            command.error(f"the {device.name} backend runs {', '.join(known)}, not {unknown}")
        print(f"{device.name} backend on {device.soc}: {device.kernel}", file=sys.stderr)
        results = exhaustive_run.measure(device, plan, args.models or known, args.folder)
    stem = exhaustive_run.results_stem(results["backend"], plan.stride, args.folder)
    exhaustive_run.write(results, stem)
    print(exhaustive_results.markdown(results))
    print(f"written: {stem}.json and .md", file=sys.stderr)
    return 0 if exhaustive_results.met(results) else 1


if __name__ == "__main__":
    sys.exit(main())
