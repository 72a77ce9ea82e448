"""Permalinks to the public sources the notebooks cite, at the commits this project read.

Every fact the textbook takes from elsewhere is cited where it is used, with a link that
pins the version: a repository, a commit, a path and, where it helps, the lines. The
commits are named once here so that every link to one repository agrees.
"""

from typing import Final
from urllib.parse import quote

#: cann/ops-nn (GitHub mirror hicann/ops-nn): MishGrad v1 under experimental/, MishGradV2,
#: the build scripts.
OPS_NN: Final = ("https://github.com/hicann/ops-nn", "e5c3fa9327ea95ba26d06227e746923580d10921")
#: cann/asc-devkit: the AscendC headers and the Chinese API reference under docs/zh/api.
ASC_DEVKIT: Final = (
    "https://gitcode.com/cann/asc-devkit",
    "82b89a15f26329511fc7fbc807d5132a1f9b4ba7",
)
#: cann/opbase: the aclnn framework and the precision standard for experimental operators.
OPBASE: Final = ("https://gitcode.com/cann/opbase", "aa3cd74b7f6d772acd64ff48292a7e65a9bc8142")


def permalink(
    repository: tuple[str, str], path: str, lines: tuple[int, int] | int | None = None
) -> str:
    """A link to ``path`` (and optionally a line or a range of lines) at the pinned commit.

    >>> permalink(OPS_NN, "cmake/func.cmake", (403, 440))[-24:]
    'cmake/func.cmake#L403-L440'
    """
    base, commit = repository
    url = f"{base}/blob/{commit}/{quote(path)}"
    if isinstance(lines, int):
        return f"{url}#L{lines}"
    if lines is not None:
        return f"{url}#L{lines[0]}-L{lines[1]}"
    return url
