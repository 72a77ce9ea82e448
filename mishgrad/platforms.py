"""The Ascend platforms the tiling is planned for (each figure is cited in notebook 03).

Atlas A2 (chip architecture 2201): 196,608 bytes of Unified Buffer per vector core, of
which CANN's tiling API reports 196,352 (256 bytes are reserved). ``Select`` in its
tensor modes uses the top 8 KB of UB (from 184 KB) as scratch. The vector-core counts of
the 910B variants come from public device listings; 910B1's is the least certain.
Ascend 950's figures come from public test fixtures; its Select scratch area is not
documented, and the same top-8-KB rule is assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: Bytes the tiling API reports less than the physical UB.
UB_RESERVED_BYTES: Final = 256
#: Size of the scratch area Select's tensor modes use at the top of UB.
SELECT_SCRATCH_BYTES: Final = 8 * 1024


@dataclass(frozen=True)
class Platform:
    """One NPU as the tiling sees it.

    Attributes
    ----------
    name
        Marketing name of the chip.
    ub_bytes
        Physical Unified Buffer per vector core.
    vector_cores
        Vector cores available to one kernel launch.

    """

    name: str
    ub_bytes: int
    vector_cores: int

    @property
    def ub_reported(self) -> int:
        """UB bytes as CANN's tiling API reports them (what the tiling function is given)."""
        return self.ub_bytes - UB_RESERVED_BYTES

    @property
    def select_scratch_begin(self) -> int:
        """UB offset where Select's tensor-mode scratch area begins."""
        return self.ub_bytes - SELECT_SCRATCH_BYTES


_A2_UB: Final = 196_608

PLATFORMS: Final[dict[str, Platform]] = {
    "910B1": Platform("Atlas A2 910B1", _A2_UB, 48),
    "910B2": Platform("Atlas A2 910B2", _A2_UB, 48),
    "910B3": Platform("Atlas A2 910B3", _A2_UB, 40),
    "910B4": Platform("Atlas A2 910B4", _A2_UB, 40),
    "950": Platform("Ascend 950", 248 * 1024, 64),
}

DEFAULT_PLATFORM: Final = "910B2"


def platform(name: str | Platform) -> Platform:
    """Look a platform up by key (``"910B2"``), passing a :class:`Platform` through.

    Raises
    ------
    ValueError
        For an unknown name.

    """
    if isinstance(name, Platform):
        return name
    try:
        return PLATFORMS[name]
    except KeyError:
        raise ValueError(f"unknown platform {name!r}; known: {', '.join(PLATFORMS)}") from None
