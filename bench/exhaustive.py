"""Every float32 input through the kernel on the twin, under each numerics model.

``make exhaustive`` runs this: all 2**32 inputs (grad = 1, no tanhx) against the correctly
rounded d, in tiles, with a progress bar, and PyTorch's CPU formula (NumPy) the same way;
a summary per model in ``build/exhaustive/`` lets an interrupted run continue where it
stopped (run the same command again). At the end it
writes ``bench/results/exhaustive.json`` and ``.md`` (the table notebook 11 shows) and exits
with status 1 if a target is missed. ``--stride N`` visits every N-th bit pattern instead
and writes its result next to the summaries.
"""

from __future__ import annotations

import argparse
import sys

import exhaustive_run
from exhaustive_run import SUMMARIES, Plan

from mishgrad.kernel import twin
from mishgrad.paths import REPOSITORY


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stride", type=int, default=1, help="visit every N-th bit pattern")
    parser.add_argument("--tile", type=int, default=exhaustive_run.DEFAULT_TILE)
    choices = [*twin.NUMERICS_MODELS, *exhaustive_run.REFERENCES]
    parser.add_argument("--models", nargs="+", default=choices, choices=choices)
    return parser.parse_args()


def main() -> int:
    args = arguments()
    plan = Plan(args.stride, args.tile)
    models, references = {}, {}
    for model in args.models:
        path = SUMMARIES / f"{model}-stride{plan.stride}.json"
        _, why = exhaustive_run.load_summary(path, exhaustive_run.identity(model, plan))
        print(f"{model}: {plan.inputs:,} inputs in {plan.tiles} tiles; {why}", file=sys.stderr)
        summary = exhaustive_run.sweep(model, plan, path, exhaustive_run.Progress(model, plan))
        entries = references if model in exhaustive_run.REFERENCES else models
        entries[model] = exhaustive_run.result(summary)
    results = {
        "plan": {"stride": plan.stride, "inputs": plan.inputs},
        "models": models,
        "references": references,
    }
    stem = (
        exhaustive_run.RESULTS if plan.stride == 1 else SUMMARIES / f"results-stride{plan.stride}"
    )
    exhaustive_run.write(results, stem)
    print(exhaustive_run.markdown(results))
    print(f"written: {stem.relative_to(REPOSITORY)}.json and .md", file=sys.stderr)
    met = all(check["met"] for entry in models.values() for check in entry["targets"])
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
