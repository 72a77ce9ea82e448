"""Draw the package's layers as an SVG, from the import-linter contract and the real imports.

The picture in ``docs/architecture.md`` is made here, never by hand: the rows are the layers
of the ``layers`` contract in ``pyproject.toml`` (top imports bottom), each box lists what its
subpackage holds, and each box says how many imports it makes into each layer below, counted
by grimp (the graph import-linter checks). ``tests/rules/architecture.py`` fails when the
stored picture differs from what this script draws, so it cannot drift from the code.

Run ``python tools/layers_figure.py`` to rewrite ``docs/_static/architecture.svg``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from xml.sax.saxutils import escape

import grimp
import tomllib

ROOT = Path(__file__).resolve().parent.parent
FIGURE = ROOT / "docs" / "_static" / "architecture.svg"
PACKAGE = "mishgrad"

WIDTH = 660
MARGIN = 16
ARROW_LANE = 36  # the downward arrow on the left
ROW_GAP = 18
LINE = 16  # text line height
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
FILL = {"book": "#e8f0fe", "evaluation": "#e6f4ea", "aclnn": "#fef7e0", "kernel": "#fce8e6"}


def layers() -> list[list[str]]:
    """The rows of the ``layers`` contract, top first: each a list of sibling names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return [[name.strip() for name in row.split("|")] for row in contract["layers"]]


def below(name: str) -> list[str]:
    """The layers ``name`` may import: every layer in a lower row of the contract."""
    rows = layers()
    names = [layer for row in rows for layer in row]
    row = next(row for row in rows if name in row)
    return names[names.index(row[-1]) + 1 :]


def contents(graph: grimp.ImportGraph, name: str) -> list[str]:
    """What a layer holds: its modules and subpackages (``exercises/``), sorted."""
    module = f"{PACKAGE}.{name}"
    children = sorted(graph.find_children(module))
    return [
        child.rsplit(".", 1)[1] + ("/" if graph.find_children(child) else "") for child in children
    ]


def import_counts(graph: grimp.ImportGraph, names: list[str]) -> dict[str, Counter[str]]:
    """``{layer: {imported layer: module-to-module imports}}`` across layers."""

    def layer_of(module: str) -> str | None:
        parts = module.split(".")
        return parts[1] if len(parts) > 1 and parts[1] in names else None

    counts: dict[str, Counter[str]] = {name: Counter() for name in names}
    for module in graph.modules:
        source = layer_of(module)
        for imported in graph.find_modules_directly_imported_by(module):
            target = layer_of(imported)
            if source and target and target != source:
                counts[source][target] += 1
    return counts


def wrap(words: list[str], width: int) -> list[str]:
    """Words joined with ", " into lines of at most ``width`` characters."""
    lines, line = [], ""
    for word in words:
        candidate = f"{line}, {word}" if line else word
        if len(candidate) > width and line:
            lines.append(line + ",")
            line = word
        else:
            line = candidate
    return [*lines, line] if line else lines


def box(x: int, y: int, w: int, name: str, body: list[str], imports: list[str]) -> tuple[str, int]:
    """One layer's box: its name, what it holds, what it imports. Returns (SVG, height)."""
    chars = int((w - 20) / 7.3)  # DejaVu Sans Mono: 0.6 em per character, 12 px
    rows = [(f"{PACKAGE}.{name}", ' font-weight="bold" font-size="13"')]
    rows += [(line, "") for line in wrap(body, chars)]
    rows += [(line, ' fill="#5f6368"') for line in wrap(imports, chars)]
    height = 12 + LINE * len(rows) + 10
    parts = [
        f'<rect x="{x}" y="{y}" width="{w}" height="{height}" rx="6" '
        f'fill="{FILL.get(name, "#f1f3f4")}" stroke="#5f6368" stroke-width="1"/>'
    ]
    for i, (text, style) in enumerate(rows):
        parts.append(f'<text x="{x + 10}" y="{y + 23 + LINE * i}"{style}>{escape(text)}</text>')
    return "\n".join(parts), height


def draw(graph: grimp.ImportGraph) -> str:
    """The whole SVG."""
    rows = layers()
    names = [name for row in rows for name in row]
    counts = import_counts(graph, names)
    body, y = [], MARGIN
    left = MARGIN + ARROW_LANE
    usable = WIDTH - left - MARGIN
    for row in rows:
        w = (usable - MARGIN * (len(row) - 1)) // len(row)
        heights = []
        for i, name in enumerate(row):
            used = [f"{t} {counts[name][t]}" for t in below(name) if counts[name][t]]
            imports = ["imports → " + used[0], *used[1:]] if used else []
            svg, height = box(left + i * (w + MARGIN), y, w, name, contents(graph, name), imports)
            body.append(svg)
            heights.append(height)
        y += max(heights) + ROW_GAP
    height = y - ROW_GAP + MARGIN
    arrow_x = MARGIN + ARROW_LANE // 2 - 4
    arrow = (
        f'<line x1="{arrow_x}" y1="{MARGIN + 4}" x2="{arrow_x}" y2="{height - MARGIN - 10}" '
        'stroke="#5f6368" stroke-width="3"/>'
        f'<polygon points="{arrow_x - 8},{height - MARGIN - 12} {arrow_x + 8},'
        f'{height - MARGIN - 12} {arrow_x},{height - MARGIN}" fill="#5f6368"/>'
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="{FONT}" font-size="12" '
        'fill="#202124">\n'
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>\n'
        f"{arrow}\n" + "\n".join(body) + "\n</svg>\n"
    )


def drawn() -> str:
    """The figure of the package as it is now."""
    return draw(grimp.build_graph(PACKAGE, cache_dir=None))  # a cache can hold stale imports


if __name__ == "__main__":
    FIGURE.write_text(drawn())
    print(f"wrote {FIGURE.relative_to(ROOT)}")
