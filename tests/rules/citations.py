"""Nothing in the repository cites a document the repository does not contain.

Readers have the repository and public sources, nothing else: no design notes, no seed
documents, no sibling folders. Every path that names a file of this repository (it starts
with one of the repository's top-level folders, or is a relative link) must exist. Paths of
other repositories are fine when the sentence says whose they are (an upstream name or a URL
comes first on the line). And every link to CANN's aclrtMalloc page cites one version of it.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from rules.shared import ROOT, Rule, notebook, source, text

TOP_FOLDERS = ("kernel", "mishgrad", "notebooks", "tests", "bench", "tools", "docs", ".github")
#: Words that mark a path as another repository's (ops-nn's op_kernel/, asc-devkit's docs/ …).
UPSTREAM = re.compile(
    r"https?://|ops-nn|asc-devkit|opbase|metadef|runtime|CANN|cann-learning-hub|PyTorch|torch"
    r"|upstream|v1's|V2's|MishGradV2|\bv1\b|toolkit|ASCEND_HOME_PATH"
)
#: How far back (within one paragraph) an upstream name may stand before the path it owns.
CONTEXT = 300
#: CANN's aclrtMalloc page (CANN community edition 8.1.RC1.alpha001): the padding of an
#: allocation, and the advice to allocate ahead rather than per operator. One version for
#: every notebook that cites it.
ACLRTMALLOC_PAGE = (
    "https://hiascend.com/document/detail/zh/CANNCommunityEdition/81RC1alpha001/"
    "apiref/appdevgapi/aclcppdevg_03_0095.html"
)
FORBIDDEN = re.compile(r"DESIGN(\.md| ?§)|\bseeds?\b ?\d{3}|\.\./shared|seed documents?")
_FOLDERS = "|".join(re.escape(folder) for folder in (*TOP_FOLDERS, ".ci"))
PATH = re.compile(rf"(?<![\w/.-])((?:{_FOLDERS})/[\w./-]*\w)")
LINK = re.compile(r"\]\(((?!https?:|#|mailto:)[^)\s]+)\)")
#: The source and documentation files scanned (tests/ is left out: its fixtures name missing
#: files on purpose).
PATTERNS = (
    "mishgrad/**/*.py",
    "kernel/**/*",
    "README*.md",
    "docs/*.md",
    "bench/*.py",
    "tools/**/*.py",
    "Makefile",
    ".ci/*",
    ".github/**/*.yml",
)
#: Fewer texts than this and the scan has lost its files.
LEAST_TEXTS = 100
Texts = list[tuple[str, str]]


@cache
def texts(root: Path = ROOT) -> Texts:
    """(where, text) for every notebook cell and every source or documentation file."""
    found = []
    for path in sorted(root.glob("notebooks/**/[0-9]*.ipynb")):
        if ".ipynb_checkpoints" not in path.parts:
            cells = notebook(path)["cells"]
            found += [
                (f"{path.relative_to(root)} cell {i}", source(c)) for i, c in enumerate(cells)
            ]
    for pattern in PATTERNS:
        for path in sorted(root.glob(pattern)):
            if path.is_file() and path.suffix not in {".png", ".so", ".o"}:
                found.append((str(path.relative_to(root)), text(path)))
    return found


def too_few(found: Texts) -> list[str]:
    """A scan that reads hardly anything checks nothing."""
    if len(found) > LEAST_TEXTS:
        return []
    return [f"the citation scan reads only {len(found)} texts, not more than {LEAST_TEXTS}"]


def _exists(path: str, base: Path) -> bool:
    # Relative to the repository or to the citing file's folder (kernel/mish_grad/README.md names
    # tests/ut); a prefix names the files it starts (bench/results/exhaustive.{json,md},
    # NOTEBOOKS=notebooks/05_*.ipynb).
    return any(
        (folder / path).exists() or any((folder / path).parent.glob(Path(path).name + "*"))
        for folder in (ROOT, base)
    )


def missing(place: str, written: str) -> list[str]:
    """Documents readers lack and repository paths that do not exist, cited in one text."""
    problems = []
    cited_by = place.split(" cell ")[0]
    base = (ROOT / cited_by).parent
    prose = cited_by.endswith((".md", ".ipynb"))
    for paragraph in re.split(r"\n\s*\n", written):
        for line in paragraph.splitlines():
            # CI hands its inputs over by path (the headers, the ops-nn kit): that is no citation
            if FORBIDDEN.search(line) and not re.search(r"\b(CANN_HEADERS|OPSNN_CHECK)=", line):
                problems.append(f"{place}: cites a document readers lack: {line.strip()[:120]}")
        for match in PATH.finditer(paragraph):
            path = match.group(1).rstrip(".")
            before = paragraph[max(0, match.start() - CONTEXT) : match.start()]
            linked = paragraph[match.end() : match.end() + 8].lstrip("`").startswith("](http")
            generated = path.startswith("docs/_build")  # made by `make site`, not cited
            if generated or linked or UPSTREAM.search(before) or _exists(path, base):
                continue
            problems.append(f"{place}: {path} is not in the repository")
        for match in LINK.finditer(paragraph) if prose else ():
            target = match.group(1).split("#")[0]
            if target and not (base / target).exists():
                problems.append(f"{place}: link to {target}, which does not exist")
    return problems


def page_versions(found: Texts) -> list[str]:
    """Links to CANN's aclrtMalloc page at another version than :data:`ACLRTMALLOC_PAGE`."""
    page = re.escape(ACLRTMALLOC_PAGE.rsplit("/", 1)[-1])
    return [
        f"{place}: {link}, not {ACLRTMALLOC_PAGE}"
        for place, written in found
        for link in re.findall(rf"https?://[^)\s\"']*{page}", written)
        if link != ACLRTMALLOC_PAGE
    ]


def _missing_everywhere(found: Texts) -> list[str]:
    return [problem for place, written in found for problem in missing(place, written)]


#: Three citations of what readers lack, and two that are fine (a file that exists, and a path
#: the sentence gives to another repository).
PLANTED_TEXTS = [
    ("README.md", "see DESIGN §4"),
    ("README.md", "see `mishgrad/nowhere.py`"),
    ("README.md", "[x](notebooks/99_none.ipynb)"),
    ("README.md", "see `mishgrad/kernel/twin.py` and [x](notebooks/)"),
    ("README.md", "ops-nn's `docs/zh/install/compile.md`"),
]


RULES = [
    Rule(
        "the citation scan reads every notebook cell and source file",
        lambda: too_few(texts()),
        lambda tmp: too_few(texts(tmp)),
        ("reads only 0 texts",),
    ),
    Rule(
        "nothing cites a file the repository lacks",
        lambda: _missing_everywhere(texts()),
        lambda _tmp: _missing_everywhere(PLANTED_TEXTS),
        ("DESIGN §4", "mishgrad/nowhere.py is not", "notebooks/99_none.ipynb"),
    ),
    Rule(
        "every link to CANN's aclrtMalloc page cites the one version citations.py names",
        lambda: page_versions(texts()),
        lambda _tmp: page_versions(
            [("notebooks/07.ipynb cell 1", f"[x]({ACLRTMALLOC_PAGE.replace('81RC1', '80RC3')})")]
        ),
        ("80RC3",),
    ),
]
