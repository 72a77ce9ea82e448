"""mishgrad.citations: permalinks pin the commit and the lines they cite.

That nothing in the repository cites a document it lacks is a rule of the repository
(tests/rules/citations.py).
"""

from __future__ import annotations

from mishgrad import citations


def test_permalinks_pin_the_commit_and_lines() -> None:
    link = citations.permalink(citations.OPS_NN, "cmake/func.cmake", (403, 440))
    assert link.endswith(f"/blob/{citations.OPS_NN[1]}/cmake/func.cmake#L403-L440")
    assert citations.permalink(citations.ASC_DEVKIT, "docs/zh/api/基础.md", 7).endswith(
        "/docs/zh/api/%E5%9F%BA%E7%A1%80.md#L7"
    )
