# mishgrad: the two commands a newcomer needs are `make lab` and `make test`.
# Both bootstrap .venv from requirements.txt (the one place for pins) on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Where `make lab` serves JupyterLab; override e.g. `make lab LAB_PORT=9999`.
LAB_PORT ?= 8888
LAB_ARGS ?=
# Jupyter refuses to run as root unless told; CI and containers run as root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
NOTEBOOKS ?= notebooks/*.ipynb notebooks/zh-CN/*.ipynb
# `make lab LAB_LANGUAGE=zh-CN` opens the Chinese notebooks (notebooks/zh-CN).
LAB_LANGUAGE ?= en
LAB_TREE := notebooks$(if $(filter zh-CN,$(LAB_LANGUAGE)),/zh-CN,)
NBVAL_ARGS := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# pytest-xdist: a notebook's cells stay together, in order, on one worker. -n auto is one worker
# per core on the twin, and one in all on CANN (tests/conftest.py: every session sets device 0).
TEST_WORKERS ?= -n auto --dist loadfile
# Debian packages a target needs, installed only when it finds them missing (as root, or
# through sudo without a password); where it cannot, it says what is missing and stops.
INSTALL_MISSING := bash tools/install_missing.sh
# What `make format` rewrites: the sources, never the notebooks, whose code cells may hold a
# learner's answers and notes (`make lint` still checks the notebooks, without changing them).
FORMATTED := mishgrad tests bench docs tools kernel
# FORCE=1: `make notebooks` regenerates a Chinese notebook even where its code or text is not
# what the generator wrote (typed in by a learner), after a backup to build/backup/.
FORCE ?=
TRANSLATE := $(BIN)/python -m tools.production.notebook_translation build$(if $(filter 1,$(FORCE)), --force,)

.PHONY: help venv lab test npu-rehearsal check lint format notebooks translations fonts bench notebook-times exhaustive twin example cann-check opsnn-check ut gtest shellcheck site browser test-site clean

help:
	@echo "make lab        set up .venv if needed and start JupyterLab on notebooks/ (LAB_LANGUAGE=zh-CN: 中文)"
	@echo "make test       set up .venv if needed, then lint, unit tests and nbval on every notebook"
	@echo "make npu-rehearsal  the NPU runner's test run (MISHGRAD_BACKEND=ascend) on a stand-in CANN"
	@echo "                posing as a 910B3 (NPU_REHEARSAL=the tests and notebooks; default a subset)"
	@echo "make check      the fast loop: lint and every test not marked slow (a stale translation warns)"
	@echo "make notebooks  regenerate the Chinese notebooks, then re-execute every notebook top to bottom,"
	@echo "                storing outputs (NOTEBOOKS=notebooks/05_*.ipynb: some); it stops where a"
	@echo "                Chinese cell was typed in (FORCE=1: back it up to build/backup/, regenerate)"
	@echo "make translations  check that translations/zh-CN is in step with the English notebooks"
	@echo "make twin       build the CPU twin of the kernel (otherwise built on first use)"
	@echo "make example    build and run the C++ aclnn example (kernel/mish_grad/examples) against the twin"
	@echo "make cann-check compile the Ascend-side sources against CANN's headers (CANN_HEADERS=dir or .tar.xz)"
	@echo "make opsnn-check run ops-nn's own build.sh on kernel/mish_grad (OPSNN_CHECK=kit folder; OPSNN_ARGS=--self-test;"
	@echo "                OPSNN_SOC=the --soc list, default ascend910b,ascend910_93)"
	@echo "make ut         the operator's ops-nn-format unit tests (kernel/mish_grad/tests/ut) on the twin"
	@echo "make bench      print the accuracy tables and the kernel's instruction counts and throughput"
	@echo "make notebook-times  time every notebook (first run and warm) and restate the book's run times"
	@echo "make exhaustive the float32 kernel on every float32 input, on the twin or an NPU (resumable)"
	@echo "make format     format the Python sources with ruff (the notebooks are left alone)"
	@echo "make site       build the static site (docs/_build/html) from the notebooks' stored outputs"
	@echo "make test-site  build the site, then open every page and notebook 04 in JupyterLab headless"

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "mishgrad needs Python >= 3.10; found " + sys.version.split()[0] + " (set PYTHON=python3.x)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --editable .
	touch $(STAMP)

# news_url=None: JupyterLab does not ask a learner about its announcements feed.
lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/$(LAB_TREE) \
		--LabApp.news_url=None --ServerApp.port=$(LAB_PORT) $(ALLOW_ROOT) $(LAB_ARGS)

# lint-imports: the package's layers and acyclic imports (the contracts in pyproject.toml).
lint: $(STAMP) shellcheck
	$(BIN)/ruff check $(FORMATTED) notebooks
	$(BIN)/ruff format --check $(FORMATTED) notebooks
	$(BIN)/lint-imports --no-cache
	$(BIN)/python tools/shell_check.py

# ShellCheck for the shell scripts and the workflows' run blocks (tools/shell_check.py):
# Debian's shellcheck, installed when missing, like gtest below.
shellcheck:
	@command -v shellcheck >/dev/null || $(INSTALL_MISSING) ShellCheck shellcheck

format: $(STAMP)
	$(BIN)/ruff check --fix $(FORMATTED)
	$(BIN)/ruff format $(FORMATTED)

# gtest for the operator's unit tests: Debian's libgtest-dev, installed when missing, like the
# browser target below.
GTEST_HEADER ?= /usr/include/gtest/gtest.h

gtest:
	@[ -f "$(GTEST_HEADER)" ] || $(INSTALL_MISSING) "gtest ($(GTEST_HEADER))" libgtest-dev

# The operator's ops-nn-format unit tests (kernel/mish_grad/tests/ut) on the twin, in gtest:
# tiling and infershape, aclnnMishBackward's checks, the kernel on golden data for each dtype
# (tools/ut.py).
ut: $(STAMP) gtest
	$(BIN)/python -m tools.ut

# The Chinese notebooks' figures need a font with Chinese glyphs: Debian's fonts-noto-cjk,
# installed when fontconfig knows no Simplified Chinese font.
fonts:
	@fc-list :lang=zh-cn family 2>/dev/null | grep -q . || \
		$(INSTALL_MISSING) "a Simplified Chinese font (fontconfig)" fontconfig fonts-noto-cjk

# MISHGRAD_BACKEND=ascend runs the aclnn layer on CANN: source CANN's set_env.sh first.
# The notebooks' scratch copies go to build/test-scratch (MISHGRAD_SCRATCH, set by
# tests/conftest.py), so a run beside JupyterLab never touches the learner's build/scratch.
test: lint ut fonts
	@case "$$MISHGRAD_BACKEND" in ascend|ascend-builtin) if [ -z "$$ASCEND_HOME_PATH" ]; then \
		echo "MISHGRAD_BACKEND=$$MISHGRAD_BACKEND needs CANN's environment: source /usr/local/Ascend/cann/set_env.sh" >&2; \
		exit 2; fi;; esac
	MISHGRAD_BUILD_PROGRESS=0 $(BIN)/python -m pytest tests notebooks --ignore=tests/browser \
		$(NBVAL_ARGS) $(TEST_WORKERS)

# The test run of the Ascend workflow's last step (MISHGRAD_BACKEND=ascend: one worker, nbval's
# sanitizers for the NPU), rehearsed on a stand-in CANN made of the twin that poses as a 910B3,
# 40 vector cores where the notebooks were recorded with 48 (tools/npu_rehearsal.py). By default
# the tests and notebooks whose calls go to the selected backend (seconds); everything, with one
# worker (12 minutes on two cores): NPU_REHEARSAL="tests notebooks --ignore=tests/browser".
NPU_REHEARSAL ?= tests/test_acl.py tests/test_errors.py tests/test_ascend_backend.py \
	tests/test_example.py notebooks/00_*.ipynb notebooks/zh-CN/00_*.ipynb notebooks/08_*.ipynb \
	notebooks/09_*.ipynb

npu-rehearsal: export MISHGRAD_BACKEND := ascend
npu-rehearsal: $(STAMP) fonts
	MISHGRAD_BUILD_PROGRESS=0 $(BIN)/python -m tools.npu_rehearsal \
		$(BIN)/python -m pytest $(NPU_REHEARSAL) $(NBVAL_ARGS) $(TEST_WORKERS)

# The fast loop while editing: lint, then every test not marked `slow` (no nbval, ASan, browser,
# scratch-copy rebuilds or fuzzing: pyproject.toml registers the marker). A Chinese translation
# that lags an English edit is a warning here and a failure in `make test`, the whole gate.
check: lint fonts
	MISHGRAD_BUILD_PROGRESS=0 $(BIN)/python -m pytest tests --ignore=tests/browser -m "not slow" \
		--stale-translations=warn $(TEST_WORKERS)

# The Chinese notebooks are generated from the English ones and translations/zh-CN
# (tools/production/notebook_translation.py), then executed like them.
translations: $(STAMP)
	$(BIN)/python -m tools.production.notebook_translation check

# The notebooks run with the learner's scratch root (build/scratch), the path their stored
# outputs show; they reset only a copy of their own (06-demo), never NN.
notebooks: $(STAMP) fonts
	$(TRANSLATE)
	MISHGRAD_BUILD_PROGRESS=0 $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.record_timing=False --ExecutePreprocessor.timeout=600 \
		$(NOTEBOOKS)

bench: $(STAMP)
	$(BIN)/python bench/accuracy.py
	$(BIN)/python bench/kernel.py
	$(BIN)/python bench/session_memory.py

# Every notebook timed from an empty build cache and warm (minutes); then every run-time
# statement of the book (notebook openings, translations, READMEs) rewritten from the result.
notebook-times: $(STAMP) fonts
	$(BIN)/python bench/notebook_times.py
	$(BIN)/python -m tools.production.run_time --write
	$(TRANSLATE)

# Every float32 input through aclnnMishBackward against the correctly rounded d, then every
# finite float16 and bfloat16 input: on the twin under each numerics model (writes
# bench/results/exhaustive.{json,md}), or with MISHGRAD_BACKEND=ascend on an NPU (writes
# exhaustive-ascend-<SoC>.{json,md} beside them). Interrupted, it resumes from build/exhaustive/
# when run again. Not part of `make test` (strides of it are, on the twin and a stand-in NPU).
# EXHAUSTIVE_ARGS: e.g. "--stride 16 --models ieee", "--backend ascend --stride 4096".
EXHAUSTIVE_ARGS ?=
exhaustive: $(STAMP)
	$(BIN)/python bench/exhaustive.py $(EXHAUSTIVE_ARGS)

twin: $(STAMP)
	$(BIN)/python -c "from mishgrad.kernel import twin_build; print(twin_build.build())"

# The C++ aclnn example, built with the twin's acl/aclnn headers and linked against the twin
# library (mishgrad/aclnn/example.py). On an Ascend host, kernel/mish_grad/examples/run.sh builds the
# same source against CANN.
example: $(STAMP)
	$(BIN)/python -m mishgrad.aclnn.example

# Every Ascend-side source compiled with g++ -fsyntax-only -Werror against CANN's own headers,
# with ops-nn's include directories, plus a self-test of planted API misuses
# (tools/cann_check/check.py). CANN_HEADERS: a directory or .tar.xz of CANN's header trees;
# without it, the CANN at ASCEND_HOME_PATH (plus OPBASE_SOURCE_PATH and OPS_NN_DIR).
cann-check: $(STAMP)
	$(BIN)/python tools/cann_check/check.py

# ops-nn's own build.sh on the operator folder (kernel/mish_grad: check.sh finds it), offline:
# OPSNN_CHECK is a kit folder (check.sh and kit.tar.xz: a trimmed ops-nn with stand-ins for CANN's closed tools), an input like
# CANN_HEADERS and never committed. OPSNN_ARGS=--self-test also plants operator faults that must
# fail. OPSNN_SOC is build.sh's --soc list, the package's SoCs (mishgrad.kernel.opsnn.SOCS): the
# kit fails if the compiled op definition has no config for one of them. Its README says what it
# checks and what it cannot.
OPSNN_CHECK ?=
OPSNN_ARGS ?=
OPSNN_SOC ?= ascend910b,ascend910_93

opsnn-check:
	@if [ ! -f "$(OPSNN_CHECK)/check.sh" ]; then \
		echo "make opsnn-check needs the kit: OPSNN_CHECK=<folder with check.sh and kit.tar.xz>" >&2; \
		exit 2; fi
	@# the kernel's identity header (generated, never committed): the kit copies it with the folder
	$(PYTHON) -m tools.identity kernel/mish_grad >/dev/null
	OPSNN_SOC="$(OPSNN_SOC)" bash "$(OPSNN_CHECK)/check.sh" $(OPSNN_ARGS) "$(CURDIR)"

# The site: Sphinx + myst-nb over the notebooks' stored outputs (nothing is executed), MathJax
# copied from a pinned package, so it builds and renders offline. Warnings are errors.
SITE_DIR := docs/_build/html

SPHINX := $(BIN)/sphinx-build -b html -W --keep-going -E -q

# The English site at the root, the Chinese one (docs/zh-CN) in its zh-CN/ folder.
site: $(STAMP)
	rm -rf $(SITE_DIR)  # no page of a renamed notebook survives
	$(SPHINX) -d docs/_build/doctrees docs $(SITE_DIR)
	$(SPHINX) -d docs/_build/doctrees-zh-CN docs/zh-CN $(SITE_DIR)/zh-CN
	@echo "site: $(SITE_DIR)/index.html, $(SITE_DIR)/zh-CN/index.html"

# The browser tests drive Debian's chromium through chromedriver; install both when missing.
# Another Chrome: `make test-site CHROMIUM=... CHROMEDRIVER=...`.
CHROMIUM ?= /usr/bin/chromium
CHROMEDRIVER ?= /usr/bin/chromedriver
export CHROMIUM CHROMEDRIVER

browser: fonts
	@if [ ! -x "$(CHROMIUM)" ] || [ ! -x "$(CHROMEDRIVER)" ]; then \
		$(INSTALL_MISSING) "$(CHROMIUM) and $(CHROMEDRIVER)" chromium chromium-driver; fi

# Every page of the site headless (console errors, images, math; a screenshot each in
# build/site-screenshots), and notebook 04 in a running JupyterLab. `make test` leaves
# tests/browser out.
test-site: site browser
	$(BIN)/python -m pytest tests/browser

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache docs/_build
