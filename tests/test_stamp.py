"""The stamp names its build: the identity of the kernel's sources, from the header every build
writes (mishgrad/kernel/identity.py, tools/identity.py), compared by which_kernel with the
checkout's.

The stand-in CANN suite at the end runs ``MISHGRAD_BACKEND=ascend`` (and ``ascend-builtin``) in
fresh processes against the twin laid out as CANN (:func:`mishgrad.kernel.opsnn.stand_in_install`),
with the package's library built from this checkout, from an edited copy, or from a copy whose
kernel writes no stamp.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mishgrad import aclnn
from mishgrad.aclnn import example, provenance
from mishgrad.kernel import identity, opsnn, scratch, source, twin_build

KERNEL = source.OPERATOR_DIR
REPO = source.REPOSITORY
EXAMPLE = KERNEL / "examples" / "test_aclnn_mish_grad.cpp"
#: A harmless edit of a file the identity covers: the copy's kernel computes the same.
EDIT = ("op_kernel/mish_grad.h", "#include <type_traits>\n", "#include <type_traits>  // edited\n")


def by_definition(op_dir: Path, names: list[str]) -> str:
    """The identity as the module's docstring defines it, computed here on its own."""
    hasher = hashlib.sha256()
    for name in sorted(names):
        data = (op_dir / name).read_bytes()
        hasher.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return hasher.hexdigest()


def test_the_identity_covers_the_kernel_the_contract_and_the_tiling():
    names = identity.sources(KERNEL)
    kernel = sorted(p.name for p in (KERNEL / "op_kernel").iterdir() if p.is_file())
    assert [n for n in names if n.startswith("op_kernel/")] == [
        f"op_kernel/{name}" for name in kernel if f"op_kernel/{name}" != identity.HEADER
    ]
    assert {"common/mish_grad_contract.h", "op_host/mish_grad_tiling.cpp"} <= set(names)
    assert not {n for n in names if n.startswith(("op_host/op_api", "examples", "tests", "twin"))}
    assert identity.of(KERNEL) == by_definition(KERNEL, names)


def test_only_the_covered_files_change_the_identity(tmp_path):
    copy = scratch.scratch_kernel("identity", root=tmp_path).path
    before = identity.of(copy)
    for outside in ("op_host/mish_grad_def.cpp", "examples/run.sh", "op_kernel/.notes.swp"):
        (copy / outside).write_text("// not the kernel's source\n")
    assert identity.of(copy) == before
    (copy / "common" / "mish_grad_tiling.h").write_text("// edited\n")
    assert identity.of(copy) != before


def test_the_header_holds_the_hash_s_bytes_and_is_rewritten_only_when_it_changes(tmp_path):
    copy = scratch.scratch_kernel("header", root=tmp_path)
    header = copy.path / identity.HEADER
    assert not header.exists()  # a copy leaves it out: its build writes its own
    written = identity.write_header(copy.path)
    words = re.search(r"#define MISHGRAD_IDENTITY_WORDS (.*)", header.read_text())[1]
    as_bytes = b"".join(int(w.rstrip("u"), 16).to_bytes(4, "little") for w in words.split(", "))
    assert as_bytes.hex() == written == identity.of(copy.path)
    stat = header.stat()
    identity.write_header(copy.path)
    assert header.stat().st_mtime_ns == stat.st_mtime_ns  # current: left alone
    copy.replace(*EDIT)
    assert identity.write_header(copy.path) != written and written not in header.read_text()
    assert copy.edited() == [EDIT[0]]  # the header is no edit of the learner's


def test_a_folder_without_the_sources_is_refused(tmp_path):
    (tmp_path / "op_kernel").mkdir()
    (tmp_path / "op_kernel" / "k.cpp").write_text("")
    with pytest.raises(FileNotFoundError, match=r"has no common/\*"):
        identity.write_header(tmp_path)


def test_the_command_needs_only_the_standard_library(tmp_path):
    copy = scratch.scratch_kernel("command", root=tmp_path).path
    command = [sys.executable, "-S", "-m", "tools.identity"]  # -S: no site-packages

    def run(*args: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *map(str, args)], cwd=REPO, capture_output=True, text=True, check=False
        )

    done = run(copy)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == identity.of(copy) and (copy / identity.HEADER).is_file()
    assert run(tmp_path / "none").returncode == 2 and "usage:" in run().stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = run(empty)
    assert refused.returncode == 1 and "has no op_kernel/*" in refused.stderr


def test_the_example_reads_the_stamp_as_the_kernel_writes_it():
    example = EXAMPLE.read_text()
    assert f"kStampVersion = {provenance.STAMP_VERSION};" in example
    assert f"kStampWords = {provenance.STAMP_WORDS};" in example
    assert 'memcmp(workspace.data() + at, "MISHGRAD", 8)' in example
    magic = b"".join(word.to_bytes(4, "little") for word in provenance.STAMP_MAGIC)
    assert magic == b"MISHGRAD"


def test_the_example_compares_the_stamp_with_the_identity_it_is_given():
    binary, checkout = str(example.build()), identity.of(KERNEL)

    def kernel_line(*given: str) -> str:
        done = subprocess.run([binary, *given], capture_output=True, text=True, check=True)
        return next(line for line in done.stdout.splitlines() if line.startswith("kernel: "))

    named = f"its stamp names sources {checkout[:16]}"
    assert kernel_line(checkout) == f"kernel: this build of this repository's ({named})"
    other = "0" * 64
    assert kernel_line(other) == f"kernel: another build of this kernel ({named}, not {other[:16]})"
    assert kernel_line() == (
        f"kernel: a build of this repository's, sources {checkout[:16]} (not compared: pass the "
        "checkout's identity as the argument)"
    )


@pytest.mark.slow
def test_a_copy_with_an_edit_is_another_build_and_its_own_this_build(tmp_path):
    copy = scratch.scratch_kernel("edited", root=tmp_path)
    copy.replace(*EDIT)
    with aclnn.Session(aclnn.twin_backend(copy.path)) as session:
        checkout = aclnn.which_kernel(session)
        its_own = aclnn.which_kernel(session, sources=copy.path)
    assert checkout.verdict == provenance.ANOTHER_BUILD
    assert checkout.stamp.identity == identity.of(copy.path) != identity.of(KERNEL)
    assert str(checkout).startswith("another build of this kernel ran: its stamp names other")
    assert its_own.ours and its_own.verdict == provenance.THIS_BUILD


# --- The stand-in CANN suite: the ascend backends in processes of their own ---------------

#: The variables that say where CANN and the package are: a probe sees only those it is given.
INSTALL_VARIABLES = {"ASCEND_OPP_PATH", "ASCEND_CUSTOM_OPP_PATH", "MISHGRAD_BACKEND"}
PROBE = (
    "import sys; from mishgrad import aclnn\n"
    "with aclnn.Session(aclnn.load_backend(sys.argv[1])) as session:\n"
    "    report = aclnn.which_kernel(session)\n"
    "print(report.verdict); print(report)\n"
)


def which_kernel_in(root: Path, kind: str, package: Path | None, builtin: Path) -> list[str]:
    """The verdict and report of ``which_kernel`` in a fresh process on a stand-in CANN.

    ``package``: the library the privately installed package serves (None: not installed);
    ``builtin``: CANN's own operator library. The library that serves the call also stands in
    for CANN's runtime and nnopbase (symbolic links: one library, loaded once), so that the
    tensors and the executor it is given are its own.
    """
    lib64 = root / "cann" / "lib64"
    lib64.mkdir(parents=True)
    shutil.copy(builtin, lib64 / "libopapi_nn.so")
    opp = root / "opp"
    served = lib64 / "libopapi_nn.so"
    if package is not None:
        vendor = opsnn.stand_in_package(opp / "vendors" / opsnn.VENDOR_DIR, package)
        served = vendor / "op_api" / "lib" / "libcust_opapi.so" if kind == "ascend" else served
    for role in ("libascendcl.so", "libnnopbase.so"):
        (lib64 / role).symlink_to(served)
    env = {k: v for k, v in os.environ.items() if k not in INSTALL_VARIABLES}
    env |= {"ASCEND_HOME_PATH": str(lib64.parent), "MISHGRAD_OPP_PATH": str(opp)}
    command = [sys.executable, "-c", PROBE, kind]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_package_built_from_this_checkout_is_this_build(tmp_path):
    ours = twin_build.build()
    verdict, report = which_kernel_in(tmp_path, "ascend", ours, ours)
    assert verdict == provenance.THIS_BUILD
    assert report.startswith("this build of this repository's kernel ran: its stamp")


@pytest.mark.slow
def test_a_package_built_from_edited_sources_is_another_build(tmp_path):
    copy = scratch.scratch_kernel("edited", root=tmp_path / "scratch")
    copy.replace(*EDIT)
    edited = twin_build.build(twin_build.kernel_spec(root=copy.path))
    verdict, report = which_kernel_in(tmp_path, "ascend", edited, twin_build.build())
    assert verdict == provenance.ANOTHER_BUILD
    assert report == (
        "another build of this kernel ran: its stamp names other sources than this checkout's "
        "(an older package, or a copy with edits)"
    )


@pytest.mark.slow
def test_a_kernel_without_a_stamp_is_none_of_ours_and_cann_s_is_only_inferred(
    tmp_path, cann_s_own_library
):
    none = "not this repository's kernel: no stamp in the 64-byte workspace"
    theirs = cann_s_own_library
    verdict, report = which_kernel_in(tmp_path / "a", "ascend", theirs, theirs)
    assert (verdict, report) == (provenance.NOT_OURS, none)
    verdict, report = which_kernel_in(tmp_path / "b", "ascend-builtin", None, theirs)
    assert verdict == provenance.NOT_OURS
    assert report == f"{none}; that it was CANN's own is inferred (ASCEND_GLOBAL_LOG_LEVEL=1 " + (
        "makes nnopbase log the kernel config it parsed)"
    )
