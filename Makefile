# Two commands for a newcomer: `make sim` and `make test`. Everything else is for owners and CI.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: sim test lint format bench explore clean install uninstall systest pitest pibench hwtest bundle bundletest

# First run: about half a minute, one line per step (pip's own chatter stays quiet).
# --prefer-binary, as the installer: where a library's newest release has no wheel for this CPU
# (cbor2 6, luma.core's, needs Rust on armv7l) the newest one that has a wheel is taken.
$(STAMP): pyproject.toml
	@echo "==> setting up $(VENV) (first run only; about half a minute)"
	@test -x $(BIN)/python || { echo "==> creating the virtual environment $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "==> updating pip"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	@echo "==> installing trap-companion and its libraries (Pillow, luma, gpiozero, pyserial, aiohttp, pytest, playwright, ruff)"
	@# setuptools' notice box on every editable install of a flat layout says nothing to act on
	@PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet --disable-pip-version-check --prefer-binary -e '.[dev]'
	@touch $(STAMP)
	@echo "==> ready"

sim: $(STAMP)
	@echo "==> starting the simulator (q quits)"
	$(BIN)/trap-companion sim

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@test -x /usr/bin/chromium && echo "==> browser tests: Chromium found at /usr/bin/chromium" \
	  || echo "==> browser tests SKIPPED: no /usr/bin/chromium (sudo apt-get install chromium)"
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/trap-companion bench

# The long exploration of the box's flow (issue 43): a million steps across the six games, every
# screen drawn; the suite runs a short one (tests/test_explore.py). EXPLORE_ARGS adds options.
explore: $(STAMP)
	$(BIN)/trap-companion explore --steps 1000000 --scripts explore-failures $(EXPLORE_ARGS)

install:
	bash systemd/install.sh

# One file that installs the box with no network (docs/raspberry-pi.md, "Install from one file"):
# dist/trap-companion-<version>-<arch>-py<XY>.tar, on any machine (tools/bundle/build.py).
# ARCH=arm64|armhf|amd64 (default: this machine's), PY=3.11 (bookworm) or 3.13 (trixie), or
# SUITE=bookworm|trixie; BUNDLE_ARGS=--emulate builds what PyPI lacks (Pillow on armhf) in the
# emulated root of make pitest (root).
BUNDLE_PY = $(or $(PY),$(if $(filter trixie,$(SUITE)),3.13,3.11))
bundle:
	@$(PYTHON) tools/bundle/build.py --arch $(or $(ARCH),native) $(if $(ARCH),--python $(BUNDLE_PY)) $(BUNDLE_ARGS)

# The owner's install from one file on the Pi's CPU under QEMU with no network (root; the
# emulated root of make pitest): damaged bundles refused, the install, the same file again
# (tools/bundle/offline.py). About 2.5 minutes on arm64 with the root and wheels cached; armhf
# needs its root (tools/pitest/piroot.py armhf) and Pillow built once (make bundle ... --emulate).
bundletest:
	@test -n "$(ARCH)" || { echo "make bundletest: say which CPU: ARCH=arm64 or ARCH=armhf"; exit 2; }
	@$(PYTHON) tools/bundle/offline.py --arch $(ARCH) --python $(BUNDLE_PY)

uninstall:
	bash systemd/uninstall.sh

# The box installed and checked under a real systemd in a booted Debian 12 container (root,
# systemd-nspawn, debootstrap; docs/raspberry-pi.md). Needs no venv: only python3.
# ARCH=arm64 or ARCH=armhf: the same on the Pi's CPU, emulated by QEMU (qemu-user-static,
# binfmt-support; tools/pitest/piroot.py), with budgets for its pace.
# SUITE=trixie (Debian 13, Python 3.13) for systest and pitest: a root of its own beside the
# default bookworm one (~/.cache/trap-companion/systest-trixie, pi-ARCH-trixie).
systest:
	@$(PYTHON) tools/systest/systest.py $(if $(ARCH),--arch $(ARCH)) $(if $(SUITE),--suite $(SUITE))

# The test suite on the Pi's CPU under QEMU (ARCH=arm64 or armhf), installed as an owner installs
# it, beside the same tests run natively (hence the venv); PITEST_ARGS=--ci runs CI's part only;
# PITEST_ARGS=--shard K/N part K of N of the whole suite (N runs side by side: all of it once),
# PITEST_ARGS='--tests tests/test_x.py::name' only those.
pitest: $(STAMP)
	@test -n "$(ARCH)" || { echo "make pitest: say which CPU: ARCH=arm64 or ARCH=armhf"; exit 2; }
	@$(PYTHON) tools/pitest/pitest.py --arch $(ARCH) $(if $(SUITE),--suite $(SUITE)) $(PITEST_ARGS)

# The box through real kernel drivers in a booted Debian 12 arm64 VM under qemu-system-aarch64
# (root; tools/hwtest/hwtest.py, docs/raspberry-pi.md): buttons on gpio-sim, the OLED on a
# recording I2C adapter, card readers on PCI UARTs. HWTEST_FAULT=lose-press|wrong-frame|miss-card
# patches the box in the VM to show the checks fail. HWTEST_REPEAT=glitch,bounce:30 repeats those
# checks in one boot; HWTEST_ONLY=glitch,bounce leaves the others out.
hwtest: $(STAMP)
	@test -n "$(ARCH)" || { echo "make hwtest: say which CPU: ARCH=arm64"; exit 2; }
	@$(BIN)/python tools/hwtest/hwtest.py --arch $(ARCH) $(HWTEST_ARGS)

# `trap-companion bench --pi-class` on the emulated CPU and here in the same run, side by side
# (PIBENCH_ARGS=--alone: one after the other, so neither takes CPU from the other).
pibench: $(STAMP)
	@test -n "$(ARCH)" || { echo "make pibench: say which CPU: ARCH=arm64 or ARCH=armhf"; exit 2; }
	@$(PYTHON) tools/pitest/pitest.py --arch $(ARCH) --bench $(PIBENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
