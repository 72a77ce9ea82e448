"""The C++ example of the aclnn call (``examples/test_aclnn_mish_grad.cpp``) against the twin.

``make example`` and notebook 09 both come here: the program is compiled with the system
C++ compiler against the twin's CANN headers, linked to the twin library, and run. The
binary is cached beside the twin library it links, keyed by a hash of the source, the flags
and the compiler (``$CXX``, read as every build of the project reads it), and used only if it
is the file that was written.

Run as ``python -m mishgrad.aclnn.example``.
"""

import os
import subprocess
import sys
from pathlib import Path

from mishgrad.kernel import compile_units, identity, opsnn, twin_build
from mishgrad.kernel.source import OPERATOR_DIR, TWIN_DIR

SOURCE = OPERATOR_DIR / "examples" / "test_aclnn_mish_grad.cpp"
FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror"]


def build() -> Path:
    """Compile the example (if its source or the twin changed); return the binary's path.

    Raises
    ------
    mishgrad.kernel.twin_build.TwinBuildError
        If the compiler is missing or the source does not compile.
    """
    library = twin_build.build()
    compiler = compile_units.compiler_command()
    key = compile_units.digest(SOURCE.read_bytes(), repr(FLAGS), repr(compiler))
    binary = library.parent / f"test_aclnn_mish_grad-{key}"
    if compile_units.verified(binary):
        return binary
    # twin/include stands in for $ASCEND_HOME_PATH/include; the rest is what ops-nn and
    # run.sh give the example
    includes = [f"-I{TWIN_DIR / 'include'}", *opsnn.include_flags("example", OPERATOR_DIR)]
    partial = binary.with_suffix(f".{os.getpid()}.partial")
    command = [
        *compiler, *FLAGS, *includes, str(SOURCE), "-o", str(partial),
        str(library), f"-Wl,-rpath,{library.parent}",
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise twin_build.TwinBuildError(f"compiling {SOURCE.name} failed:\n{result.stderr.strip()}")
    compile_units.publish_record(partial, binary.with_suffix(".json"))
    os.replace(partial, binary)  # atomic, like the twin library
    return binary


def run() -> subprocess.CompletedProcess[str]:
    """Build and run the example, given the checkout's identity; its output is in ``.stdout``."""
    command = [str(build()), identity.of(OPERATOR_DIR)]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def main() -> int:
    """Build, run and print the example's output (``make example``)."""
    result = run()
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
