"""ShellCheck over every shell script of the repository and every workflow's ``run:`` block.

The scripts are the tracked files that start with a bash shebang; a workflow's blocks are the
``run:`` steps of ``.github/workflows/*.yml`` whose shell is bash, each checked as a script of
its own (GitHub's ``${{ ... }}`` expressions become a placeholder variable first). Prints
every finding with the file (and step) it is in, and exits with status 1 if there is one.
``make lint`` runs it; Debian's ``shellcheck`` must be installed (``make shellcheck``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
EXPRESSION = re.compile(r"\$\{\{[^}]*\}\}")


def scripts() -> list[Path]:
    """Tracked files whose first line is a bash shebang."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in tracked:
        path = ROOT / name
        if path.is_file() and path.suffix not in {".ipynb", ".py"}:
            with path.open("rb") as file:
                first = file.readline()
            if first.startswith(b"#!") and b"bash" in first:
                found.append(path)
    return found


def run_blocks(workflow: Path) -> Iterator[tuple[str, str]]:
    """``(step name, script)`` for each bash ``run:`` block of a workflow."""
    document = yaml.safe_load(workflow.read_text())
    for job_name, job in (document.get("jobs") or {}).items():
        default = ((job.get("defaults") or {}).get("run") or {}).get("shell", "bash")
        for index, step in enumerate(job.get("steps") or []):
            if "run" in step and step.get("shell", default) == "bash":
                name = step.get("name", f"step {index + 1}")
                body = EXPRESSION.sub("${GITHUB_EXPRESSION}", step["run"])
                yield f"{job_name}: {name}", "#!/usr/bin/env bash\n" + body


def shellcheck(path: Path) -> str:
    """ShellCheck's findings for one file ("" if clean)."""
    result = subprocess.run(
        ["shellcheck", "--shell=bash", "--format=gcc", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip()


def main() -> int:
    """Check everything; print the findings (or that there are none); 1 if any."""
    findings = []
    for path in scripts():
        if report := shellcheck(path):
            findings.append(report.replace(str(ROOT) + "/", ""))
    with tempfile.TemporaryDirectory() as folder:
        for workflow in sorted((ROOT / ".github" / "workflows").glob("*.yml")):
            for index, (step, body) in enumerate(run_blocks(workflow)):
                block = Path(folder) / f"block{index}.sh"
                block.write_text(body)
                if report := shellcheck(block):
                    where = f"{workflow.relative_to(ROOT)} ({step})"
                    findings.append(report.replace(str(block), where))
    checked = len(scripts())
    print(
        "\n".join(findings)
        if findings
        else f"shellcheck: {checked} scripts and every workflow run block clean"
    )
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
