"""The messages a learner debugs with speak the notebook's language; the twin's own text does not.

The kernel and aclnn layers may not import the book, so ``language.use`` hands them its
translator (:mod:`mishgrad.kernel.messages`). Each family of messages is shown once in Chinese
and once in English: a kernel's crash, stall, call budget, missing result, progress line and
stray writes (``KernelError``), the twin's build (its progress line and ``TwinBuildError``), a
refused plan, a refused reset, the which-kernel report, and the trace table's "op" column.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from functools import reduce
from pathlib import Path

import numpy as np
import pytest
from nbval.plugin import get_sanitize_patterns

from mishgrad.aclnn.provenance import STAMP_VERSION, KernelReport, Stamp
from mishgrad.book import i18n, language, report
from mishgrad.kernel import (
    compile_units,
    isolation,
    messages,
    misuse,
    plan_check,
    platforms,
    tiling,
    ub_layout,
)
from mishgrad.kernel.scratch import ScratchKernel
from mishgrad.kernel.shared_tensors import GUARD_BYTES, shared_tensors
from mishgrad.kernel.twin_abi import PROGRESS_DTYPE
from tools.production import output_strings

A2 = platforms.platform("910B2")
REPOSITORY = Path(__file__).parents[1]
#: How nbval compares stored outputs: the line of a long launch is left out, in both editions.
SANITIZE = REPOSITORY / "tests" / "nbval_sanitize.cfg"
#: A message as the C++ twin writes it: it stays English in both editions.
TWIN_MESSAGE = "DataCopy: accesses 64 bytes but only 32 remain in the GlobalTensor (core 0)"


@pytest.fixture(params=["zh-CN", "en"])
def edition(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test runs in both languages; English again afterwards."""
    language.use(request.param)
    yield request.param
    language.use(i18n.ENGLISH)


def in_chinese(text: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in text)


def spoken(text: str, edition: str, english: str) -> None:
    """``text`` is Chinese in the Chinese edition, and ``english`` in the English one."""
    if edition == "en":
        assert text == english
    else:
        assert in_chinese(text) and text != english, text


def board(*cores: tuple[int, str]) -> np.ndarray:
    """A progress board: each core's AscendC calls and its last call."""
    return np.array([(calls, op.encode()) for calls, op in cores], dtype=PROGRESS_DTYPE)


def look(watchdog: isolation.Watchdog, progress: np.ndarray | None, budget: int = 10) -> None:
    """The watchdog looks at a launch with this board (None: a request without one), twice.

    The request's time limit is 0 s; the watchdog's stall and tell are the test's. The first
    look sees the calls change (from none), the second one that they have not since.
    """
    watch = isolation._Watch(watchdog, 0.0, None if progress is None else lambda: progress, budget)
    watch.look()
    time.sleep(0.01)  # past a zero stall, limit or tell
    watch.look()


def test_the_hook_follows_language_use() -> None:
    english = "the worker process was not ready after 3 s"
    try:
        language.use("zh-CN")
        assert messages.translate(english) == "工作进程在 3 秒后仍未就绪"
    finally:
        language.use(i18n.ENGLISH)
    assert messages.translate(english) == english


def test_a_real_crash(edition: str) -> None:
    with pytest.raises(isolation.KernelError) as error:
        isolation.call(os.abort)  # SIGABRT in the worker, before any AscendC call
    english = (
        "the kernel crashed with SIGABRT (Aborted) before any AscendC call (in the tiling, or "
        "before Init's first one). Look for a failed assert, or an exception nothing caught. "
        "The notebook is unharmed; fix the copy and run the cell again"
    )
    spoken(str(error.value), edition, english)
    assert "SIGABRT" in str(error.value)  # the signal's name, as the system gives it


def test_a_stall_names_each_cores_last_call(edition: str) -> None:
    stalled = board((5, "DataCopy"), (7, "Adds"), (0, ""))
    with pytest.raises(isolation.KernelError) as error:
        look(isolation.Watchdog(stall=0.0), stalled)
    message = str(error.value)
    assert message.startswith(
        "no AscendC call on any core for 0 s, after these last AscendC calls: core 0: DataCopy "
        "(call 5); core 1: Adds (call 7); no call yet on core 2: an endless loop"
        if edition == "en"
        else "所有核连续 0 秒没有任何 AscendC 调用（各核最后的 AscendC 调用：核 0：DataCopy"
        "（第 5 次调用）; 核 1：Adds（第 7 次调用）；尚无调用的核：2）。"
    )
    assert error.value.stalled is not None


def test_a_core_past_its_call_budget(edition: str) -> None:
    busy = board(*[(20, "Muls")] * 5, *[(0, "")] * 8)
    with pytest.raises(isolation.KernelError) as error:
        look(isolation.Watchdog(stall=1e9), busy)
    english = (
        "core 0 made 20 AscendC calls, more than the 10 its tiles can need, after these last "
        "AscendC calls: core 0: Muls (call 20); core 1: Muls (call 20); core 2: Muls (call 20); "
        "core 3: Muls (call 20) and 1 more cores; no call yet on core 5, 6, 7, 8, 9, 10 and 2 "
        "more: a loop that never ends, such as a tile counter that never advances? The run was "
        "stopped (Watchdog.calls sets the budget)"
    )
    spoken(str(error.value), edition, english)


def test_no_result_within_the_limit(edition: str) -> None:
    with pytest.raises(isolation.KernelError) as error:
        look(isolation.Watchdog(), None)
    english = (
        "no result after 0 s: an endless loop? The run was stopped (Watchdog.limit sets the wait)"
    )
    spoken(str(error.value), edition, english)


def test_a_long_launch_says_it_still_runs(edition: str, capsys: pytest.CaptureFixture) -> None:
    look(isolation.Watchdog(stall=1e9, tell=0.0), board(*[(1234, "Exp")] * 4), budget=10**6)
    english = (
        "Still running after 0 s; AscendC calls so far: core 0: 1,234, core 1: 1,234, core 2: "
        "1,234, … 4,936 on all 4 cores. It is not stopped while they rise: Interrupt stops it.\n"
    )
    said = capsys.readouterr().out
    spoken(said, edition, english)
    assert "4,936" in said
    sanitize = get_sanitize_patterns(SANITIZE.read_text(encoding="ascii"))
    assert reduce(lambda text, pattern: re.sub(*pattern, text), sanitize, said) == ""  # nbval


def test_stray_writes_are_named(edition: str) -> None:
    x, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    with shared_tensors({"x": x, "out": out}, 1) as (blocks, _):
        blocks["x"].buf[GUARD_BYTES - 4] = 0  # before x
        blocks["x"].buf[GUARD_BYTES] = 1  # into x
        with pytest.raises(isolation.KernelError) as error:
            isolation._check_strays(blocks, {"x": x, "out": out}, ("out",))
    english = (
        "the kernel wrote before the start of x: 4 bytes before its first element changed; and "
        "into the input x: 4 bytes of it changed (1 elements, the first at index 0). No AscendC "
        "call wrote there (the twin checks those): a raw pointer did, from GetPhyAddr or "
        "arithmetic on a GM_ADDR. On an NPU such a write corrupts whatever lies there. The "
        "notebook is unharmed; fix the copy and run the cell again"
    )
    spoken(str(error.value), edition, english)


def test_the_twins_own_message_stays_as_written(edition: str) -> None:
    assert str(isolation.KernelError(TWIN_MESSAGE)) == TWIN_MESSAGE


def test_the_build_progress_line(edition: str, capsys, monkeypatch) -> None:
    monkeypatch.setenv(compile_units.PROGRESS_VARIABLE, "1")
    compile_units._Progress(5, "mishgrad_twin")
    line = capsys.readouterr().out.lstrip("\r")
    spoken(line, edition, "compiling the twin (mishgrad_twin): 0 of 5 units, 0 s")


def test_a_build_error_keeps_the_compilers_words(edition: str) -> None:
    compiler = "op_kernel/mish_grad.h:235:9: error: expected ';' before '}' token"
    error = compile_units.TwinBuildError(f"compiling mish_grad.cpp failed:\n{compiler}")
    headline, rest = str(error).split("\n", 1)
    spoken(headline, edition, "compiling mish_grad.cpp failed:")
    assert rest == compiler


def test_a_refused_plan(edition: str) -> None:
    x = np.ones(1000, np.float32)
    plan = tiling.plan_for(999, 4, False)
    with pytest.raises(ValueError) as error:
        plan_check.check_plan(plan, x, False, A2)
    english = (
        "plan.totalLength is 999, but x has 1000 elements: the twin would check the kernel's "
        "accesses against tensors of 999"
    )
    spoken(str(error.value), edition, english)


def test_a_refused_reset(edition: str, tmp_path: Path) -> None:
    (tmp_path / "thesis").mkdir()
    with pytest.raises(ValueError) as error:
        ScratchKernel(tmp_path / "thesis").reset()
    assert str(tmp_path / "thesis") in str(error.value)
    assert ("not a scratch copy" in str(error.value)) == (edition == "en")
    assert in_chinese(str(error.value)) == (edition == "zh-CN")


CHECKOUT = "ab" * 32  # an identity: the sources the report compares the stamp with
REPORTS = {  # (backend, stamp or None): what the report says
    ("twin", Stamp(STAMP_VERSION, 4, 40, 4096, False, 4096, CHECKOUT)): (
        "this build of this repository's kernel ran: its stamp in the workspace "
        "(blockDim 40, tileLength 4096)"
    ),
    ("twin", Stamp(STAMP_VERSION, 4, 40, 4096, False, 4096, "cd" * 32)): (
        "another build of this kernel ran: its stamp names other sources than this checkout's "
        "(an older package, or a copy with edits)"
    ),
    ("twin", Stamp(1, 4, 40, 4096, False, 4096, "")): (
        "another build of this kernel ran: its stamp is version 1, for 4096 elements of 4 bytes; "
        f"this build's for this call would be version {STAMP_VERSION}, for 4096 of 4"
    ),
    ("twin", Stamp(STAMP_VERSION, 2, 40, 4096, False, 1000, CHECKOUT)): (
        f"another build of this kernel ran: its stamp is version {STAMP_VERSION}, for 1000 "
        f"elements of 2 bytes; this build's for this call would be version {STAMP_VERSION}, "
        "for 4096 of 4"
    ),
    ("twin", None): "not this repository's kernel: no stamp in the 64-byte workspace",
    ("ascend-builtin", None): (
        "not this repository's kernel: no stamp in the 64-byte workspace; that it was CANN's "
        "own is inferred (ASCEND_GLOBAL_LOG_LEVEL=1 makes nnopbase log the kernel config it "
        "parsed)"
    ),
}


@pytest.mark.parametrize(("backend", "stamp"), list(REPORTS), ids=range(len(REPORTS)))
def test_the_which_kernel_report(edition: str, backend: str, stamp: Stamp | None) -> None:
    shown = str(KernelReport(backend, "libmishgrad_twin.so", 4096, 64, stamp, CHECKOUT))
    spoken(shown, edition, REPORTS[backend, stamp])


def test_the_trace_tables_op_column_is_a_call(edition: str) -> None:
    header = report.table([], ub_layout.TILE_HEADERS).data.splitlines()[0]
    assert f"| {'调用' if edition == 'zh-CN' else 'op'} |" in header
    assert i18n.translate("op") == ("算子" if edition == "zh-CN" else "op")  # 07's libraries


def test_an_ambiguous_word_without_an_entry_is_shown_as_written() -> None:
    word = messages.Ambiguous("op", meaning="an entry nobody wrote")
    assert i18n.translate(word, "zh-CN") == "op"


def test_the_misuse_tables_descriptions_are_translated() -> None:
    for entry in misuse.MISUSES:
        for text in (entry.mistake, entry.npu):
            assert in_chinese(i18n.translate(text, "zh-CN")), text


def test_the_scanner_finds_the_message_sites() -> None:
    source = (
        'raise KernelError(f"core {core} stopped")\n'
        'raise TwinBuildError("no compiler")\n'
        'Misuse("case", "the mistake", f"what an NPU shows for {x}", LINK, True)\n'
        '_HINTS = {1: "a hint", 2: "another"}\n'
        'HEADERS = ("#", Ambiguous("op", meaning="op (a call)"))\n'
    )
    assert output_strings.templates_in_source(source) == [
        "core {0} stopped",
        "no compiler",
        "the mistake",
        "what an NPU shows for {0}",
        "op (a call)",
        "a hint",
        "another",
    ]


def test_the_chinese_readmes_binder_badge_opens_the_chinese_notebooks() -> None:
    readme = (REPOSITORY / "README.zh-CN.md").read_text(encoding="utf-8")
    badge = next(line for line in readme.splitlines() if "badge_logo.svg" in line)
    assert badge.endswith("?urlpath=lab/tree/notebooks/zh-CN)")
