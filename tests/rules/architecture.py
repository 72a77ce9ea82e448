"""The package's architecture (docs/architecture.md), where import-linter does not look.

``make lint`` runs import-linter's four contracts (pyproject.toml), and
tests/test_architecture.py plants a violation of each. These rules hold the rest: the top
level reads like a table of contents, no module is longer than a learner reads at once, each
subpackage's docstring names the layers it may import, the picture is drawn from the code and
shows every module, and the
contracts are the ones the docs describe.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from functools import cache
from pathlib import Path

import tomllib

from rules.shared import ROOT, Rule, planted_file, text, where

_FIGURE = importlib.util.spec_from_file_location(
    "layers_figure", ROOT / "tools" / "layers_figure.py"
)
layers_figure = importlib.util.module_from_spec(_FIGURE)
_FIGURE.loader.exec_module(layers_figure)

PACKAGE = ROOT / "mishgrad"
MAX_TOP_LEVEL = 8
MAX_MODULE_LINES = 450
LAYERS = [name for row in layers_figure.layers() for name in row]
#: The picture as tools/layers_figure.py draws it from the code (drawn once: it reads the graph).
drawn = cache(layers_figure.drawn)


def top_level(package: Path) -> list[str]:
    """More than :data:`MAX_TOP_LEVEL` entries, or an entry that is no layer of the contract."""
    entries = sorted(path.name for path in package.iterdir() if path.name != "__pycache__")
    problems = []
    if len(entries) > MAX_TOP_LEVEL:
        problems.append(f"mishgrad/ has {len(entries)} entries, more than {MAX_TOP_LEVEL}")
    stems = {Path(name).stem for name in entries} - {"__init__"}
    problems += [
        f"mishgrad/{name} is no layer of the contract" for name in sorted(stems - {*LAYERS})
    ]
    return problems + [f"mishgrad/ lacks the layer {name}" for name in sorted({*LAYERS} - stems)]


def long_modules(package: Path) -> list[str]:
    """Modules longer than :data:`MAX_MODULE_LINES` lines."""
    return [
        f"{path.relative_to(package.parent)}: {lines} lines, more than {MAX_MODULE_LINES}"
        for path in sorted(package.rglob("*.py"))
        if (lines := len(text(path).splitlines())) > MAX_MODULE_LINES
    ]


def docstring_problems(package: Path) -> list[str]:
    """Subpackages whose docstring's "May import:" list is not the layers below them."""
    problems = []
    for name in LAYERS:
        init = package / name / "__init__.py"
        if not init.is_file():
            continue  # a module, not a subpackage
        docstring = ast.get_docstring(ast.parse(text(init))) or ""
        said = docstring.split("May import:", 1)[1] if "May import:" in docstring else ""
        named = re.findall(r":mod:`mishgrad\.(\w+)`", said)
        if named != layers_figure.below(name):
            problems.append(
                f"{init.relative_to(package.parent)}: 'May import:' names {named}, "
                f"the contract {layers_figure.below(name)}"
            )
    return problems


def stale_picture(figure: Path) -> list[str]:
    """A stored picture that is not what tools/layers_figure.py draws."""
    if text(figure) == drawn():
        return []
    return [f"{where(figure)} is stale: run python tools/layers_figure.py"]


def picture_gaps(figure: Path, package: Path) -> list[str]:
    """Layers and subpackage modules the picture does not show."""
    stored = text(figure)
    problems = [
        f"{where(figure)} does not show the layer mishgrad.{name}"
        for name in LAYERS
        if f"mishgrad.{name}<" not in stored
    ]
    modules = [
        path
        for path in sorted(package.rglob("*.py"))
        if path.parent.parent == package and path.stem != "__init__"
    ]
    return problems + [
        f"{where(figure)} does not show {path.relative_to(package.parent)}"
        for path in modules
        if not re.search(rf"\b{path.stem}\b", stored)
    ]


def contract_problems(root: Path) -> list[str]:
    """Contracts other than docs/architecture.md describes, or docs without the picture."""
    config = tomllib.loads(text(root / "pyproject.toml"))
    contracts = {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}
    problems = []
    if contracts["layers"].get("exhaustive") is not True:
        problems.append("pyproject.toml: the layers contract is not exhaustive (new entries pass)")
    if contracts["acyclic"].get("ancestors") != ["mishgrad"]:
        problems.append("pyproject.toml: the acyclic contract does not cover all of mishgrad")
    pages = {"docs/architecture.md": "_static", "docs/zh-CN/architecture.md": "../_static"}
    return problems + [
        f"{page} does not show the picture ({folder}/architecture.svg)"
        for page, folder in pages.items()
        if f"({folder}/architecture.svg)" not in text(root / page)
    ]


def _one_more_entry(tmp: Path) -> list[str]:
    for name in LAYERS:
        if (PACKAGE / name).is_dir():
            (tmp / "mishgrad" / name).mkdir(parents=True)
    for name in ("__init__.py", "citations.py", "paths.py", "helpers.py"):
        planted_file(tmp, f"mishgrad/{name}", "")
    return top_level(tmp / "mishgrad")


def _a_long_module(tmp: Path) -> list[str]:
    planted_file(tmp, "mishgrad/kernel/long.py", "x = 1\n" * (MAX_MODULE_LINES + 1))
    return long_modules(tmp / "mishgrad")


def _math_may_import_book(tmp: Path) -> list[str]:
    init = text(PACKAGE / "math" / "__init__.py")
    planted = init.replace("May import:", "May import: :mod:`mishgrad.book`,")
    planted_file(tmp, "mishgrad/math/__init__.py", planted)
    return docstring_problems(tmp / "mishgrad")


def _picture(tmp: Path, edit: tuple[str, str]) -> Path:
    """A copy of the stored picture with one string replaced."""
    figure = layers_figure.FIGURE
    return planted_file(tmp, str(figure.relative_to(ROOT)), text(figure).replace(*edit))


def _not_exhaustive(tmp: Path) -> list[str]:
    for name in ("docs/architecture.md", "docs/zh-CN/architecture.md"):
        planted_file(tmp, name, text(ROOT / name))
    pyproject = text(ROOT / "pyproject.toml").replace("exhaustive = true", "exhaustive = false")
    planted_file(tmp, "pyproject.toml", pyproject)
    return contract_problems(tmp)


RULES = [
    Rule(
        "the top level of mishgrad reads like a table of contents",
        lambda: top_level(PACKAGE),
        _one_more_entry,
        (
            f"has {MAX_TOP_LEVEL + 1} entries",
            "mishgrad/helpers is no layer",
        ),
    ),
    Rule(
        "no module is longer than a learner reads at once",
        lambda: long_modules(PACKAGE),
        _a_long_module,
        (f"mishgrad/kernel/long.py: {MAX_MODULE_LINES + 1} lines",),
    ),
    Rule(
        "each subpackage's docstring names the layers it may import",
        lambda: docstring_problems(PACKAGE),
        _math_may_import_book,
        ("mishgrad/math/__init__.py: 'May import:' names ['book', 'citations', 'paths']",),
    ),
    Rule(
        "the picture of the layers is drawn from the code",
        lambda: stale_picture(layers_figure.FIGURE),
        lambda tmp: stale_picture(_picture(tmp, ("</svg>", "<!-- edited --></svg>"))),
        ("is stale",),
    ),
    Rule(
        "the picture of the layers shows every layer and module",
        lambda: picture_gaps(layers_figure.FIGURE, PACKAGE),
        lambda tmp: picture_gaps(_picture(tmp, ("mishgrad.math<", "mishgrad.maths<")), PACKAGE),
        ("does not show the layer mishgrad.math",),
    ),
    Rule(
        "the import contracts are the ones the docs describe",
        lambda: contract_problems(ROOT),
        _not_exhaustive,
        ("the layers contract is not exhaustive",),
    ),
]
