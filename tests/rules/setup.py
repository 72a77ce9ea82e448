"""The setup: requirements.txt is the one place for pins, and environment.yml and Binder follow it.

``make lab`` and ``make test`` install from requirements.txt; conda users and Binder install
environment.yml, which must carry the same versions and install the package itself. Binder
then runs postBuild (the CPU twin built into the image) and installs apt.txt (the Chinese
figures' font); both READMEs launch it, in either language.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rules.shared import ROOT, Rule, planted_file, text

REQUIREMENTS = "requirements.txt"
ENVIRONMENT = "environment.yml"
PIN = re.compile(r"([A-Za-z0-9_.-]+)==([0-9][^\s]*)")
#: A conda-forge pin (name=version) or, under pip:, a PyPI one (name==version).
CONDA_PIN = re.compile(r"\s+- ([A-Za-z0-9_.-]+)==?([^=\s]+)")
BINDER = "https://mybinder.org/v2/gh/mishgrad/mishgrad/HEAD?urlpath=lab/tree/notebooks"
READMES = ("README.md", "README.zh-CN.md")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(root: Path) -> list[str]:
    """requirements.txt's requirements, comments left out."""
    lines = (line.split("#")[0].strip() for line in text(root / REQUIREMENTS).splitlines())
    return [line for line in lines if line]


def unpinned(root: Path) -> list[str]:
    """Requirements not pinned to one version with ``==``."""
    return [
        f"{REQUIREMENTS}: {line} is not pinned exactly (name==version)"
        for line in _requirements(root)
        if not PIN.fullmatch(line)
    ]


def pin_drift(root: Path) -> list[str]:
    """Packages whose environment.yml version is not requirements.txt's."""
    pip = {
        _normalized(match.group(1)): match.group(2)
        for match in map(PIN.fullmatch, _requirements(root))
        if match
    }
    conda = {
        _normalized(match.group(1)): match.group(2)
        for match in map(CONDA_PIN.fullmatch, text(root / ENVIRONMENT).splitlines())
        if match and match.group(1) != "python"
    }
    return [
        f"{ENVIRONMENT}: {name} {conda.get(name, 'missing')}, "
        f"{REQUIREMENTS}: {pip.get(name, 'missing')}"
        for name in sorted(conda.keys() | pip.keys())
        if conda.get(name) != pip.get(name)
    ]


def local_install(root: Path) -> list[str]:
    """environment.yml's pip section must end by installing this package (editable)."""
    pip = r"- pip:\n(\s+(#.*|- \S+==\S+)\n)*\s+- --editable \."
    if re.search(pip, text(root / ENVIRONMENT)):
        return []
    return [f"{ENVIRONMENT}: its pip: section does not install the package (- --editable .)"]


def binder_problems(root: Path) -> list[str]:
    """What Binder needs: an executable postBuild that builds the twin, g++, the font, links."""
    problems = []
    post_build = root / "postBuild"
    if not os.access(post_build, os.X_OK):
        problems.append("postBuild is not executable")
    if "twin_build.build()" not in text(post_build):
        problems.append("postBuild does not build the twin (twin_build.build())")
    if not re.search(r"^\s+- (gxx|cxx-compiler)\b", text(root / ENVIRONMENT), re.M):
        problems.append(f"{ENVIRONMENT} installs no C++ compiler (gxx)")
    if "fonts-noto-cjk" not in text(root / "apt.txt").split():
        problems.append("apt.txt does not install fonts-noto-cjk (the Chinese figures' font)")
    if f"({BINDER})" not in text(root / "README.md"):
        problems.append(f"README.md does not launch Binder: ({BINDER})")
    problems += [
        f"{readme} does not launch the Chinese edition on Binder: ({BINDER}/zh-CN)"
        for readme in READMES
        if f"({BINDER}/zh-CN)" not in text(root / readme)
    ]
    return problems


def _with_requirements(tmp: Path, environment: str) -> Path:
    """A planted copy of both pin files: the real requirements.txt, ``environment``."""
    planted_file(tmp, REQUIREMENTS, text(ROOT / REQUIREMENTS))
    planted_file(tmp, ENVIRONMENT, environment)
    return tmp


def _loose_pin(tmp: Path) -> list[str]:
    planted_file(tmp, REQUIREMENTS, text(ROOT / REQUIREMENTS) + "pytest-cov>=5\n")
    return unpinned(tmp)


def _other_version(tmp: Path) -> list[str]:
    environment = text(ROOT / ENVIRONMENT).replace("  - sympy=", "  - sympy=0.", 1)
    return pin_drift(_with_requirements(tmp, environment))


def _no_local_install(tmp: Path) -> list[str]:
    environment = re.sub(r"\n\s+- --editable \.$", "", text(ROOT / ENVIRONMENT), flags=re.M)
    return local_install(_with_requirements(tmp, environment))


def _post_build_not_executable(tmp: Path) -> list[str]:
    for name in ("postBuild", ENVIRONMENT, "apt.txt", *READMES):
        planted_file(tmp, name, text(ROOT / name))  # written anew: no executable bit
    return binder_problems(tmp)


RULES = [
    Rule(
        "every requirement is pinned exactly",
        lambda: unpinned(ROOT),
        _loose_pin,
        ("pytest-cov>=5 is not pinned",),
    ),
    Rule(
        "environment.yml carries the pins of requirements.txt",
        lambda: pin_drift(ROOT),
        _other_version,
        ("environment.yml: sympy 0.",),
    ),
    Rule(
        "environment.yml installs the package itself",
        lambda: local_install(ROOT),
        _no_local_install,
        ("does not install the package",),
    ),
    Rule(
        "Binder builds the twin and installs the font, and both READMEs launch it",
        lambda: binder_problems(ROOT),
        _post_build_not_executable,
        ("postBuild is not executable",),
    ),
]
