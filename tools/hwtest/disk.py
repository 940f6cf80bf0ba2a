#!/usr/bin/env python3
"""`make hwtest ARCH=arm64`: the box through real kernel drivers in a booted arm64 VM.

Debian 12 for arm64 boots under qemu-system-aarch64 (TCG, -M virt -cpu cortex-a72, the Pi 4's
core) from Debian's own kernel, with the pieces a Pi has and the VM lacks: gpio-sim (buttons,
LED and buzzer lines, gpiochip0), i2c-record (bus 1, the OLED at 0x3c: every write kept) and two
PCI 16550 UARTs wired to the host (/dev/serial0 for the RDM6300, /dev/ttyS1 for the PN532, each
driven by the project's fake reader on a host pty). The image is built once per recipe
(recipe.toml) into the cache; each run boots a throw-away overlay on it, so the image never
changes, and installs this checkout with the owner's installer (`make install`, offline from a
wheelhouse). The unit is the one shipped: no drop-in.

Then checks, one PASS or FAIL line each with its figures: the frame at start; the six buttons
pressed and long-pressed through the line bias, each frame read back from the bus and compared
pixel for pixel with what the simulator draws for the same presses; a 3 ms glitch and a
bouncing press (applied again when host load stretched them past what they must prove, the
simulator given each exactly as applied); the LED's colour and the buzzer read back from the
output lines; an RDM6300 card at real baud pacing, shown and in the daemon's log; the reader
unplugged and back; the panel gone and back; the PN532 (config switched to it on /dev/ttyS1,
the box restarted) with a card from the fake PN532; a power cut mid-game and the game resumed
on the next boot; the figures (press to first I2C write, card to panel, READY).

HWTEST_FAULT=lose-press|wrong-frame|miss-card patches the installed copy in the VM to show that
the checks catch such a box (they must FAIL).

HWTEST_REPEAT=glitch,bounce:20 runs the named checks 20 times each in the one boot (one PASS or
FAIL line each: the runs that passed, the tries each took, the figures' spread); HWTEST_ONLY=
glitch,bounce leaves out the checks not named (install and the frame at start always run).

Exit status: 0 every check passed, 1 one failed, 2 bad command line, 77 this machine cannot run
it (one line says why: not root, no qemu-system-aarch64).
"""

from __future__ import annotations

import argparse
import base64
import collections
import contextlib
import copy
import fcntl
import hashlib
import itertools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tools" / "systest"))
sys.path.insert(0, str(REPO / "tools" / "pitest"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import archive  # noqa: E402  (tools/systest/archive.py: Debian's lists, versions, choosers)
import piroot  # noqa: E402  (tools/pitest/piroot.py: the cached arm64 root)
import ssd1306  # noqa: E402
import systest  # noqa: E402  (tools/systest/systest.py: Log, checkout_files, host_pip)

RECIPE = HERE / "recipe.toml"
IMAGE = HERE / "image"  # what the image gets besides the root and the kernel (all in the digest)
EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 0, 1, 2, 77
# Host packages the tool needs; installed with apt-get when missing (CI runs as root).
HOST_PACKAGES = {
    "aarch64-linux-gnu-gcc-12": "gcc-12-aarch64-linux-gnu",
    "make": "make",
    "dtc": "device-tree-compiler",
    "qemu-img": "qemu-utils",
    "mke2fs": "e2fsprogs",
    "depmod": "kmod",
    "cpio": "cpio",
    "debootstrap": "debootstrap",
    "qemu-aarch64-static": "qemu-user-static",
    "update-binfmts": "binfmt-support",
    # QEMU's virtio NIC ROM: qemu-system-arm only recommends it, and -M virt will not start
    # without it ("failed to find romfile efi-virtio.rom"), even to dump its device tree.
    "/usr/share/qemu/efi-virtio.rom": "ipxe-qemu",
}
# Guards against a hang, never timing assertions: generous, and a check that reaches one fails.
BOOT_GUARD = 300.0
COMMAND_GUARD = 120.0
INSTALL_GUARD = 1500.0
FRAME_GUARD = 60.0
QUIET_GUARD = 15.0  # a differing panel without a write this long is final (a frame: 0.3 s p99)
AGENT_PORT = "hwtest.agent"
VIRTFS = "security_model=none,readonly=on"
SHARE_TAG = "hwtest"
CLONE = "/root/trap-companion"
STATE = "/var/lib/trap-companion"
CONFIG = "/etc/trap-companion/config.toml"
UNIT = "trap-companion.service"
BAUD_RDM6300 = 9600
# Buttons (BCM) and outputs of the config as installed (companion/data/config.example.toml).
BUTTONS = {"up": 5, "down": 6, "ok": 13, "back": 19, "green": 26, "red": 21}
LED = {"red": 17, "green": 27, "blue": 22}
BUZZER = 18
PRESS_SECONDS = 0.1
GLITCH_SECONDS = 0.003
DEBOUNCE_MS = 5.0  # debounce_ms in the config as installed: a glitch must be shorter
GLITCH_VALID_MS = DEBOUNCE_MS - 1.0  # a pulse applied longer is no glitch: applied again
STIMULUS_TRIES = 20  # a try takes 2-5 s; at load 14 eleven in a row were stretched once
STRETCHED_QUIET = 3.0  # s without an I2C write: the box has drawn what a stretched try made
DEBOUNCE_BAND_MS = 1.0  # the simulator's pulse on the side of the debounce the box took
LED_TOLERANCE = 0.1  # a duty cycle estimated from samples of the line
HOLD_SECONDS = 1.5  # hold_seconds is 1.0
GLASS_PRESSES = 32  # down and up in turn on the start menu: each one a frame (issue 46)
BUZZER_SAMPLE_SECONDS = 5.0  # the card's cue (0.28 s) comes well within it
CARD_RDM6300 = "0F00A1B2C3"
CARD_PN532 = "04A1B2C3D4E5F6"
PN532_PORT = "/dev/ttyS1"  # the second PCI UART, wired to the host's FakePn532

REPEATABLE = ("glitch", "bounce")  # checks that leave the box as the simulator expects it
# The steps HWTEST_ONLY can leave out, by the checks they record (install and the frame at start
# always run: the rest stands on them).
ONLY = {
    "buttons": ("buttons",),
    "press_to_glass": ("press to glass",),
    "glitch_and_bounce": ("glitch", "bounce"),
    "cards": ("card rdm6300", "buzzer"),
    "unplug": ("reader unplugged",),
    "panel_gone": ("panel gone",),
    "pn532": ("card pn532",),
    "leds": ("led",),
    "power_cut": ("power cut",),
}

# Where lose-press drops a press: the line of hal/buttons.py that posts an edge (indented 12
# spaces; tests/test_hwtest.py checks it is there once).
LOSE_PRESS_ANCHOR = "post(ButtonEdge(name, pressed, "

FAULTS = {
    "lose-press": "the button layer drops every third press (hal/buttons.py)",
    "wrong-frame": "every frame rendered gets one pixel more (ui/render.py)",
    "miss-card": "the RDM6300 driver never finds a frame's start (hal/readers/rdm6300.py)",
}


class Failed(Exception):
    """A step could not go on (the message says what was seen)."""


def say(text: str) -> None:
    print(text, flush=True)


# --- the recipe and the host ----------------------------------------------------------------


def load_recipe(text: bytes) -> dict[str, Any]:
    try:
        data = tomllib.loads(text.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{RECIPE}: {err}") from err
    for key in ("kernel_meta", "kernel_packages", "source_files", "machine"):
        if key not in data:
            raise ValueError(f"{RECIPE}: missing {key}")
    return data


def host_problem(euid: int, which: Any, arch: str) -> str | None:
    """Why this machine cannot run hwtest, in one line; None when it can."""
    if arch != "arm64":
        return f"ARCH={arch}: hwtest boots arm64 only (make hwtest ARCH=arm64)"
    if euid != 0:
        return "needs root (apt-get, binfmt_misc, image build): run `sudo make hwtest ARCH=arm64`"
    if which("qemu-system-aarch64") is None:
        return "needs qemu-system-aarch64 (apt-get install qemu-system-arm)"
    return None


def run(cmd: list[str], log: systest.Log, timeout: float = 600, **kw: Any) -> str:
    log.write("$ " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    log.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise Failed(f"{cmd[0]} failed (exit {proc.returncode}): {' | '.join(tail)}")
    return proc.stdout


def host_has(tool: str) -> bool:
    """A program on PATH, or a file by its absolute path."""
    return Path(tool).exists() if tool.startswith("/") else shutil.which(tool) is not None


def ensure_host_packages(log: systest.Log) -> None:
    missing = sorted({pkg for tool, pkg in HOST_PACKAGES.items() if not host_has(tool)})
    if not missing:
        return
    say(f"hwtest: installing {' '.join(missing)}")
    run(["apt-get", "update", "-qq"], log)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(
        ["nice", "apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
        log,
        env=env,
    )


IMAGE_DEPENDS = re.compile(r"\blinux-image-(\d[\w.+~-]*?)-arm64\b")
HOST_ARCH = systest.host_arch()  # where fixdep and modpost run: the build tools' architecture


@dataclass(frozen=True)
class KernelSet:
    """A kernel whose every package the archive has now: the arm64 image, headers and common
    headers at one version, and the host's build tools and the source of the same upstream
    release (any Debian revision: a rebuild ships the same fixdep and modpost)."""

    abi: str  # "6.1.0-56"
    version: str  # of the arm64 packages: "6.1.192-2"
    packages: tuple[str, ...]  # the arm64 packages' names
    kbuild: str  # linux-kbuild's version for the host: "6.1.192-3"
    source: str  # linux-source's version: "6.1.192-2"

    def wanted(self, recipe: dict[str, Any]) -> dict[str, str]:
        """Each package's name and the version this set takes of it."""
        return {
            **dict.fromkeys(self.packages, self.version),
            recipe["kbuild_package"]: self.kbuild,
            recipe["source_package"]: self.source,
        }

    def describe(self, recipe: dict[str, Any]) -> str:
        return (
            f"kernel {self.abi} {self.version}; {recipe['kbuild_package']} {self.kbuild} "
            f"{HOST_ARCH}; {recipe['source_package']} {self.source}"
        )


def choose_kernel(
    target: list[archive.Stanza], host: list[archive.Stanza], recipe: dict[str, Any]
) -> KernelSet:
    """The newest kernel the metapackage has named whose packages are all in the lists now:
    TARGET holds the arm64 lists (the metapackage, images, headers), HOST the host's (build
    tools, source). archive.Missing (one line: the newest kernel's first missing package) when
    no kernel has them all. Pure: tests/test_archive.py feeds it lists by hand."""
    meta = recipe["kernel_meta"]
    metas = archive.versions(target, meta, "arm64")
    if not metas:
        raise archive.Missing(f"{meta} for arm64 is not in the archive's lists")
    first: archive.Missing | None = None
    for meta_version in metas:
        named = archive.stanza(target, meta, meta_version, "arm64")
        found = IMAGE_DEPENDS.search(named.depends if named else "")
        if not found:
            continue
        abi = found.group(1)
        names = tuple(p.format(abi=abi) for p in recipe["kernel_packages"])
        try:
            images = archive.versions(target, names[0], "arm64")
            if not images:
                raise archive.Missing(
                    f"{names[0]} (named by {meta} {meta_version}) for arm64 is not in the archive"
                )
            version = meta_version if meta_version in images else images[0]
            for name in names[1:]:
                if archive.stanza(target, name, version, "arm64") is None:
                    raise archive.Missing(f"{name} {version} for arm64 is not in the archive")
            kbuild = archive.same_upstream(host, recipe["kbuild_package"], version, HOST_ARCH)
            source = archive.same_upstream(host, recipe["source_package"], version, HOST_ARCH)
        except archive.Missing as err:
            first = first or err
            continue
        return KernelSet(abi, version, names, kbuild, source)
    raise archive.Missing(
        f"no kernel with all its packages: {first or f'{meta} names no linux-image-*-arm64'}"
    )


class Arm64Apt:
    """Debian's packages for another architecture through the host's sources, in package lists
    of our own (one per architecture): the host's apt configuration is not changed."""

    def __init__(self, cache: Path, log: systest.Log) -> None:
        self.dir = cache / "apt"
        self.log = log

    def options(self, arch: str = "arm64") -> list[str]:
        where = self.dir / arch
        for sub in ("lists/partial", "cache/archives/partial"):
            (where / sub).mkdir(parents=True, exist_ok=True)
        (where / "status").touch()
        return [
            "-o", "APT::Sandbox::User=root",
            "-o", f"APT::Architecture={arch}",
            "-o", f"APT::Architectures::={arch}",
            "-o", f"Dir::State::Lists={where / 'lists'}",
            "-o", f"Dir::State::status={where / 'status'}",
            "-o", f"Dir::Cache={where / 'cache'}",
        ]  # fmt: skip

    def update(self) -> None:
        run(["apt-get", *self.options(), "update", "-qq"], self.log)
        run(["apt-get", *self.options(HOST_ARCH), "update", "-qq"], self.log)

    def lists(self, arch: str, only: Any) -> list[archive.Stanza]:
        return archive.read_lists(self.dir / arch / "lists", only)

    def choose(self, recipe: dict[str, Any]) -> KernelSet:
        """The kernel whose every package the lists have now (choose_kernel over them)."""
        meta = self.lists("arm64", {recipe["kernel_meta"]})
        abis = {m.group(1) for s in meta if (m := IMAGE_DEPENDS.search(s.depends))}
        names = {p.format(abi=abi) for abi in abis for p in recipe["kernel_packages"]}
        target = meta + self.lists("arm64", names)
        host = self.lists(HOST_ARCH, {recipe["kbuild_package"], recipe["source_package"]})
        return choose_kernel(target, host, recipe)

    def download(self, names: list[str], dest: Path, arch: str = "arm64") -> list[Path]:
        dest.mkdir(parents=True, exist_ok=True)
        before = set(dest.glob("*.deb"))
        run(["nice", "apt-get", *self.options(arch), "download", *names], self.log, cwd=dest)
        got = sorted(set(dest.glob("*.deb")) - before)
        return got


# --- the image ------------------------------------------------------------------------------


def cache_dir() -> Path:
    env = os.environ
    if env.get("HWTEST_CACHE"):
        return Path(env["HWTEST_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / systest.NAME / "hwtest-arm64"


def image_digest(texts: list[bytes], abi: str, version: str, root_name: str) -> str:
    h = hashlib.sha256()
    for text in texts:
        h.update(text + b"\0")
    h.update(f"{abi}\0{version}\0{root_name}".encode())
    return h.hexdigest()[:16]


def module_closure(dep_text: str, wanted: list[str]) -> list[str]:
    """Module files (relative to the modules directory) for WANTED and what they need, each
    after its dependencies: from depmod's modules.dep."""
    deps: dict[str, list[str]] = {}
    by_name: dict[str, str] = {}
    for line in dep_text.splitlines():
        if ":" not in line:
            continue
        path, rest = line.split(":", 1)
        deps[path] = rest.split()
        name = Path(path).name.split(".")[0].replace("-", "_")
        by_name[name] = path
    order: list[str] = []

    def visit(path: str) -> None:
        if path in order:
            return
        for dep in deps.get(path, []):
            visit(dep)
        order.append(path)

    for name in wanted:
        if name.replace("-", "_") not in by_name:
            raise Failed(f"the kernel has no module {name}")
        visit(by_name[name.replace("-", "_")])
    return order


def edit_dts(dts: str, revision: int, disable: list[str]) -> str:
    """QEMU's device tree with a Pi revision under /system and the named nodes disabled."""
    lines = dts.splitlines()
    out: list[str] = []
    for line in lines:
        out.append(line)
        stripped = line.strip()
        if stripped.endswith("{") and any(stripped.startswith(n) for n in disable):
            out.append('\t\tstatus = "disabled";')
    text = "\n".join(out).rstrip() + "\n"
    end = text.rindex("};")  # the root node's end: subnodes follow its properties
    system = f"\n\tsystem {{\n\t\tlinux,revision = <{revision:#x}>;\n\t}};\n"
    return text[:end] + system + text[end:]


def cpio_newc(root: Path) -> bytes:
    """An initramfs archive (newc) of ROOT, as cpio -H newc makes it."""
    proc = subprocess.run(
        "find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0",
        shell=True,
        cwd=root,
        capture_output=True,
        check=True,
    )
    return proc.stdout


@dataclass
class Image:
    dir: Path
    kernel: Path
    initrd: Path
    dtb: Path
    disk: Path


def machine_args(m: dict[str, Any]) -> list[str]:
    return [
        m.get("qemu", "qemu-system-aarch64"),
        "-M", m["machine"], "-cpu", m["cpu"], "-smp", str(m["smp"]), "-m", str(m["memory_mb"]),
    ]  # fmt: skip


def build_modules(cache: Path, kroot: Path, abi: str, source: str, apt: Arm64Apt,
                  recipe: dict[str, Any], log: systest.Log) -> Path:  # fmt: skip
    """gpio-sim, irq_sim and i2c-record for this kernel, cross-built from linux-source at
    SOURCE (the kernel's upstream release); the folder of .ko files."""
    build = cache / f"modules-{abi}"
    if build.is_dir():
        shutil.rmtree(build)
    build.mkdir()
    debs = cache / "debs"
    source_deb = next(debs.glob(f"{recipe['source_package']}_{source}_*.deb"), None)
    if source_deb is None:
        source_deb = apt.download([f"{recipe['source_package']}={source}"], debs, HOST_ARCH)[0]
    prefix = f"{recipe['source_package'].replace('-6.1', '-6.1')}"
    members = [f"{prefix}/{f}" for f in recipe["source_files"]]
    tarball = "./usr/src/linux-source-6.1.tar.xz"
    say("hwtest: taking gpio-sim and irq_sim from the kernel's source")
    src = cache / "src"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir()
    subprocess.run(
        f"dpkg-deb --fsys-tarfile {source_deb} | tar -xO {tarball} | nice xz -dc | "
        f"tar -x -C {src} " + " ".join(members),
        shell=True,
        check=True,
    )
    for member in members:
        shutil.copy(src / member, build / Path(member).name)
    irq = build / "irq_sim.c"
    text = irq.read_text()
    if "handle_simple_irq(irq_to_desc(irqnum));" not in text:
        raise Failed("irq_sim.c is not as this recipe knows it (handle_simple_irq(irq_to_desc))")
    irq.write_text(
        text.replace("handle_simple_irq(irq_to_desc(irqnum));", "generic_handle_irq(irqnum);")
        + '\nMODULE_LICENSE("GPL");\n'
    )
    shutil.copy(HERE / "i2c-record.c", build / "i2c-record.c")
    (build / "Kbuild").write_text("obj-m := gpio-sim.o irq_sim.o i2c-record.o\n")
    headers = kroot / f"usr/src/linux-headers-{abi}-arm64"
    (headers / "Makefile").write_text(
        f"include {kroot}/usr/src/linux-headers-{abi}-common/Makefile\n"
    )
    say("hwtest: building gpio-sim, irq_sim and i2c-record for the arm64 kernel")
    run(
        ["nice", "make", "-C", str(headers), f"M={build}", "ARCH=arm64",
         "CROSS_COMPILE=aarch64-linux-gnu-", "CC=aarch64-linux-gnu-gcc-12", "modules"],
        log,
    )  # fmt: skip
    return build


def wheelhouse(cache: Path, recipe: dict[str, Any], log: systest.Log) -> Path:
    """aarch64 wheels for Python 3.11 of everything the installer's pip takes, and the build
    backend: the VM has no network. Kept per pyproject.toml."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    wanted = [
        *pyproject["build-system"]["requires"],
        *pyproject["project"]["dependencies"],
        *pyproject["project"]["optional-dependencies"]["web"],
        recipe["lgpio"],
    ]
    key = hashlib.sha256("\n".join(wanted).encode()).hexdigest()[:16]
    wheels = cache / f"wheels-{key}"
    if wheels.is_dir():
        return wheels
    partial = Path(f"{wheels}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    say(f"hwtest: downloading aarch64 wheels for the offline install ({len(wanted)} requirements)")
    platforms = ["manylinux2014_aarch64", "manylinux_2_28_aarch64", "manylinux_2_34_aarch64",
                 "manylinux_2_17_aarch64", "linux_aarch64"]  # fmt: skip
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
           "--dest", str(partial), "--only-binary=:all:", "--python-version", "3.11",
           "--implementation", "cp", "--abi", "cp311", "--abi", "abi3",
           "--abi", "none"]  # fmt: skip
    for platform in platforms:
        cmd += ["--platform", platform]
    # A library published only as source (sdnotify) is pure Python: its wheel is built here,
    # as pip in the VM would build it, and offered beside the downloads.
    built = partial / "built"
    built.mkdir(parents=True)
    for _ in range(6):
        proc = subprocess.run([*cmd, "--find-links", str(built), *wanted],
                              capture_output=True, text=True, timeout=900)  # fmt: skip
        log.write(proc.stdout + proc.stderr)
        if proc.returncode == 0:
            break
        match = re.search(r"No matching distribution found for ([A-Za-z0-9_.-]+)", proc.stderr)
        if not match:
            raise Failed(f"pip download failed: {archive.pip_failure(proc.stderr)}")
        run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
             str(built), match.group(1)], log, timeout=300)  # fmt: skip
    else:
        raise Failed("pip download: too many libraries without a wheel")
    for whl in built.glob("*.whl"):
        whl.rename(partial / whl.name)
    built.rmdir()
    for old in cache.glob("wheels-*"):
        if old != partial:
            shutil.rmtree(old, ignore_errors=True)
    partial.rename(wheels)
    return wheels


def build_image(cache: Path, log: systest.Log) -> tuple[Image, dict[str, Any]]:
    recipe = load_recipe(RECIPE.read_bytes())
    apt = Arm64Apt(cache, log)
    say("hwtest: Debian's arm64 package lists (a private list; the host's apt is not changed)")
    apt.update()
    chosen = apt.choose(recipe)
    abi, version = chosen.abi, chosen.version
    rootfs = piroot.root("arm64", log)  # waits while another run builds it (its lock)
    texts = [RECIPE.read_bytes(), (HERE / "i2c-record.c").read_bytes()]
    texts += [f.name.encode() + f.read_bytes() for f in sorted(IMAGE.iterdir())]
    digest = image_digest(texts, abi, f"{version} {chosen.kbuild} {chosen.source}", rootfs.name)
    done = cache / f"image-{digest}"
    image = Image(
        done, done / "vmlinuz", done / "initrd.img", done / "virt.dtb", done / "root.ext4"
    )
    if (done / "ok").exists():
        say(f"hwtest: image {done} (cached; {chosen.describe(recipe)})")
        return image, recipe
    started = time.monotonic()
    say(f"hwtest: building the VM image (once per recipe; {chosen.describe(recipe)}) in {done}")
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    names = list(chosen.packages)
    wanted = chosen.wanted(recipe)
    for deb in debs.glob("*.deb"):
        name, deb_version = deb.name.split("_")[:2]
        if name in wanted and deb_version.replace("%3a", ":") != wanted[name]:
            deb.unlink()  # another kernel's
        elif name not in wanted and name != recipe["busybox_package"]:
            deb.unlink()
    have = {d.name.split("_")[0] for d in debs.glob("*.deb")}
    need = [f"{n}={wanted[n]}" for n in names if n not in have]
    if recipe["busybox_package"] not in have:
        need.append(recipe["busybox_package"])  # any version: the lists' candidate
    if need:
        apt.download(need, debs)
    if recipe["kbuild_package"] not in have:
        apt.download([f"{recipe['kbuild_package']}={chosen.kbuild}"], debs, HOST_ARCH)
    kroot = cache / "kernel"
    shutil.rmtree(kroot, ignore_errors=True)
    kroot.mkdir()
    for deb in sorted(debs.glob("*.deb")):
        if not deb.name.startswith(recipe["source_package"]):
            run(["dpkg-deb", "-x", str(deb), str(kroot)], log)
    modules = build_modules(cache, kroot, abi, chosen.source, apt, recipe, log)
    kver = f"{abi}-arm64"
    tmp = Path(f"{done}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    stage = tmp / "root"
    say(f"hwtest: copying pitest's arm64 root {rootfs}")
    run(["cp", "-a", "--reflink=auto", str(rootfs), str(stage)], log)
    mods = stage / "lib/modules" / kver
    shutil.rmtree(mods, ignore_errors=True)
    mods.parent.mkdir(parents=True, exist_ok=True)
    run(["cp", "-a", str(kroot / "lib/modules" / kver), str(mods)], log)
    (mods / "extra").mkdir(exist_ok=True)
    for ko in modules.glob("*.ko"):
        shutil.copy(ko, mods / "extra" / ko.name)
    run(["depmod", "-b", str(stage), kver], log)
    # The test machine's own parts (not the box's): the agent, the board, a Pi's udev rules and
    # groups (gpio, i2c: Raspberry Pi OS has them before any install).
    lib = stage / "usr/local/lib/hwtest"
    lib.mkdir(parents=True, exist_ok=True)
    for name in ("agent.py", "board.sh"):
        shutil.copy(IMAGE / name, lib / name)
        (lib / name).chmod(0o755)
    units = stage / "etc/systemd/system"
    wants = units / "multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    for name in ("hwtest-agent.service", "hwtest-board.service"):
        shutil.copy(IMAGE / name, units / name)
        link = wants / name
        if not link.is_symlink():
            link.symlink_to(f"/etc/systemd/system/{name}")
    (stage / "etc/modules-load.d").mkdir(parents=True, exist_ok=True)
    shutil.copy(IMAGE / "hwtest-modules.conf", stage / "etc/modules-load.d/hwtest.conf")
    (stage / "etc/udev/rules.d").mkdir(parents=True, exist_ok=True)
    shutil.copy(IMAGE / "90-hwtest-pi.rules", stage / "etc/udev/rules.d/90-hwtest-pi.rules")
    for group in ("gpio", "i2c"):
        if f"\n{group}:" not in "\n" + (stage / "etc/group").read_text():
            run(["groupadd", "--root", str(stage), "--system", group], log)
    (stage / "etc/fstab").write_text("/dev/vda / ext4 rw,errors=remount-ro 0 1\n")
    (stage / "etc/hostname").write_text("trapbox\n")
    # python3-lgpio's place on Raspberry Pi OS: the PyPI wheel, unpacked where pip would put it.
    wheels = wheelhouse(cache, recipe, log)
    lgpio = next(wheels.glob("lgpio-*.whl"), None)
    if lgpio is None:
        raise Failed(f"no lgpio wheel in {wheels}")
    with zipfile.ZipFile(lgpio) as whl:
        whl.extractall(stage / "usr/local/lib/python3.11/dist-packages")
    # The kernel, an initramfs and the device tree.
    shutil.copy(kroot / f"boot/vmlinuz-{kver}", tmp / "vmlinuz")
    initramfs = tmp / "initramfs"
    (initramfs / "bin").mkdir(parents=True)
    for d in ("proc", "sys", "dev", "newroot"):
        (initramfs / d).mkdir()
    shutil.copy(kroot / "bin/busybox", initramfs / "bin/busybox")
    order = module_closure((mods / "modules.dep").read_text(), recipe["initramfs_modules"])
    for path in order:
        target = initramfs / "lib/modules" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(mods / path, target)
    (initramfs / "modules").write_text("\n".join(order) + "\n")
    shutil.copy(IMAGE / "init", initramfs / "init")
    (initramfs / "init").chmod(0o755)
    (tmp / "initrd.img").write_bytes(cpio_newc(initramfs))
    shutil.rmtree(initramfs)
    m = recipe["machine"]
    run([*machine_args(m), "-machine", f"dumpdtb={tmp / 'qemu.dtb'}", "-display", "none"], log)
    dts = run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(tmp / "qemu.dtb")], log)
    (tmp / "virt.dts").write_text(edit_dts(dts, m["revision"], m["disable_nodes"]))
    run(
        ["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(tmp / "virt.dtb"), str(tmp / "virt.dts")],
        log,
    )
    say("hwtest: making the ext4 disk image")
    run(["mke2fs", "-q", "-F", "-t", "ext4", "-L", "hwroot", "-d", str(stage),
         str(tmp / "root.ext4"), f"{m['disk_mb']}M"], log)  # fmt: skip
    shutil.rmtree(stage)
    (tmp / "root.ext4").chmod(0o444)
    (tmp / "recipe.txt").write_text(
        f"{chosen.describe(recipe)} ({', '.join(names)})\n"
        f"root {rootfs}\nmodules {', '.join(sorted(k.name for k in modules.glob('*.ko')))}\n"
        f"initramfs {', '.join(order)}\n"
    )
    (tmp / "ok").write_text("")
    for old in cache.glob("image-*"):
        if old != tmp:
            shutil.rmtree(old, ignore_errors=True)
    tmp.rename(done)
    say(f"hwtest: image built in {time.monotonic() - started:.0f} s")
    return image, recipe


# --- the VM ---------------------------------------------------------------------------------


class Agent:
    """The host's end of the agent's virtio-serial port: one JSON line each way."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock: socket.socket | None = None
        self.buffered = b""
        self.next_id = 0

    def connect(self, guard: float) -> None:
        end = time.monotonic() + guard
        while True:
            try:
                sock = socket.socket(socket.AF_UNIX)
                sock.connect(str(self.path))
                self.sock = sock
                return
            except OSError:
                sock.close()
                if time.monotonic() > end:
                    raise Failed(f"no agent socket {self.path} within {guard:.0f} s") from None
                time.sleep(0.2)

    def call(self, argv: list[str], timeout: float = COMMAND_GUARD, **kw: Any) -> dict[str, Any]:
        assert self.sock is not None
        self.next_id += 1
        ident = self.next_id
        request = {"id": ident, "argv": argv, "timeout": timeout, **kw}
        try:
            self.sock.sendall(json.dumps(request).encode() + b"\n")
        except OSError as err:
            raise Failed(f"the agent's port: {err}") from None
        end = time.monotonic() + timeout + 15
        while True:
            while b"\n" in self.buffered:
                line, self.buffered = self.buffered.split(b"\n", 1)
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue
                if answer.get("id") == ident:
                    return answer
            left = end - time.monotonic()
            if left <= 0:
                raise Failed(f"the agent did not answer {argv[:3]} within {timeout + 15:.0f} s")
            self.sock.settimeout(min(left, 2.0))
            try:
                chunk = self.sock.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError as err:
                raise Failed(f"the agent's port: {err}") from None
            if not chunk:
                raise Failed("the agent's port closed")
            self.buffered += chunk

    def ready(self, guard: float) -> float:
        """Ping until the agent answers (it starts with the guest's systemd)."""
        started = time.monotonic()
        while True:
            try:
                if self.call(["true"], timeout=3)["rc"] == 0:
                    return time.monotonic() - started
            except Failed as err:
                if "port" in str(err) or time.monotonic() - started > guard:
                    raise Failed(f"the VM's agent did not answer within {guard:.0f} s") from None

    def sh(self, script: str, timeout: float = COMMAND_GUARD, check: bool = True) -> str:
        answer = self.call(["sh", "-c", script], timeout=timeout)
        if check and answer["rc"] != 0:
            tail = (answer["err"] or answer["out"]).strip().splitlines()[-3:]
            raise Failed(f"`{script[:60]}` exit {answer['rc']}: {' | '.join(tail)}")
        return str(answer["out"])

    def guest(self, *args: str, timeout: float = COMMAND_GUARD) -> dict[str, Any]:
        answer = self.call(
            ["python3", f"/mnt/{SHARE_TAG}/tools/hwtest/guest.py", *args], timeout=timeout
        )
        if answer["rc"] != 0:
            raise Failed(f"guest.py {' '.join(args)}: {answer['err'].strip()[-300:]}")
        return json.loads(answer["out"])

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


@dataclass
class Vm:
    image: Image
    machine: dict[str, Any]
    run_dir: Path
    share: Path
    uarts: list[str]
    log: systest.Log
    proc: subprocess.Popen[bytes] | None = None
    agent: Agent | None = None
    boots: int = 0

    def start(self) -> float:
        self.boots += 1
        sock = self.run_dir / f"agent-{self.boots}.sock"
        console = self.run_dir / f"console-{self.boots}.log"
        disk = self.run_dir / "disk.qcow2"
        cmd = [
            *machine_args(self.machine),
            "-kernel", str(self.image.kernel), "-initrd", str(self.image.initrd),
            "-dtb", str(self.image.dtb),
            "-append", "console=ttyAMA0 root=/dev/vda rw panic=-1 systemd.show_status=0",
            "-drive", f"file={disk},if=none,id=hd,format=qcow2,cache=writeback",
            "-device", "virtio-blk-pci,drive=hd",
            "-virtfs", f"local,path={self.share},mount_tag={SHARE_TAG},{VIRTFS}",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=agent,path={sock},server=on,wait=off",
            "-device", f"virtserialport,chardev=agent,name={AGENT_PORT}",
            "-nic", "none", "-display", "none", "-monitor", "none",
            "-serial", f"file:{console}", "-no-reboot",
        ]  # fmt: skip
        for n, pty in enumerate(self.uarts):
            cmd += [
                "-chardev",
                f"serial,id=uart{n},path={pty}",
                "-device",
                f"pci-serial,chardev=uart{n}",
            ]
        self.log.write("$ " + " ".join(cmd))
        started = time.monotonic()
        with (self.run_dir / f"qemu-{self.boots}.err").open("wb") as err:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
            )
        self.agent = Agent(sock)
        self.agent.connect(30)
        try:
            self.agent.ready(BOOT_GUARD)
        except Failed as err:
            tail = console.read_text(errors="replace").strip().splitlines()[-3:]
            raise Failed(f"{err}; console: {' | '.join(tail)}") from None
        self.agent.sh(
            f"mkdir -p /mnt/{SHARE_TAG} && (mountpoint -q /mnt/{SHARE_TAG} || mount -t 9p -o "
            f"trans=virtio,version=9p2000.L,ro {SHARE_TAG} /mnt/{SHARE_TAG})"
        )
        return time.monotonic() - started

    def kill(self) -> None:
        """The power cut: QEMU killed, the guest's caches gone with it."""
        if self.agent is not None:
            self.agent.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None and self.agent is not None:
            with contextlib.suppress(Failed, OSError):
                self.agent.call(["systemctl", "poweroff"], timeout=10)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(60)
        self.kill()


# --- the simulator's side -------------------------------------------------------------------


class Simulator:
    """The same presses on the simulator (the daemon's own code on mock parts): what it draws."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.frames: list[Any] = []
        self.box = self._start("rdm6300")

    def _start(self, reader: str) -> Any:
        from dataclasses import replace

        from companion.core import config as config_mod
        from companion.sim.box import SimulatedBox

        cfg = config_mod.Config()
        cfg = replace(cfg, reader=replace(cfg.reader, type=reader))
        box = SimulatedBox(
            cfg, state_dir=self.state_dir, demo_cards=False,
            on_frame=lambda image: self.frames.append(image.copy()),
        )  # fmt: skip
        box.app.start()
        box.loop.drain()
        return box

    def restart(self, reader: str) -> None:
        """Stopped and started again from its journal with READER, as the box is by systemd."""
        self.box.close()
        self.frames.clear()
        self.box = self._start(reader)

    def frame(self) -> list[list[int]]:
        image = self.box.app.display.image if hasattr(self.box.app, "display") else None
        if image is None and self.frames:
            image = self.frames[-1]
        return ssd1306.image_pixels(image)

    def press(self, button: str, seconds: float) -> None:
        self.box.hold(button, seconds)
        self.box.advance(0.5)

    def replay(self, button: str, intervals_ms: list[float]) -> None:
        """The line pulled down, then toggled after each interval (the last lets it go): a
        stimulus exactly as the VM's line got it, on the virtual clock."""
        pin = self.box.pin(button)
        low = True
        pin.drive_low()
        for ms in intervals_ms:
            self.box.advance(ms / 1000)
            low = not low
            if low:
                pin.drive_low()
            else:
                pin.drive_high()
        self.box.loop.drain()
        self.box.advance(0.5)

    def tap(self, uid: str) -> None:
        self.box.tap(uid)

    def screen(self) -> list[str]:
        return list(self.box.app.display.lines) if hasattr(self.box.app, "display") else []

    def close(self) -> None:
        self.box.close()


# --- the checks -----------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    ok: bool
    text: str


@dataclass
class Run:
    vm: Vm
    sim: Simulator
    log: systest.Log
    fault: str
    rdm: Any
    pn532: Any
    panel: ssd1306.Ssd1306 = field(default_factory=ssd1306.Ssd1306)
    writes: list[ssd1306.Write] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    last_ms: list[float] = field(default_factory=list)  # press to its frame complete
    figures: dict[str, str] = field(default_factory=dict)
    watch: bytearray | None = None  # a frame that may show only for a moment (a notice)
    seen: bool = False
    bin: str = ""  # the installed program's bin folder and package (installed_program)
    site: str = ""
    repeat: dict[str, int] = field(default_factory=dict)  # HWTEST_REPEAT: check -> times

    def shown_at_some_point(self, want: list[list[int]], guard: float = FRAME_GUARD) -> bool:
        """Whether the panel showed WANT after any write from now on (bounded): a notice
        stays a few seconds, and a drain can take it and what replaces it at once."""
        ram = ssd1306.ram_of(want)
        self.watch, self.seen = ram, self.panel.ram == ram
        end = time.monotonic() + guard
        while not self.seen and time.monotonic() < end:
            self.feed(self.agent.guest("drain", "0.3")["log"])
        self.watch = None
        return self.seen

    @property
    def agent(self) -> Agent:
        assert self.vm.agent is not None
        return self.vm.agent

    def record(self, name: str, ok: bool, text: str) -> bool:
        self.results.append(Result(name, ok, text))
        say(f"{'PASS' if ok else 'FAIL'} {len(self.results)} {name}: {text}")
        self.log.write(f"{'PASS' if ok else 'FAIL'} {name}: {text}")
        return ok

    def feed(self, b64: str) -> list[ssd1306.Write]:
        writes, rest = ssd1306.parse_records(base64.b64decode(b64))
        if rest:
            raise Failed(f"a cut I2C record ({len(rest)} bytes)")
        for w in writes:
            self.panel.feed(w.data)
            if self.watch is not None and self.panel.ram == self.watch:
                self.seen = True
        self.writes += writes
        return writes

    def settle_on(
        self, want: list[list[int]], guard: float = FRAME_GUARD, quiet: float = QUIET_GUARD
    ) -> tuple[int, float]:
        """Take writes until the panel shows WANT and a quiet second keeps it so (bounded);
        the pixels that differ at the end, and how long it took. A panel that differs and got
        no write for QUIET seconds is final (a box drawing the wrong frame is not kept waiting
        for the whole guard, frame after frame)."""
        started = last_write = time.monotonic()
        asked = False  # quiet only counts once the box was asked for its writes (a slow host
        # can spend the quiet time comparing the pixels alone)
        while True:
            diff = ssd1306.differing(self.panel.pixels(), want)
            if diff == 0:
                settled = self.agent.guest("drain", "1.0")
                self.feed(settled["log"])
                diff = ssd1306.differing(self.panel.pixels(), want)
                if diff == 0:
                    return 0, time.monotonic() - started
            now = time.monotonic()
            if now - started > guard or (asked and now - last_write > quiet):
                return diff, now - started
            if self.feed(self.agent.guest("drain", "0.5")["log"]):
                last_write = time.monotonic()
            asked = True

    def quiet(self, seconds: float, guard: float = FRAME_GUARD) -> None:
        """Take the box's writes until none came for SECONDS (bounded by GUARD): it has drawn
        all that what it was given makes it draw."""
        end = time.monotonic() + guard
        while time.monotonic() < end:
            if not self.feed(self.agent.guest("drain", f"{seconds}")["log"]):
                return

    def press(self, button: str, seconds: float, bounce: int = 0) -> dict[str, Any]:
        answer = self.agent.guest(
            "press", str(BUTTONS[button]), f"{seconds}", "--bounce", str(bounce), "--quiet", "0.5"
        )
        self.feed(answer["before"])
        # The panel as the press found it, and where its writes start: the frame's last write
        # is found once the wanted frame is known (last_write_ms).
        answer["panel"], answer["from"] = copy.deepcopy(self.panel), len(self.writes)
        after = self.feed(answer["log"])
        # A short press acts when it ends (a long one at hold_seconds): the line change that
        # makes the press is the release.
        firsts = [w.t_ns for w in after if w.t_ns >= answer["t_up"]]
        if firsts and seconds < 1:
            answer["latency_ms"] = (min(firsts) - answer["t_up"]) / 1e6
        return answer

    def last_write_ms(self, answer: dict[str, Any], want: list[list[int]]) -> float | None:
        """From a short press's release to the write that completed WANT (its last byte)."""
        done = ssd1306.frame_done_at(answer["panel"], self.writes[answer["from"] :], want)
        return None if done is None or "latency_ms" not in answer else (done - answer["t_up"]) / 1e6

    def save_frame(self, name: str, pixels: list[list[int]] | None = None) -> None:
        """The panel's frame (or ``pixels``) as a PNG in the run's folder (--keep keeps it)."""
        from PIL import Image

        pixels = self.panel.pixels() if pixels is None else pixels
        image = Image.new("1", (ssd1306.WIDTH, ssd1306.HEIGHT))
        image.putdata([p for row in pixels for p in row])
        image.save(self.vm.run_dir.parent / f"{name}.png")


def step_install(r: Run, started: float) -> None:
    a = r.agent
    a.sh(f"mkdir -p /mnt/{SHARE_TAG} && (mountpoint -q /mnt/{SHARE_TAG} || mount -t 9p -o "
         f"trans=virtio,version=9p2000.L,ro {SHARE_TAG} /mnt/{SHARE_TAG})")  # fmt: skip
    a.sh(f"rm -rf {CLONE} && cp -a /mnt/{SHARE_TAG}/checkout {CLONE}", timeout=300)
    t0 = time.monotonic()
    env = (f"SKIP_APT=1 SKIP_FIRMWARE=1 PIP_NO_INDEX=1 PIP_FIND_LINKS=/mnt/{SHARE_TAG}/wheels "
           "PIP_DISABLE_PIP_VERSION_CHECK=1")  # fmt: skip
    if r.fault:
        env += " NO_START=1"
    answer = a.call(["sh", "-c", f"cd {CLONE} && {env} make install"], timeout=INSTALL_GUARD)
    took = time.monotonic() - t0
    r.log.write(answer["out"] + answer["err"])
    if answer["rc"] != 0:
        tail = (answer["err"] or answer["out"]).strip().splitlines()[-3:]
        why = a.sh(f"journalctl -b -u {UNIT} -o cat -n 40", check=False)
        r.log.write(why)
        raise Failed(
            f"make install exit {answer['rc']} after {took:.0f} s: {' | '.join(tail)}; the "
            f"daemon said: {' | '.join(why.strip().splitlines()[-4:])}"
        )
    r.bin, r.site = installed_program(a)
    if r.fault:
        inject(r)
        a.sh(f"systemctl restart {UNIT}", timeout=180)
    show = systest.parse_show(a.sh(
        f"systemctl show {UNIT} -p ActiveState -p SubState -p StatusText -p DropInPaths "
        "-p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic -p FragmentPath"
    ))  # fmt: skip
    shipped = (REPO / "systemd" / UNIT).read_text()
    installed = a.sh(f"cat {show.get('FragmentPath', '/nonexistent')}")
    ready = (int(show.get("ActiveEnterTimestampMonotonic", "0") or 0)
             - int(show.get("ExecMainStartTimestampMonotonic", "0") or 0)) / 1e6  # fmt: skip
    r.figures["install"] = f"{took:.0f} s"
    r.figures["ready"] = f"{ready:.1f} s"
    revision = a.sh(
        "od -An -tx1 /proc/device-tree/system/linux,revision | tr -d ' \\n'", check=False
    ).strip()
    ok = (
        show.get("ActiveState") == "active"
        and show.get("SubState") == "running"
        and not show.get("DropInPaths")
        and installed == shipped
    )
    r.record(
        "install",
        ok,
        f"make install (offline, {took:.0f} s); {show.get('ActiveState')} "
        f"({show.get('SubState')}), READY {ready:.1f} s after start; unit as shipped: "
        f"{installed == shipped}, drop-ins: {show.get('DropInPaths') or 'none'}; "
        f'device tree revision {revision}; STATUS "{show.get("StatusText", "")}"',
    )


def installed_program(a: Agent) -> tuple[str, str]:
    """Where the installer put the program, as the installed unit's ExecStart names it (the
    layout is the installer's business): its bin folder and its companion package."""
    bin_dir = a.sh(
        f"sed -n 's|^ExecStart=\\(/[^ ]*\\)/trap-companion .*|\\1|p' "
        f"$(systemctl show -P FragmentPath {UNIT})"
    ).strip()
    if not bin_dir:
        raise Failed(f"the installed {UNIT} has no ExecStart=.../trap-companion")
    site = a.sh(
        f"cd /tmp && {bin_dir}/python -c 'import companion, os; "
        "print(os.path.dirname(companion.__file__))'"
    ).strip()
    return bin_dir, site


def fault_patch(fault: str, site: str) -> tuple[str, str]:
    """HWTEST_FAULT's patch: a Python script that rewrites one file of the installed package at
    ``site``, and that file."""
    if fault == "lose-press":
        script = (
            "import sys\np=sys.argv[1]\ns=open(p).read()\n"
            f"old={LOSE_PRESS_ANCHOR!r}\n"
            "assert s.count(old) == 1\n"
            "new=('if pressed:\\n                _DROPPED[0] += 1\\n'\n"
            "     '                if _DROPPED[0] % 3 == 0:\\n'\n"
            "     '                    return\\n            ' + old)\n"
            "s=s.replace(old, new) + '\\n_DROPPED = [0]\\n'\nopen(p,'w').write(s)\n"
        )
        target = f"{site}/hal/buttons.py"
    elif fault == "wrong-frame":
        script = (
            "import sys\np=sys.argv[1]\ns=open(p).read()\n"
            "s+='\\n_render = render\\n\\ndef render(*a, **k):\\n    image = _render(*a, **k)\\n"
            "    image.putpixel((127, 63), 1)\\n    return image\\n'\nopen(p,'w').write(s)\n"
        )
        target = f"{site}/ui/render.py"
    elif fault == "miss-card":
        script = (
            "import sys\np=sys.argv[1]\ns=open(p).read()\n"
            "s=s.replace('STX = 0x02', 'STX = 0x7F')\nopen(p,'w').write(s)\n"
        )
        target = f"{site}/hal/readers/rdm6300.py"
    else:
        raise Failed(f"HWTEST_FAULT={fault}: one of {', '.join(FAULTS)}")
    return script, target


def inject(r: Run) -> None:
    """HWTEST_FAULT: patch the installed copy so the box misbehaves; the checks must FAIL."""
    a = r.agent
    script, target = fault_patch(r.fault, r.site)
    answer = a.call(["python3", "-c", script, target], timeout=60)
    if answer["rc"] != 0:
        raise Failed(f"HWTEST_FAULT={r.fault}: the patch failed: {answer['err'][-300:]}")
    a.sh(f"find {r.site} -name __pycache__ -prune -exec rm -rf {{}} +")
    say(f"hwtest: HWTEST_FAULT={r.fault}: {target} patched in the VM; the checks must FAIL")


def step_start_frame(r: Run) -> None:
    diff, took = r.settle_on(r.sim.frame())
    r.save_frame("frame-start")
    r.record(
        "frame at start",
        diff == 0,
        f"the panel rebuilt from {len(r.writes)} I2C writes: {diff} of 8192 pixels differ from "
        f"the simulator's frame" + (f" (waited {took:.0f} s)" if diff else ""),
    )


def step_buttons(r: Run) -> None:
    seq = [(b, PRESS_SECONDS) for b in BUTTONS] + [(b, HOLD_SECONDS) for b in BUTTONS]
    bad: list[str] = []
    lat: list[float] = []
    for n, (button, seconds) in enumerate(seq):
        answer = r.press(button, seconds)
        r.sim.press(button, seconds)
        diff, _ = r.settle_on(r.sim.frame())
        if "latency_ms" in answer:
            lat.append(answer["latency_ms"])
        if diff:
            kind = "long" if seconds > 1 else "short"
            bad.append(f"{kind} {button} ({diff} px)")
            r.save_frame(f"frame-fail-{n}-{button}")
    r.latencies_ms += lat
    r.record(
        "buttons",
        not bad,
        f"6 buttons short ({PRESS_SECONDS * 1000:.0f} ms) and long ({HOLD_SECONDS:.1f} s) "
        f"through the line bias: {len(seq) - len(bad)}/{len(seq)} frames as the simulator's"
        + (f"; differ after {', '.join(bad)}" if bad else ", 0 pixels differ")
        + (f"; release to first I2C write p50 {pct(lat, 50):.0f} ms" if lat else ""),
    )


def step_press_to_glass(r: Run) -> None:
    """Short presses on the start menu (down, up, ...: the list moves each time), each frame
    compared with the simulator's; from the release to the first I2C write and to the write
    that completed the frame (its last byte)."""
    first: list[float] = []
    last: list[float] = []
    bad: list[str] = []
    for n in range(GLASS_PRESSES):
        button = ("down", "up")[n % 2]
        answer = r.press(button, PRESS_SECONDS)
        r.sim.press(button, PRESS_SECONDS)
        want = r.sim.frame()
        diff, _ = r.settle_on(want)
        if diff:
            bad.append(f"{n + 1} {button} ({diff} px)")
        if "latency_ms" in answer:
            first.append(answer["latency_ms"])
        done = r.last_write_ms(answer, want)
        if done is not None:
            last.append(done)
    r.latencies_ms += first
    r.last_ms += last
    r.record(
        "press to glass",
        not bad and len(last) >= GLASS_PRESSES - 2,
        f"{GLASS_PRESSES} short presses on the start menu"
        + (f"; differ after {', '.join(bad)}" if bad else ", 0 pixels differ")
        + f"; release to first I2C write p50 {pct(first, 50):.0f} ms p99 {pct(first, 99):.0f} ms"
        f" (n={len(first)}), to the frame complete (its last changed byte)"
        f" p50 {pct(last, 50):.0f} ms"
        f" p99 {pct(last, 99):.0f} ms (n={len(last)})",
    )


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def line_intervals(answer: dict[str, Any]) -> list[float]:
    """The times (ms) between the line changes a press applied, the last one its release: what
    the box's kernel stamped, give or take a system call."""
    marks = [*answer["edges"], answer["t_up"]]
    return [(b - a) / 1e6 for a, b in itertools.pairwise(marks)]


def stimulus_valid(intervals: list[float], hold_last: bool) -> bool:
    """Whether what reached the line is the stimulus meant: every pulse shorter than the
    debounce by a margin (but the held press at the end of a bounce). On a loaded host the
    vCPU can be descheduled between the two writes of a 3 ms pulse and stretch it past 5 ms:
    that is a short press, not a glitch, and proves nothing about the filter."""
    pulses = intervals[:-1] if hold_last else intervals
    return bool(intervals) and all(ms < GLITCH_VALID_MS for ms in pulses)


def apply_stimulus(
    r: Run, button: str, seconds: float, bounce: int
) -> tuple[dict[str, Any], list[float], int, int]:
    """Applies a glitch or a bouncing press until it reaches the line as meant (at most
    STIMULUS_TRIES): only the stimulus is tried again, never the verdict. The simulator gets
    every stimulus exactly as applied, so a stretched one (a short press, for both) keeps the
    two in step; the answer, its intervals, the tries, and the pixels that differed after a
    stretched one (0 when both took it alike)."""
    for tries in range(1, STIMULUS_TRIES + 1):
        answer = r.press(button, seconds, bounce=bounce)
        intervals = line_intervals(answer)
        if bounce == 0:
            # A glitch: judged by the longest the kernel can have seen it (from before the
            # first write began to after the second ended).
            intervals = [(answer["t_up"] - answer.get("t_before", answer["t_down"])) / 1e6]
        if stimulus_valid(intervals, hold_last=bounce > 0):
            r.sim.replay(button, intervals)
            return answer, intervals, tries, 0
        r.log.write(f"stimulus on {button} stretched to {intervals} ms: applied again")
        if bounce == 0:
            # Which side of the debounce the kernel's own stamps fell is not known from here:
            # a vCPU descheduled inside a write puts the stamp anywhere in it (7.2 ms "at most"
            # here was under 5 ms for the box once, at load 7). The box's panel tells (a press
            # it took redraws the screen) and the simulator follows: this try is no verdict.
            # The box is read once it has drawn all it will for this try (under load a press's
            # frame can come more than a second late: read too early, the simulator fell a
            # press behind the box and the next verdict failed).
            r.quiet(STRETCHED_QUIET)
            took = ssd1306.differing(r.panel.pixels(), r.sim.frame()) != 0
            side = DEBOUNCE_MS + DEBOUNCE_BAND_MS if took else DEBOUNCE_MS - DEBOUNCE_BAND_MS
            r.sim.replay(button, [side])
            diff, _ = r.settle_on(r.sim.frame())
        else:
            # A stretched bounce may be more than one press for the box (a bounce down and up
            # for 5 ms each): the simulator takes one, then follows the box a press at a time,
            # at most one for each bounce; a box showing none of these frames is off. The box
            # is read once it has drawn all it will for this try, as for a glitch.
            one = [min(ms, DEBOUNCE_MS - DEBOUNCE_BAND_MS) for ms in intervals[:-1]]
            r.sim.replay(button, [*one, intervals[-1]])
            r.quiet(STRETCHED_QUIET)
            diff = ssd1306.differing(r.panel.pixels(), r.sim.frame())
            for _ in range(bounce):
                if not diff:
                    break
                r.sim.press(button, PRESS_SECONDS)
                diff = ssd1306.differing(r.panel.pixels(), r.sim.frame())
        if diff:
            return answer, intervals, tries, diff
    return answer, intervals, STIMULUS_TRIES, 0


def stretched_note(what: str, valid: bool, tries: int, stretched_diff: int) -> str:
    """Why a glitch or bounce check proves nothing about the filter, if it does not."""
    if stretched_diff:
        return (
            f"; a {what} stretched past {GLITCH_VALID_MS} ms (try {tries}) already left the box "
            f"{stretched_diff} px off the simulator, which took it alike"
        )
    if not valid:
        return f"; no {what} under {GLITCH_VALID_MS} ms in {tries} tries (host load)"
    return ""


@dataclass
class Attempt:
    """One run of a glitch or bounce check: its verdict and line, the tries its stimulus took,
    and its figure (the glitch's longest possible pulse, the bounce's longest bounce, in ms)."""

    ok: bool
    text: str
    tries: int
    ms: float


def check_glitch(r: Run) -> Attempt:
    _, intervals, tries, stretched_diff = apply_stimulus(r, "down", GLITCH_SECONDS, 0)
    held_ms = intervals[0]
    valid = stimulus_valid(intervals, hold_last=False)
    r.press("down", PRESS_SECONDS)  # the marker: the frame must be one press on, not two
    r.sim.press("down", PRESS_SECONDS)
    diff, _ = r.settle_on(r.sim.frame())
    return Attempt(
        valid and diff == 0 and stretched_diff == 0,
        f"a low pulse of at most {held_ms:.1f} ms on GPIO{BUTTONS['down']} (as applied, "
        f"{'try' if tries == 1 else 'tries'} {tries}) then one press: the frame is "
        f"{'one press on' if diff == 0 else 'NOT one press on'} ({diff} pixels differ from the "
        f"simulator's)" + stretched_note("pulse", valid, tries, stretched_diff),
        tries,
        held_ms,
    )


def check_bounce(r: Run) -> Attempt:
    answer, intervals, tries, stretched_diff = apply_stimulus(r, "up", PRESS_SECONDS, 3)
    valid = stimulus_valid(intervals, hold_last=True)
    span = sum(intervals[:-1])
    longest = max(intervals[:-1])
    diff, _ = r.settle_on(r.sim.frame())
    return Attempt(
        valid and diff == 0 and stretched_diff == 0,
        f"{len(answer['edges'])} edges in {span:.1f} ms then held (as applied, "
        f"{'try' if tries == 1 else 'tries'} {tries}, longest bounce {longest:.1f} "
        f"ms): counted as one press ({diff} pixels differ from the simulator's frame after one "
        f"press)" + stretched_note("bounce", valid, tries, stretched_diff),
        tries,
        longest,
    )


CHECKS = {"glitch": check_glitch, "bounce": check_bounce}
FIGURE = {"glitch": "pulse at most", "bounce": "longest bounce"}


def step_glitch_and_bounce(r: Run) -> None:
    """The glitch then the bounce, each once (or as often as HWTEST_REPEAT says, taking turns:
    the box and the simulator stay in step, a press on)."""
    times = {name: r.repeat.get(name, 1) for name in CHECKS}
    runs: dict[str, list[Attempt]] = {name: [] for name in CHECKS}
    loads: list[float] = []
    for n in range(max(times.values())):
        for name, check in CHECKS.items():
            if n >= times[name]:
                continue
            attempt = check(r)
            runs[name].append(attempt)
            if times[name] == 1:
                r.record(name, attempt.ok, attempt.text)
                continue
            loads.append(os.getloadavg()[0])
            line = (
                f"{name} {n + 1}/{times[name]}: {'pass' if attempt.ok else 'FAIL'}: {attempt.text}"
            )
            say(f"  {line}")
            r.log.write(line)
            if not attempt.ok:
                r.save_frame(f"frame-{name}-{n + 1}-box")
                r.save_frame(f"frame-{name}-{n + 1}-sim", r.sim.frame())
                resync(r)
    for name, attempts in runs.items():
        if len(attempts) > 1:
            r.record(f"{name} x{len(attempts)}", *repeated(name, attempts, loads))


def resync(r: Run) -> None:
    """After a repeated check failed, the box and the simulator start again (each from its own
    journal), so that the next run is judged on its own, not on the press the last one lost.
    A box that draws wrong frames stays off the simulator: the next runs fail on their own."""
    r.agent.sh(f"systemctl restart {UNIT}", timeout=180)
    wait_status(r, lambda st: "reader ready" in st)
    r.sim.restart("rdm6300")
    diff, _ = r.settle_on(r.sim.frame())
    line = f"box and simulator restarted: {diff} pixels differ"
    say(f"  {line}")
    r.log.write(line)


def repeated(name: str, attempts: list[Attempt], loads: list[float]) -> tuple[bool, str]:
    """The verdict of a repeated check (every run passed) and its line: the runs that passed,
    how many tries each stimulus took, the spread of its figure and the load it ran under."""
    passed = sum(a.ok for a in attempts)
    tries = sorted(collections.Counter(a.tries for a in attempts).items())
    text = (
        f"{passed}/{len(attempts)} runs passed; stimulus tries per run "
        + ", ".join(f"{t}: {k}" for t, k in tries)
        + f" (at most {STIMULUS_TRIES}); {FIGURE[name]} "
        f"{min(a.ms for a in attempts):.1f}-{max(a.ms for a in attempts):.1f} ms"
        + (f"; load average {min(loads):.1f}-{max(loads):.1f}" if loads else "")
    )
    failed = [(n, a) for n, a in enumerate(attempts, start=1) if not a.ok]
    if failed:
        n, first = failed[0]
        text += f"; failed runs {', '.join(str(n) for n, _ in failed)}; run {n}: {first.text}"
    return not failed, text


def parse_repeat(text: str) -> dict[str, int]:
    """HWTEST_REPEAT: "glitch,bounce:20" (the checks, then how many times), groups joined by
    ";" ("glitch:30;bounce:10"). ValueError names what is wrong."""
    times: dict[str, int] = {}
    for group in filter(None, (g.strip() for g in text.split(";"))):
        names, sep, count = group.rpartition(":")
        if not sep or not count.strip().isdigit() or not 1 <= int(count) <= 1000:
            raise ValueError(f"{group!r}: give CHECKS:N, N from 1 to 1000 (glitch,bounce:20)")
        for name in (n.strip() for n in names.split(",")):
            if name not in REPEATABLE:
                raise ValueError(f"{name!r} cannot be repeated: only {', '.join(REPEATABLE)}")
            times[name] = int(count)
    return times


def parse_only(text: str) -> set[str]:
    """HWTEST_ONLY: the checks to run, by name ("glitch,bounce"; "-" for a space); the steps
    that record none of them are left out. ValueError names an unknown check."""
    known = {check for checks in ONLY.values() for check in checks}
    chosen = {n.strip().replace("-", " ") for n in text.split(",") if n.strip()}
    unknown = sorted(chosen - known)
    if unknown:
        raise ValueError(f"no check {', '.join(unknown)}: one of {', '.join(sorted(known))}")
    return chosen


def journal_since(r: Run, cursor: str) -> str:
    return r.agent.sh(f"journalctl -u {UNIT} -o cat --after-cursor='{cursor}'", check=False)


def cursor(r: Run) -> str:
    out = r.agent.sh(f"journalctl -u {UNIT} -n 1 --show-cursor -o cat", check=False)
    match = re.search(r"-- cursor: (\S+)", out)
    return match.group(1) if match else ""


def guest_offset(r: Run) -> tuple[float, float]:
    """Guest CLOCK_MONOTONIC minus host monotonic (ns), and the round trip that bounds its
    error: the agent stamps its answer after running `true`, between our send and receive."""
    best: tuple[float, float] | None = None
    for _ in range(5):
        t0 = time.monotonic_ns()
        g = r.agent.call(["true"], timeout=10)["t"]
        t1 = time.monotonic_ns()
        if best is None or t1 - t0 < best[1]:
            best = (g - t1, t1 - t0)  # the stamp is late in the round trip: nearer t1
    assert best is not None
    return best


def paced(port: Any, data: bytes, baud: int) -> int:
    """Write DATA a byte at a time at BAUD's pace (10 bits a byte); the first byte's time."""
    first = time.monotonic_ns()
    step = 10 / baud
    for i, byte in enumerate(data):
        port.write(bytes([byte]))
        target = first / 1e9 + (i + 1) * step
        delay = target - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    return first


def step_cards(r: Run) -> None:
    from companion.hal.readers.fake import encode_frame

    offset, rtt = guest_offset(r)
    mark = cursor(r)
    r.feed(r.agent.guest("drain", "0.5")["log"])
    frame = encode_frame(CARD_RDM6300)
    sampler = "/tmp/hwtest-buzzer.json"
    ready = f"{sampler}.ready"
    # The sampler reads the line before the card's first byte leaves (it takes a second or two
    # to start under TCG, longer than the whole cue): it waits, the card waits for it.
    r.agent.sh(
        f"rm -f {sampler} {ready}; (python3 /mnt/{SHARE_TAG}/tools/hwtest/guest.py sample "
        f"{BUZZER} {BUZZER_SAMPLE_SECONDS} --ready {ready} > {sampler}.part && mv {sampler}.part "
        f"{sampler}) >/dev/null 2>&1 &"
    )
    r.agent.sh(f"for i in $(seq 600); do [ -e {ready} ] && exit 0; sleep 0.05; done; exit 1")
    first = paced(r.rdm.port, frame * 2, BAUD_RDM6300)
    for _ in range(3):
        time.sleep(0.1)
        paced(r.rdm.port, frame, BAUD_RDM6300)
    r.sim.tap(CARD_RDM6300)
    want = r.sim.frame()
    shown = r.shown_at_some_point(want)
    diff = 0 if shown else ssd1306.differing(r.panel.pixels(), want)
    after = [w.t_ns for w in r.writes if w.t_ns > first + offset]
    to_panel = (min(after) - (first + offset)) / 1e6 if after else float("nan")
    text = journal_since(r, mark)
    logged = CARD_RDM6300.lower() in text.lower() or CARD_RDM6300[-8:].lower() in text.lower()
    r.figures["card_to_panel"] = f"{to_panel:.0f} ms (+-{rtt / 2e6:.0f} ms)"
    buzz = r.agent.sh(
        f"for i in $(seq 100); do [ -e {sampler} ] && break; sleep 0.2; done; cat {sampler}",
        check=False,
    )
    try:
        during = json.loads(buzz)
    except ValueError:
        during = {}
    after = r.agent.guest("sample", str(BUZZER), "0.5")
    cue = r.sim.box.app.sounds if hasattr(r.sim.box.app, "sounds") else []
    r.record("buzzer", *buzzer_verdict(during, after, list(cue)))
    r.save_frame("frame-card-rdm6300")
    r.record(
        "card rdm6300",
        diff == 0 and logged,
        f"{len(frame) * 5} bytes at {BAUD_RDM6300} baud on /dev/serial0 (ttyS0): shown "
        f"({diff} pixels differ from the simulator's frame), in the daemon's log: {logged}; "
        f"first byte to panel write {to_panel:.0f} ms (clock offset +-{rtt / 2e6:.0f} ms)",
    )


def buzzer_verdict(
    during: dict[str, Any], after: dict[str, Any], cue: list[str]
) -> tuple[bool, str]:
    """The tone toggled the line while the cue played, and after it the line is still and
    low: a passive buzzer left high carries a steady current through its coil."""
    pin = str(BUZZER)
    edges = during.get("edges", {}).get(pin, -1)
    still = after.get("edges", {}).get(pin, -1) == 0
    low = after.get("last", {}).get(pin) is False and after.get("duty", {}).get(pin) == 0
    text = (
        f"GPIO{BUZZER} toggled {edges if edges >= 0 else 'no sample:'} times in "
        f"{during.get('samples', 0)} samples while the card's cue played (the simulator played "
        f"{cue or 'its cue'}; a tone of a few hundred Hz is sampled, not resolved); after it "
        f"{'still' if still else 'still toggling'} and {'low' if low else 'HIGH (left on)'}"
    )
    return edges > 0 and still and low, text


def step_unplug(r: Run) -> None:
    mark = cursor(r)
    answer = r.agent.guest("uart", "unplug", "ttyS0")
    lost = wait_status(r, lambda s: "reader" in s.lower() and "lost" in s.lower())
    r.agent.guest("uart", "plug", f"{answer['address']}@{answer['driver']}")
    back = wait_status(r, lambda s: "lost" not in s.lower())
    r.feed(r.agent.guest("drain", "0.5")["log"])
    # A card after the reader is back: the box reads it again.
    frame = encode_card(CARD_RDM6300)
    for _ in range(4):
        paced(r.rdm.port, frame * 2, BAUD_RDM6300)
        time.sleep(0.1)
    text = journal_since(r, mark)
    reread = text.lower().count(CARD_RDM6300[-8:].lower()) >= 1
    r.record(
        "reader unplugged",
        bool(lost) and bool(back) and reread,
        f"ttyS0's PCI device {answer['address']} unbound from {answer['driver']}: STATUS "
        f'"{lost or "no change"}"; bound again: "{back or "no change"}"; a card read after: '
        f"{reread}",
    )


def encode_card(uid: str) -> bytes:
    from companion.hal.readers.fake import encode_frame

    return encode_frame(uid)


def status(r: Run) -> str:
    return systest.parse_show(r.agent.sh(f"systemctl show {UNIT} -p StatusText")).get(
        "StatusText", ""
    )


def wait_status(r: Run, cond: Any, guard: float = FRAME_GUARD) -> str:
    end = time.monotonic() + guard
    while time.monotonic() < end:
        s = status(r)
        if cond(s):
            return s or "(empty)"
        time.sleep(0.5)
    return ""


def step_pn532(r: Run) -> None:
    """The other reader, on the other UART: the owner's config says pn532 on /dev/ttyS1 and the
    box is restarted (so is the simulator, from its own journal); the project's FakePn532 on
    the host's end of the UART answers the box's own PN532 driver at 115200 baud."""
    a = r.agent
    a.sh(
        f'sed -i -e \'/^\\[reader\\]/,/^\\[/{{s|^type = .*|type = "pn532"|;'
        f's|^port = .*|port = "{PN532_PORT}"|}}\' {CONFIG} && '
        f"{r.bin}/trap-companion config check {CONFIG}"
    )
    a.sh(f"systemctl restart {UNIT}", timeout=180)
    ready = wait_status(r, lambda st: "reader ready: PN532" in st)
    r.sim.restart("pn532")
    restart_diff, _ = r.settle_on(r.sim.frame())
    offset, rtt = guest_offset(r)
    mark = cursor(r)
    r.feed(a.guest("drain", "0.5")["log"])
    first = time.monotonic_ns()
    r.pn532.present(CARD_PN532)
    r.sim.tap(CARD_PN532)
    shown = r.shown_at_some_point(r.sim.frame())
    r.pn532.remove()
    diff = 0 if shown else ssd1306.differing(r.panel.pixels(), r.sim.frame())
    after = [w.t_ns for w in r.writes if w.t_ns > first + offset]
    to_panel = (min(after) - (first + offset)) / 1e6 if after else float("nan")
    text = journal_since(r, mark)
    logged = CARD_PN532.lower() in text.lower()
    r.figures["pn532_to_panel"] = f"{to_panel:.0f} ms (+-{rtt / 2e6:.0f} ms)"
    r.save_frame("frame-card-pn532")
    r.record(
        "card pn532",
        bool(ready) and restart_diff == 0 and diff == 0 and logged,
        f'config reader pn532 on {PN532_PORT}, box restarted: STATUS "{ready or "no reader"}", '
        f"its frame {restart_diff} pixels from the restarted simulator's; card {CARD_PN532} "
        f"shown ({diff} pixels differ from the simulator's frame), in the daemon's log: "
        f"{logged}; card on the antenna to panel write {to_panel:.0f} ms "
        f"(clock offset +-{rtt / 2e6:.0f} ms)",
    )


def step_panel_gone(r: Run) -> None:
    present = "/sys/kernel/debug/i2c-record/present"
    r.agent.sh(f"echo N > {present}")
    gone = wait_status(r, lambda st: "display" in st and "display ok" not in st)
    # The box goes on: a press is taken while the panel is away (its frame comes back later).
    r.press("down", PRESS_SECONDS)
    r.sim.press("down", PRESS_SECONDS)
    r.agent.sh(f"echo Y > {present}")
    diff, took = r.settle_on(r.sim.frame(), quiet=FRAME_GUARD)  # the display's retry deadline
    back = wait_status(r, lambda st: "display ok" in st)
    r.record(
        "panel gone",
        bool(gone) and diff == 0 and bool(back),
        f'i2c-record answering -ENXIO: STATUS "{gone or "no change"}"; a press taken '
        f"meanwhile; back: the frame redrawn in {took:.1f} s, {diff} pixels differ from the "
        f'simulator\'s; STATUS "{back or "unchanged"}"',
    )


def step_leds(r: Run) -> None:
    pins = [LED["red"], LED["green"], LED["blue"]]
    got = r.agent.guest("sample", *map(str, pins), "1.0")
    duty = [got["duty"][str(pin)] for pin in pins]
    _, lights = r.sim.box.app.shown if r.sim.box.app.shown else r.sim.box.app.current()
    want = [round(c, 3) for c in lights.shown()]
    worst = max(abs(d - w) for d, w in zip(duty, want, strict=True))
    r.record(
        "led",
        worst <= LED_TOLERANCE,
        f"GPIO17/27/22 high {duty[0]:.2f}/{duty[1]:.2f}/{duty[2]:.2f} of {got['samples']} "
        f"samples (lgpio's software PWM); the simulator shows {want} ({lights.pattern}); "
        f"off by {worst:.2f} at most (sampling allows {LED_TOLERANCE})",
    )


def sim_press(r: Run, button: str) -> int:
    """A press on both, the frames compared; the pixels that differ."""
    r.press(button, PRESS_SECONDS)
    r.sim.press(button, PRESS_SECONDS)
    return r.settle_on(r.sim.frame())[0]


def step_power_cut(r: Run) -> None:
    a = r.agent
    # To the game menu's first entry (Dice), into its set-up, start it, three rolls: every
    # press compared with the simulator up to the start (the box's rolls are its own).
    diffs = 0
    for _ in range(4):
        if r.sim.screen()[:1] == ["Choose a game"]:
            break
        diffs += sim_press(r, "back")
    for _ in range(6):
        if "> Dice" in r.sim.screen():
            break
        diffs += sim_press(r, "up")
    diffs += sim_press(r, "ok")
    r.press("green", PRESS_SECONDS)  # start the game
    for _ in range(3):
        r.press("green", PRESS_SECONDS)  # roll
    r.feed(a.guest("drain", "1.0")["log"])
    before = r.panel.pixels()
    r.save_frame("frame-before-power-cut")
    journal = a.sh(f"journalctl -u {UNIT} -b -o cat | tail -5", check=False)
    r.log.write(journal)
    r.vm.kill()
    took = r.vm.start()
    a = r.agent
    # The service starts at boot: its READY (bounded) before its state is read.
    a.sh(
        f"for i in $(seq 240); do [ $(systemctl show -P ActiveState {UNIT}) != activating ] "
        "&& break; sleep 0.5; done",
        timeout=150,
    )
    show = systest.parse_show(a.sh(f"systemctl show {UNIT} -p ActiveState -p StatusText"))
    # The box comes back at boot and draws its screen: the frame it showed before the cut.
    r.panel = ssd1306.Ssd1306()
    wait_status(r, lambda st: "menu" not in st.lower() and bool(st))
    diff, _ = r.settle_on(before, quiet=FRAME_GUARD)
    text = a.sh(f"journalctl -u {UNIT} -b -o cat", check=False)
    resumed = systest.last_resumed(text)
    r.save_frame("frame-after-power-cut")
    said = f"resumed {resumed[0]} after {resumed[1]} actions" if resumed else "no resume line"
    r.record(
        "power cut",
        show.get("ActiveState") == "active"
        and diff == 0
        and diffs == 0
        and resumed is not None
        and resumed[0] == "dice",
        f"a dice game with 3 rolls; QEMU killed, booted again in {took:.0f} s: "
        f"{show.get('ActiveState')}, {said}; the frame {diff} pixels from the one before the "
        f"cut (the way there: {diffs} pixels off the simulator's)",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hwtest", description=__doc__.split("\n")[0])
    parser.add_argument("--arch", default="arm64")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder (frames, logs)")
    args = parser.parse_args(argv)
    problem = host_problem(os.geteuid(), shutil.which, args.arch)
    if problem:
        say(f"hwtest: cannot run here: {problem}")
        return EXIT_SKIP
    fault = os.environ.get("HWTEST_FAULT", "")
    if fault and fault not in FAULTS:
        say(f"hwtest: HWTEST_FAULT={fault}: use one of {', '.join(FAULTS)}")
        return EXIT_USAGE
    try:
        repeat = parse_repeat(os.environ.get("HWTEST_REPEAT", ""))
        only = parse_only(os.environ.get("HWTEST_ONLY", ""))
    except ValueError as err:
        say(f"hwtest: HWTEST_REPEAT/HWTEST_ONLY: {err}")
        return EXIT_USAGE
    cache = cache_dir()
    (cache / "logs").mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    log = systest.Log(cache / "logs" / f"{stamp}-hwtest.log")
    say(f"hwtest: log {log.path}")
    started = time.monotonic()
    load = os.getloadavg()[0]
    with contextlib.ExitStack() as stack:
        try:
            ensure_host_packages(log)
            say("hwtest: " + piroot.ensure_emulation("arm64"))
            with (cache / "lock").open("w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # one preparation at a time (apt's lists)
                image, recipe = build_image(cache, log)
                wheels = wheelhouse(cache, recipe, log)
            prepared = time.monotonic() - started
            run_dir = Path(tempfile.mkdtemp(prefix="hwtest-", dir=cache))
            if not args.keep:
                stack.callback(shutil.rmtree, run_dir, ignore_errors=True)
            vm_dir = run_dir / "vm"
            vm_dir.mkdir()
            share = run_dir / "share"
            checkout = share / "checkout"
            for rel in systest.checkout_files(REPO):
                target = checkout / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / rel, target)
            shutil.copytree(wheels, share / "wheels")
            (share / "tools").mkdir()
            shutil.copytree(HERE, share / "tools" / "hwtest",
                            ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
            run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
                 str(image.disk), str(vm_dir / "disk.qcow2")], log)  # fmt: skip
            from companion.hal.readers.fake import FakePn532, FakeRdm6300, PtyPort

            rdm = FakeRdm6300(PtyPort())
            pn532 = FakePn532(PtyPort())
            stack.callback(rdm.close)
            stack.callback(pn532.close)
            vm = Vm(image, recipe["machine"], vm_dir, share, [rdm.path, pn532.path], log)
            stack.callback(vm.stop)
            sim_state = run_dir / "sim-state"
            sim_state.mkdir()
            sim = Simulator(sim_state)
            stack.callback(sim.close)
            say(f"hwtest: booting the VM (qemu-system-aarch64, TCG, cortex-a72; load {load:.1f})")
            boot = vm.start()
            say(f"hwtest: the VM's agent answered {boot:.0f} s after QEMU started")
            r = Run(vm, sim, log, fault, rdm, pn532, repeat=repeat)
            r.figures["boot"] = f"{boot:.0f} s"
            install_started = time.monotonic()
            step_install(r, install_started)
            for step in (step_start_frame, step_press_to_glass, step_buttons,
                         step_glitch_and_bounce, step_leds, step_cards, step_unplug,
                         step_panel_gone, step_pn532, step_power_cut):  # fmt: skip
                checks = ONLY.get(step.__name__.removeprefix("step_"), ())
                if only and checks and not only.intersection(checks):
                    continue
                try:
                    step(r)
                except Failed as err:
                    r.record(step.__name__.removeprefix("step_").replace("_", " "), False, str(err))
            lat = r.latencies_ms
            total = time.monotonic() - started
            r.record(
                "figures",
                True,
                f"press (its release) to first I2C write p50 {pct(lat, 50):.0f} ms "
                f"p99 {pct(lat, 99):.0f} ms "
                f"(n={len(lat)}), to its frame complete p50 {pct(r.last_ms, 50):.0f} ms "
                f"p99 {pct(r.last_ms, 99):.0f} ms (n={len(r.last_ms)}); "
                f"card first byte to panel {r.figures.get('card_to_panel')}; "
                f"READY {r.figures.get('ready')} after start; boot {boot:.0f} s; install "
                f"{r.figures.get('install')}; prepare {prepared:.0f} s; whole run {total:.0f} s; "
                f"load average {load:.1f} at start, {os.getloadavg()[0]:.1f} now (TCG)",
            )
            failed = [x for x in r.results if not x.ok]
            say(
                f"hwtest: {'all checks passed' if not failed else f'{len(failed)} check(s) FAILED'}"
            )
            return EXIT_FAIL if failed else EXIT_PASS
        except Failed as err:
            say(f"FAIL hwtest: {err}")
            return EXIT_FAIL
        except systest.Skip as err:
            say(f"hwtest: cannot run here: {err}")
            return EXIT_SKIP
        except piroot.NoEmulation as err:
            say(f"hwtest: cannot run here: {err}")
            return EXIT_SKIP
        except archive.Missing as err:
            say(f"hwtest: cannot run here: {err}")
            return EXIT_SKIP


if __name__ == "__main__":
    sys.exit(main())
