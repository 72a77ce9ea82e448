"""The kernel's vector instructions against the bandwidth roof: what it reaches, what it may add.

``bench/kernel.py`` holds the float32 kernel to an instruction budget: few enough vector
instructions to stay bandwidth-bound on an Atlas A2 (:func:`instruction_headroom`), and reports
each configuration's share of the roof (:func:`bandwidth_share`) and the instructions the root
window takes, counted in its source (:func:`method_instructions`). The roofline itself is
:mod:`mishgrad.evaluation.roofline`; the tests hold these to it and to notebook 12's formulas.
"""

from __future__ import annotations

import re
from pathlib import Path

from mishgrad.evaluation.roofline import ELEMENTS_PER_REPEAT, KernelCost, Roofline
from mishgrad.kernel.source import read_method
from mishgrad.kernel.trace import is_vector


def bandwidth_share(line: Roofline, cost: KernelCost) -> float:
    """Share of the bandwidth roof the kernel reaches for large n (1 when bandwidth-bound)."""
    vector = line.vector_elements_per_second(cost)
    return min(1.0, vector / line.memory_elements_per_second(cost))


def instruction_headroom(line: Roofline, cost: KernelCost) -> float:
    """Instructions the kernel could add before its vector time reaches its memory time.

    Counted at the default cycles per repeat; negative if the kernel is vector-bound (then it
    is how many it would have to shed).
    """
    model = line.model
    per_instruction = model.vector_cycles_per_repeat / ELEMENTS_PER_REPEAT
    memory_cycles = model.vector_cores * model.clock_hz / line.memory_elements_per_second(cost)
    return (memory_cycles - line.vector_cycles_per_element(cost)) / per_instruction


def method_instructions(path: str | Path, name: str) -> int:
    """Vector instructions written in one method of a kernel source (each call once).

    The trace counts what ran; this counts where it is written, to split a tile's total by
    method (for example the kernel's ``RootWindow``). Calls of the file's own methods are not
    instructions and are not counted.
    """
    own = set(re.findall(r"inline \w+ (\w+)\(", Path(path).read_text()))
    body = read_method(path, name, with_comment=False).splitlines()[1:]
    calls = [re.match(r"\s*([A-Z]\w*)\(", line) for line in body]
    return sum(1 for c in calls if c and is_vector(c.group(1)) and c.group(1) not in own)
