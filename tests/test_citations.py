"""Nothing in the repository cites a document the repository does not contain.

Readers have the repository and public sources, nothing else: no design notes, no seed
documents, no sibling folders. Every path that names a file of this repository (it starts
with one of the repository's top-level folders, or is a relative link) must exist. Paths of
other repositories are fine when the sentence says whose they are (an upstream name or a URL
comes first on the line).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_FOLDERS = ("kernel", "mishgrad", "notebooks", "tests", "bench", "tools", "docs", ".github")
#: Words that mark a path as another repository's (ops-nn's op_kernel/, asc-devkit's docs/ …).
UPSTREAM = re.compile(
    r"https?://|ops-nn|asc-devkit|opbase|metadef|runtime|CANN|cann-learning-hub|PyTorch|torch"
    r"|upstream|v1's|V2's|MishGradV2|\bv1\b|toolkit|ASCEND_HOME_PATH"
)
#: How far back (within one paragraph) an upstream name may stand before the path it owns.
CONTEXT = 300
FORBIDDEN = re.compile(r"DESIGN(\.md| ?§)|\bseeds?\b ?\d{3}|\.\./shared|seed documents?")
_FOLDERS = "|".join(re.escape(folder) for folder in (*TOP_FOLDERS, ".ci"))
PATH = re.compile(rf"(?<![\w/.-])((?:{_FOLDERS})/[\w./-]*\w)")
LINK = re.compile(r"\]\(((?!https?:|#|mailto:)[^)\s]+)\)")


def _texts() -> list[tuple[str, str]]:
    """(where, text) for every notebook cell and every source or documentation file."""
    texts = []
    for notebook in sorted(ROOT.glob("notebooks/**/[0-9]*.ipynb")):
        if ".ipynb_checkpoints" in notebook.parts:
            continue
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        for index, cell in enumerate(cells):
            texts.append((f"{notebook.relative_to(ROOT)} cell {index}", "".join(cell["source"])))
    # tests/ is left out: its fixtures name missing files on purpose.
    patterns = (
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
    for pattern in patterns:
        for path in sorted(ROOT.glob(pattern)):
            if path.is_file() and path.suffix not in {".png", ".so", ".o"}:
                texts.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    return texts


def _exists(path: str, base: Path) -> bool:
    # Relative to the repository or to the citing file's folder (kernel/README.md names
    # tests/ut); a prefix names the files it starts (bench/results/exhaustive.{json,md},
    # NOTEBOOKS=notebooks/05_*.ipynb).
    return any(
        (folder / path).exists() or any((folder / path).parent.glob(Path(path).name + "*"))
        for folder in (ROOT, base)
    )


def _missing(where: str, text: str) -> list[str]:
    problems = []
    source = where.split(" cell ")[0]
    base = (ROOT / source).parent
    prose = source.endswith((".md", ".ipynb"))
    for paragraph in re.split(r"\n\s*\n", text):
        for line in paragraph.splitlines():
            # CI hands its inputs over by path (the headers, the ops-nn kit): that is no citation
            if FORBIDDEN.search(line) and not re.search(r"\b(CANN_HEADERS|OPSNN_CHECK)=", line):
                problems.append(f"{where}: cites a document readers lack: {line.strip()[:120]}")
        for match in PATH.finditer(paragraph):
            path = match.group(1).rstrip(".")
            before = paragraph[max(0, match.start() - CONTEXT) : match.start()]
            linked = paragraph[match.end() : match.end() + 8].lstrip("`").startswith("](http")
            generated = path.startswith("docs/_build")  # made by `make site`, not cited
            if generated or linked or UPSTREAM.search(before) or _exists(path, base):
                continue
            problems.append(f"{where}: {path} is not in the repository")
        for match in LINK.finditer(paragraph) if prose else ():
            target = match.group(1).split("#")[0]
            if target and not (base / target).exists():
                problems.append(f"{where}: link to {target}, which does not exist")
    return problems


TEXTS = _texts()


def test_there_is_something_to_check() -> None:
    assert len(TEXTS) > 100


@pytest.mark.parametrize("kind", ["notebooks", "sources"])
def test_no_citation_of_a_missing_file(kind: str) -> None:
    chosen = [t for t in TEXTS if t[0].startswith("notebooks/") == (kind == "notebooks")]
    problems = [problem for where, text in chosen for problem in _missing(where, text)]
    assert not problems, "\n".join(problems)


def test_the_checker_catches_a_missing_file() -> None:
    assert _missing("README.md", "see DESIGN §4")
    assert _missing("README.md", "see `mishgrad/nowhere.py`")
    assert _missing("README.md", "[x](notebooks/99_none.ipynb)")
    assert not _missing("README.md", "see `mishgrad/kernel/twin.py` and [x](notebooks/)")
    assert not _missing("README.md", "ops-nn's `docs/zh/install/compile.md`")


def test_permalinks_pin_the_commit_and_lines() -> None:
    from mishgrad import citations

    link = citations.permalink(citations.OPS_NN, "cmake/func.cmake", (403, 440))
    assert link.endswith(f"/blob/{citations.OPS_NN[1]}/cmake/func.cmake#L403-L440")
    assert citations.permalink(citations.ASC_DEVKIT, "docs/zh/api/基础.md", 7).endswith(
        "/docs/zh/api/%E5%9F%BA%E7%A1%80.md#L7"
    )
    assert citations.markdown_link(citations.OPBASE, "a.md").startswith("[a.md](https://")


def test_the_aclrtmalloc_page_is_cited_at_one_version():
    # Every link to CANN's aclrtMalloc page is citations.ACLRTMALLOC_PAGE, so all notebooks cite
    # the same CANN version of it.
    from mishgrad.citations import ACLRTMALLOC_PAGE

    page = ACLRTMALLOC_PAGE.rsplit("/", 1)[-1]
    links = {
        (where.split(" cell ")[0], link)
        for where, text in _texts()
        for link in re.findall(rf"https?://[^)\s\"']*{re.escape(page)}", text)
    }
    assert {link for _, link in links} <= {ACLRTMALLOC_PAGE}, sorted(links)
