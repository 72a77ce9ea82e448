"""The Ascend host's loose ends: an activation nnopbase would ignore, the op folder's names as
ops-nn gives them, and the API's reference page in ops-nn's sections."""

import re
import subprocess
import sys

import pytest

from mishgrad.kernel import installed, opsnn, source, twin_build

OP_API = source.OPERATOR_DIR / "op_host" / "op_api"
REFERENCE = source.OPERATOR_DIR / "docs" / "aclnnMishBackward.md"


def test_loaded_nnopbase_is_read_from_the_process_s_maps(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text(
        "7f00-7f01 r-xp 00000000 08:01 12 /opt/torch_npu/lib/libnnopbase.so\n"
        "7f01-7f02 r--p 00001000 08:01 12 /opt/torch_npu/lib/libnnopbase.so\n"
        "7f02-7f03 rw-p 00000000 00:00 0 \n"
        "7f03-7f04 r-xp 00000000 08:01 13 /opt/my nnopbase/libnnopbase.so.1\n"
        "7f04-7f05 r-xp 00000000 08:01 14 /usr/lib/libascendcl.so\n"
    )
    assert installed.loaded_nnopbase(maps) == [
        "/opt/my nnopbase/libnnopbase.so.1",
        "/opt/torch_npu/lib/libnnopbase.so",
    ]


def test_an_activation_nnopbase_already_read_is_refused(monkeypatch):
    ours = installed.Activation(installed.Package(source.REPOSITORY, "private"), "/opp/mishgrad_nn")
    loaded = ["/opt/torch_npu/lib/libnnopbase.so"]
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH", raising=False)
    installed.require_unread(ours, [])  # nothing loaded yet: nnopbase will read it
    with pytest.raises(installed.PackageError) as error:
        installed.require_unread(ours, loaded)
    assert str(error.value) == (
        "MISHGRAD_BACKEND=ascend: nnopbase is loaded in this process already "
        "(/opt/torch_npu/lib/libnnopbase.so: torch_npu, for one, loads it), and it reads "
        "ASCEND_CUSTOM_OPP_PATH once, when the first operator runs, so the kernel it chose then "
        "would stay. Start the process with ASCEND_CUSTOM_OPP_PATH='/opp/mishgrad_nn', or choose "
        "the backend before anything loads nnopbase"
    )
    builtin = installed.Activation(None, "")
    installed.require_unread(builtin, loaded)
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", "/opp/mishgrad_nn")
    installed.require_unread(ours, loaded)  # started with it: nnopbase read the right value
    with pytest.raises(
        installed.PackageError, match=r"ascend-builtin: .* ASCEND_CUSTOM_OPP_PATH=''"
    ):
        installed.require_unread(builtin, loaded)


# A process that loaded nnopbase (as importing torch_npu does) before asking for a backend.
LOADED_FIRST = """
import ctypes, sys
ctypes.CDLL(sys.argv[1])
from mishgrad import aclnn
try:
    print(aclnn.load_backend("ascend").served_by)
except OSError as error:
    print(error)
"""


def test_a_process_that_loaded_nnopbase_first_is_told_how_to_start(tmp_path):
    library = twin_build.build()
    cann = opsnn.stand_in_install(tmp_path, library, package=False, builtin=True)
    vendor = opsnn.stand_in_package(tmp_path / "opp" / "vendors" / opsnn.VENDOR_DIR, library)
    env = {
        "PATH": "/usr/bin:/bin",
        "ASCEND_HOME_PATH": str(cann),
        "MISHGRAD_OPP_PATH": str(tmp_path / "opp"),
    }
    command = [sys.executable, "-c", LOADED_FIRST, str(cann / "lib64" / "libnnopbase.so")]

    def run(**extra: str) -> str:
        result = subprocess.run(
            command,
            env={**env, **extra},
            cwd=source.REPOSITORY,
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout.strip()

    refused = run()
    assert refused.startswith(
        f"MISHGRAD_BACKEND=ascend: nnopbase is loaded in this process already "
        f"({cann / 'lib64' / 'libnnopbase.so'}: "
    )
    assert f"Start the process with ASCEND_CUSTOM_OPP_PATH='{vendor}'," in refused
    # started as the message says: nnopbase finds the package when it first looks
    assert run(ASCEND_CUSTOM_OPP_PATH=str(vendor)) == str(vendor / "op_api/lib/libcust_opapi.so")


def test_the_level_0_files_are_named_after_the_op_as_in_ops_nn():
    # ops-nn e5c3fa9: experimental/activation/hard_swish_grad/op_host/op_api/hard_swish_grad.cpp;
    # the aclnn adapter keeps the API's name (the opsnn self-test plants faults in it)
    names = sorted(path.name for path in OP_API.iterdir())
    assert names == [
        "aclnn_mish_backward.cpp",
        "aclnn_mish_backward.h",
        f"{opsnn.OP_NAME}.cpp",
        f"{opsnn.OP_NAME}.h",
    ]
    adapter = (OP_API / "aclnn_mish_backward.cpp").read_text()
    assert f'#include "{opsnn.OP_NAME}.h"' in adapter


def test_the_reference_page_has_ops_nn_s_sections_and_the_contract_s_codes():
    page = REFERENCE.read_text()
    headings = re.findall(r"^## (.+)$", page, re.MULTILINE)
    assert headings == [
        "Product support",
        "Function",
        "Function prototypes",
        "aclnnMishBackwardGetWorkspaceSize",
        "aclnnMishBackward",
        "Constraints",
        "Example",
    ]
    contract = (source.OPERATOR_DIR / "common" / "mish_grad_contract.h").read_text()
    for name, code in re.findall(r"kAclnnErrParam(Nullptr|Invalid) = (\d+)", contract):
        assert f"ACLNN_ERR_PARAM_{name.upper()} | {code} |" in page
    most = re.search(r"kMaxDims = (\d+)", contract)[1]
    assert page.count(f"| ND | 0-{most} | √ |") == 3  # gradOutput, self, gradInput
