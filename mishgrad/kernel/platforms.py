"""The Ascend platforms the tiling is planned for, each figure with its public source.

Atlas A2 (chip architecture 2201) has 196,608 bytes of Unified Buffer (UB) per vector core, which
CANN's tiling API (``PlatformAscendC::GetCoreMemSize``) reports 256 bytes short
(:data:`UB_RESERVED_BYTES`), and ``Select`` in its tensor modes needs its top 8 KB as scratch;
Ascend 950 reports its whole UB and needs no scratch. :data:`SOURCES` gives every figure's link.
"""

from dataclasses import dataclass
from typing import Final

from mishgrad.citations import ASC_DEVKIT, OPS_NN, permalink

#: cann/pypto (GitHub mirror hicann/pypto): a CANN platform configuration file in its tests.
PYPTO: Final = ("https://github.com/hicann/pypto", "883e7dfb018da764a65fd2c2f8c1e1d2de2d2471")

#: Bytes CANN's tiling API keeps back from the physical UB of Atlas A2 (SoC family ASCEND910B;
#: none on other SoCs): the C++ tiling's ``kAscend910BUb.reservedBytes``.
UB_RESERVED_BYTES: Final = 256
#: asc-devkit's tiling API implementation: the reserve and the SoC names it maps.
_PLATFORM_ASCENDC: Final = "impl/utils/tiling/platform/platform_ascendc.cpp"
#: Size of the scratch area Select's tensor modes use at the top of UB (where they use one).
SELECT_SCRATCH_BYTES: Final = 8 * 1024

#: ops-nn's tiling test of conv3d_backprop_filter_v2, which names two A2 chips' cores.
_CONV3D_TEST: Final = (
    "conv/conv3d_backprop_filter_v2/tests/ut/op_host/test_conv3d_backprop_filter_v2_tiling.cpp"
)
#: asc-devkit's AscendC reference page of Select, and its kernel constants.
_SELECT_PAGE: Final = "docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/Select.md"
_CONSTANTS: Final = "impl/basic_api/utils/kernel_utils_constants.h"

#: The two UB sizes ops-nn's tiling tests give the tiling API on Atlas A2, with a fixture each.
UB_SIZE_FIXTURES: Final[dict[int, str]] = {
    196_608: permalink(
        OPS_NN, "experimental/activation/mish_grad/tests/ut/op_host/test_mish_grad_tiling.cpp", 46
    ),
    196_352: permalink(
        OPS_NN, "matmul/mat_mul_v3/tests/ut/op_host/test_matmul_v3_tiling.cpp", 1451
    ),
}

#: Where each platform fact comes from (public sources at fixed versions).
SOURCES: Final[dict[str, str]] = {
    "A2 UB and cores (910B1 config: 24 AI cores, 48 vector cores, ub_size 196608)": permalink(
        PYPTO,
        "framework/tests/ut/machine/stubs/compiler/data/platform_config/Ascend910B1.ini",
        (14, 58),
    ),
    "910B2: 24 AI cores (ops-nn conv3d_backprop_filter_v2 tiling test)": permalink(
        OPS_NN, _CONV3D_TEST, (186, 189)
    ),
    "910B3: 20 AI cores (the same test)": permalink(OPS_NN, _CONV3D_TEST, (279, 282)),
    "The tiling API reports the UB 256 bytes short on ASCEND910B only (asc-devkit)": permalink(
        ASC_DEVKIT, _PLATFORM_ASCENDC, (149, 159)
    ),
    "ASCEND910B: Atlas A2 ('Ascend910B') and A3 ('Ascend910_93'), the 256 bytes (asc-devkit)": (
        permalink(ASC_DEVKIT, _PLATFORM_ASCENDC, (27, 48))
    ),
    "AscendC's temporary UB area: 8 KB (asc-devkit, every architecture)": permalink(
        ASC_DEVKIT, _CONSTANTS, 52
    ),
    "A2 (arch 2201): UB 192 KB, the temporary area from 184 KB (asc-devkit)": permalink(
        ASC_DEVKIT, _CONSTANTS, (128, 131)
    ),
    "A2's Select (mode 1) writes into that temporary area (asc-devkit, dav_c220)": permalink(
        ASC_DEVKIT, "impl/basic_api/dav_c220/kernel_operator_vec_cmpsel_impl.h", (91, 96)
    ),
    "Select modes 1 and 2 need 8 KB of UB on A2; count-based Select needs none on 950": permalink(
        ASC_DEVKIT, _SELECT_PAGE, (229, 247)
    ),
    "Ascend 950 (arch 3510): UB 248 KB, no scratch offset below it (asc-devkit)": permalink(
        ASC_DEVKIT, _CONSTANTS, (165, 168)
    ),
    "Ascend 950: UB_SIZE 253952 and 64 cores (ops-nn tiling test for Ascend950)": permalink(
        OPS_NN,
        "activation/softmax_cross_entropy_with_logits/tests/ut/op_host/arch35/"
        "test_softmax_cross_entropy_with_logits_tiling.cpp",
        (55, 75),
    ),
}


@dataclass(frozen=True)
class Platform:
    """One NPU as the tiling sees it."""

    name: str  # the chip's marketing name
    ub_bytes: int  # physical Unified Buffer per vector core
    vector_cores: int  # available to one kernel launch (two per AI core on these chips)
    #: Whether ``Select`` in tensor modes needs the 8 KB scratch area at the top of UB (Atlas A2:
    #: yes; Ascend 950's count-based ``Select``: no).
    select_uses_scratch: bool

    @property
    def ub_reserved(self) -> int:
        """UB bytes CANN's tiling API keeps back: :data:`UB_RESERVED_BYTES` on Atlas A2, else 0.

        Like the C++ ``ComputeTiling``, the model tells its two SoC families apart by
        ``select_uses_scratch``: Atlas A2 (``kAscend910BUb``) and Ascend 950 (``kAscend950Ub``).
        """
        return UB_RESERVED_BYTES if self.select_uses_scratch else 0

    @property
    def ub_reported(self) -> int:
        """UB bytes the tiling function is told: the physical UB less :attr:`ub_reserved`."""
        return self.ub_bytes - self.ub_reserved

    @property
    def select_scratch_begin(self) -> int:
        """UB offset where Select's scratch area begins (``ub_bytes`` where it has none)."""
        return self.ub_bytes - (SELECT_SCRATCH_BYTES if self.select_uses_scratch else 0)


_A2_UB: Final = 196_608

#: 910B1 and 910B2: 24 AI cores; 910B3: 20 (SOURCES). 910B4: no public fixture found, and
#: it is taken to have 910B3's 20 AI cores; its figures are the least certain.
PLATFORMS: Final[dict[str, Platform]] = {
    "910B1": Platform("Atlas A2 910B1", _A2_UB, 48, True),
    "910B2": Platform("Atlas A2 910B2", _A2_UB, 48, True),
    "910B3": Platform("Atlas A2 910B3", _A2_UB, 40, True),
    "910B4": Platform("Atlas A2 910B4", _A2_UB, 40, True),
    "950": Platform("Ascend 950", 248 * 1024, 64, False),
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
