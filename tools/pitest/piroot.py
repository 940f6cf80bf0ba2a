"""The Pi's CPUs on this machine: a cached Debian root for arm64 or armhf, run by QEMU.

`make pitest` and `make systest ARCH=...` share it. The kernel runs the root's ARM programs
through binfmt_misc and qemu-user-static; the handlers Debian registers lack the C flag
(credentials), without which a setuid program inside (sudo) fails, so they are registered again
with it. The root is built once by debootstrap from tools/systest/recipe.toml's package list plus
tools/pitest/recipe.toml's for the architecture, keyed by the hash of both texts and the
architecture; another Debian release than the recipe's (SUITE=trixie) has its own key and cache
directory beside the default one (pi-arm64-trixie).
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tools" / "systest"))

import systest  # noqa: E402  (tools/systest/systest.py: the recipe, the cached root)

PI_RECIPE = HERE / "recipe.toml"
BINFMT = Path("/proc/sys/fs/binfmt_misc")
BINFMT_CONF = Path("/usr/lib/binfmt.d")
# Debian's name for the architecture -> the CPU QEMU emulates, and what `uname -m` says inside.
ARCHES = {"arm64": ("aarch64", "aarch64"), "armhf": ("arm", "armv7l")}
FLAGS = "OCPF"  # open-binary, credentials, preserve argv[0], fix the interpreter at registration


class NoEmulation(Exception):
    """This machine cannot run the architecture's programs (one line says why)."""


def pi_recipe(
    base_text: bytes,
    pi_text: bytes,
    arch: str,
    where: str = "recipe.toml",
    suite: str | None = None,
) -> systest.Recipe:
    """systest's recipe for ARCH: its packages plus the architecture's, its own cache key."""
    if arch not in ARCHES:
        raise ValueError(f"ARCH={arch}: not one of {', '.join(ARCHES)}")
    base = systest.load_recipe(base_text)
    try:
        extra = tomllib.loads(pi_text.decode()).get(arch, {}).get("include", [])
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{where}: {err}") from err
    if not isinstance(extra, list) or not all(isinstance(p, str) for p in extra):
        raise ValueError(f"{where}: [{arch}] include must be a list of package names")
    recipe = dataclasses.replace(
        base,
        include=base.include + tuple(p for p in extra if p not in base.include),
        arch=arch,
        digest=systest.recipe_digest(base_text + b"\0" + pi_text + b"\0" + arch.encode()),
    )
    return systest.with_suite(recipe, suite)


def load(arch: str, suite: str | None = None) -> systest.Recipe:
    return pi_recipe(
        systest.RECIPE.read_bytes(), PI_RECIPE.read_bytes(), arch, str(PI_RECIPE), suite
    )


def cache_dir(env: dict[str, str], arch: str, suite: str | None = None) -> Path:
    """PITEST_CACHE, else beside systest's cache: ~/.cache/trap-companion/pi-ARCH; another Debian
    release than the recipe's in its own directory beside it (pi-ARCH-SUITE)."""
    if env.get("PITEST_CACHE"):
        cache = Path(env["PITEST_CACHE"]) / arch
    else:
        base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
        cache = base / systest.NAME / f"pi-{arch}"
    default = systest.load_recipe(systest.RECIPE.read_bytes(), str(systest.RECIPE)).suite
    return systest.cache_for(cache, suite or default, default)


def with_flags(line: str, flags: str = FLAGS) -> str:
    """A binfmt.d registration line with its flags field replaced."""
    fields = line.strip().split(":")
    if len(fields) != 8:
        raise ValueError(f"not a binfmt_misc registration line: {line.strip()!r}")
    return ":".join([*fields[:7], flags])


def handler_flags(text: str) -> str | None:
    """The flags of a registered handler (/proc/sys/fs/binfmt_misc/qemu-*), None if disabled."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "enabled":
        return None
    for line in lines:
        if line.startswith("flags:"):
            return line.split(":", 1)[1].strip()
    return ""


def ensure_emulation(arch: str) -> str:
    """Make the kernel run ARCH's programs through QEMU with the C flag; say what it did.
    NoEmulation (one line) where it cannot: no binfmt_misc, no qemu-user-static, not root."""
    cpu, _ = ARCHES[arch]
    handler = BINFMT / f"qemu-{cpu}"
    interpreter = Path(f"/usr/libexec/qemu-binfmt/{cpu}-binfmt-P")
    if not BINFMT.is_dir():
        raise NoEmulation("this kernel has no binfmt_misc: the Pi's CPUs cannot be emulated here")
    if not (BINFMT / "register").exists():
        if os.geteuid() != 0:
            raise NoEmulation(f"binfmt_misc is not mounted on {BINFMT} (needs root to mount it)")
        proc = subprocess.run(
            ["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise NoEmulation(f"cannot mount binfmt_misc on {BINFMT}: {proc.stderr.strip()}")
    flags = handler_flags(handler.read_text()) if handler.exists() else None
    if flags is not None and "C" in flags and "F" in flags:
        return f"qemu-{cpu} registered ({flags})"
    conf = BINFMT_CONF / f"qemu-{cpu}.conf"
    if not conf.exists() or not interpreter.exists():
        raise NoEmulation(f"no QEMU for {arch} (apt-get install qemu-user-static binfmt-support)")
    if os.geteuid() != 0:
        raise NoEmulation(f"qemu-{cpu} needs registering with flags {FLAGS}: run as root")
    try:
        if handler.exists():
            handler.write_text("-1")  # remove, then register again with our flags
        (BINFMT / "register").write_text(with_flags(conf.read_text()))
    except OSError as err:
        raise NoEmulation(f"cannot register qemu-{cpu} with binfmt_misc: {err}") from err
    return f"qemu-{cpu} registered again with flags {FLAGS} (was {flags or 'absent'})"


def root(arch: str, log: systest.Log, rebuild: bool = False, suite: str | None = None) -> Path:
    """The cached root for ARCH, built when missing (about 9 minutes under emulation)."""
    cache = cache_dir(dict(os.environ), arch, suite)
    return systest.root_fs(cache, load(arch, suite), log, rebuild)


if __name__ == "__main__":  # python3 tools/pitest/piroot.py ARCH [SUITE]: build (or find) it
    import time

    arch, suite = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
    print(ensure_emulation(arch), flush=True)
    cache = cache_dir(dict(os.environ), arch, suite)
    (cache / "logs").mkdir(parents=True, exist_ok=True)
    log = systest.Log(cache / "logs" / f"{time.strftime('%Y%m%d-%H%M%S')}-root.log")
    print(root(arch, log, suite=suite), flush=True)
