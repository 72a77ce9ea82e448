"""Excerpts of kernel sources: whole definitions (not calls), marker ranges, code blocks."""

import pytest
from IPython.display import Markdown

from mishgrad.kernel import source

HEADER = source.KERNEL_DIR / "op_kernel" / "mish_grad.h"


def test_read_method_finds_definitions_not_calls():
    init = source.read_method(HEADER, "Init", with_comment=False)
    assert init.startswith("__aicore__ inline void Init(")
    assert init.rstrip().endswith("}")
    copy_in = source.read_method(HEADER, "CopyIn", with_comment=False)
    assert copy_in.startswith("__aicore__ inline void CopyIn(")  # not the call in Process
    assert "LoadTile(gradQueue_" in copy_in
    window = source.read_method(HEADER, "RootWindow")
    assert window.startswith("//") and "CompareScalar(" in window and "Select(" in window
    entry = source.read_method(source.KERNEL_DIR / "op_kernel" / "mish_grad.cpp", "mish_grad")
    assert entry.startswith('extern "C"') and "kernel.Process();" in entry
    budget = source.read_method(source.KERNEL_DIR / "common" / "mish_grad_tiling.h", "KernelBudget")
    assert 'add("grad queue"' in budget
    with pytest.raises(ValueError, match="no definition"):
        source.read_method(HEADER, "NoSuchMethod")


def test_read_method_on_hand_made_source(tmp_path):
    path = tmp_path / "example.h"
    path.write_text(
        "int declared(int a);\n"
        "// adds one\n"
        "// to a\n"
        "static int f(int a)\n"
        "{\n"
        "    if (a) { return a + 1; }  // { in a comment\n"
        "    return declared(a);\n"
        "}\n"
        "void broken() {\n"
        "    {\n"
    )
    assert source.read_method(path, "f") == (
        "// adds one\n// to a\nstatic int f(int a)\n{\n"
        "    if (a) { return a + 1; }  // { in a comment\n    return declared(a);\n}"
    )
    with pytest.raises(ValueError, match="declared but not defined"):
        source.read_method(path, "declared")
    with pytest.raises(ValueError, match="do not balance"):
        source.read_method(path, "broken")


def test_read_lines_and_source_block(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("a\nbegin\nb\nend\nc\n")
    assert source.read_lines(path, "begin", "end") == "begin\nb\nend"
    assert source.read_lines(path, "b") == "begin\nb\nend\nc"
    assert source.read_lines(path, last="begin") == "a\nbegin"
    with pytest.raises(ValueError, match="not found"):
        source.read_lines(path, "missing")
    with pytest.raises(ValueError, match="not found after"):
        source.read_lines(path, "end", "begin")
    block = source.source_block("int x;")
    assert isinstance(block, Markdown) and block.data == "```cpp\nint x;\n```"
    titled = source.source_block("int x;", title="kernel/x.h")
    assert titled.data == "```cpp\n// kernel/x.h\nint x;\n```"
