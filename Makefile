# Aida: `make run` sets up and starts Aida; `make test` sets up and runs the whole test suite;
# `make test-fast` runs the tests not marked slow (no speech model, no crash drills): the inner loop.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed

# Debian/Ubuntu packages: PortAudio (microphone), Xvfb + trayer (headless tray tests), espeak-ng and sox
# (spoken test audio), git, and the xcb libraries Qt needs for a real window.
APT_PACKAGES := git libportaudio2 xvfb trayer x11-utils espeak-ng sox \
	libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-xinerama0 libxcb-xkb1 \
	libxcb-cursor0 libxcb-shape0 libxcb-randr0 libxkbcommon-x11-0 libegl1 libgl1 libfontconfig1 libdbus-1-3 \
	libglib2.0-0

.PHONY: run test test-fast lint install system-deps gpu bench package demo clean mutate

run: install
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		$(VENV)/bin/aida tray; \
	else \
		echo "No display found (neither DISPLAY nor WAYLAND_DISPLAY is set): running the headless demo instead."; \
		$(VENV)/bin/aida demo; \
	fi

test: install
	$(PY) -m pytest -q
	$(MAKE) --no-print-directory lint

# ruff (the classic rules and sorted imports) and mypy on brain_core, as configured in pyproject.toml.
lint: install
	$(VENV)/bin/ruff check brain_core app tests benchmarks tools scripts
	$(VENV)/bin/mypy

test-fast: install
	$(PY) -m pytest -q -m "not slow"

# Mutation testing of the core (mutmut; see docs/MUTATION.md): not part of `make test`. One worker at the
# lowest priority, about 45 minutes in all; MUTATE_BUDGET_S, MUTATE_JOBS and module names narrow it.
mutate: install
	nice -n 19 $(PY) tools/mutate.py $(MODULES)

install: system-deps $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	@touch $(STAMP)

system-deps:
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
		for p in $(APT_PACKAGES); do \
			dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
		done; \
	fi; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "Installing system packages:$$missing"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
		else \
			echo "Some system packages are missing; install them with:"; \
			echo "  sudo apt-get install$$missing"; \
			echo "(Aida still runs without them: no microphone without libportaudio2, no tray tests without xvfb/trayer.)"; \
		fi; \
	fi

# The CUDA build of onnxruntime, installed last: installing faster-whisper after it would put the CPU build back.
gpu: install
	$(PIP) install -q 'onnxruntime-gpu>=1.17'
	$(VENV)/bin/aida doctor

bench: install
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_router.py
	$(PY) benchmarks/bench_harvest.py
	$(PY) benchmarks/bench_redact.py
	$(PY) benchmarks/bench_voice.py
	$(PY) benchmarks/bench_tray.py

package: install
	$(PIP) install -q -e '.[package]'
	$(VENV)/bin/pyinstaller --noconfirm packaging/aida.spec

demo: install
	$(VENV)/bin/aida demo

clean:
	rm -rf build dist .pytest_cache
