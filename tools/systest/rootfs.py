"""Where the root comes from: the recipe and its suite, the host it runs on, the cached root
file system (debootstrap), the host's lock and tmpfs, the overlay a run boots, the host's pip
settings and the checkout's files."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import archive  # tools/systest/archive.py: Debian's lists, what is missing
from sysbase import HOST_LOCK, NAME, NSPAWN_RUN, Log, Skip, StepFailed, host_run, say


@dataclass(frozen=True)
class Recipe:
    suite: str
    variant: str
    include: tuple[str, ...]
    mirror: str
    digest: str  # of the file's text: the cache key
    arch: str = ""  # debootstrap's --arch (arm64, armhf: tools/pitest); "" is the host's

    def debootstrap(self, target: Path, mirror: str | None = None) -> list[str]:
        return [
            "debootstrap",
            *([f"--arch={self.arch}"] if self.arch else []),
            f"--variant={self.variant}",
            f"--include={','.join(self.include)}",
            self.suite,
            str(target),
            mirror or self.mirror,
        ]


def host_arch() -> str:
    """Debian's name for this machine's CPU (the bundle a native container takes)."""
    machine = os.uname().machine
    return {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "armhf"}.get(machine, machine)


def recipe_digest(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()[:16]


# The Debian releases a run may take (SUITE=, --suite): each one's version and Python, for the
# messages. The recipe's own suite (bookworm) keeps its cache key and directory; another is built
# beside it, in a directory of its own (cache_for), so the roots in use stay where they are.
SUITES = {"bookworm": ("Debian 12", "3.11"), "trixie": ("Debian 13", "3.13")}


def with_suite(recipe: Recipe, suite: str | None) -> Recipe:
    """The recipe for another Debian release: its key is the file's text and the suite's name."""
    if not suite or suite == recipe.suite:
        return recipe
    if suite not in SUITES:
        raise ValueError(f"SUITE={suite}: not one of {', '.join(SUITES)}")
    digest = recipe_digest(f"{recipe.digest}\0suite={suite}".encode())
    return dataclasses.replace(recipe, suite=suite, digest=digest)


def cache_for(cache: Path, suite: str, default: str) -> Path:
    """The cache directory for SUITE: the default suite's own, else one beside it (-SUITE), so a
    build for one release never clears the roots of another."""
    return cache if suite == default else cache.with_name(f"{cache.name}-{suite}")


def describe(recipe: Recipe) -> str:
    """'Debian 13 (trixie)': how the messages name the release."""
    return f"{SUITES.get(recipe.suite, ('Debian',))[0]} ({recipe.suite})"


def load_recipe(text: bytes, where: str = "recipe.toml", suite: str | None = None) -> Recipe:
    if suite:
        return with_suite(load_recipe(text, where), suite)
    try:
        data = tomllib.loads(text.decode())
        missing = [key for key in ("suite", "variant", "include", "mirror") if key not in data]
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        include = data["include"]
        if not isinstance(include, list) or not all(isinstance(p, str) for p in include):
            raise ValueError("include must be a list of package names")
        return Recipe(
            suite=str(data["suite"]),
            variant=str(data["variant"]),
            include=tuple(include),
            mirror=str(data["mirror"]),
            digest=recipe_digest(text),
        )
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"{where}: {err}") from err


def host_problem(euid: int, which: Callable[[str], str | None]) -> str | None:
    """Why this machine cannot run the systest, in one line; None when it can."""
    if euid != 0:
        return "needs root (systemd-nspawn, mounts): run `sudo make systest`"
    missing = [tool for tool in ("systemd-nspawn", "nsenter", "mount") if which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (Debian: apt-get install systemd-container util-linux)"
    return None


def pip_settings(listing: str) -> dict[str, str]:
    """`pip config list` (files and PIP_* variables) as one [global] section: what the host's pip
    uses. A variable wins over a file, as in pip."""
    files: dict[str, str] = {}
    env: dict[str, str] = {}
    for line in listing.splitlines():
        match = re.match(r"^(:env:|[\w-]+)\.([\w-]+)=(.*)$", line.strip())
        if not match:
            continue
        scope, key, value = match.groups()
        try:
            value = shlex.split(value)[0] if value else ""
        except (ValueError, IndexError):
            value = value.strip("'\"")
        if scope == ":env:":
            env[key] = value
        elif scope in ("global", "install"):
            files.setdefault(key, value)
    return files | env


def pip_conf(settings: dict[str, str]) -> str:
    lines = ["# The host's pip configuration, copied by `make systest` (tools/systest)", "[global]"]
    lines += [f"{key} = {value}" for key, value in sorted(settings.items())]
    return "\n".join(lines) + "\n"


def pip_paths(settings: dict[str, str]) -> list[str]:
    """The host paths pip's configuration names (files and file:// indexes)."""
    paths = []
    for value in settings.values():
        for token in value.split():
            path = token.removeprefix("file://").rstrip("/")
            # A local index's pages link to files beside its simple/ folder: bring its root.
            if token.startswith("file://") and path.endswith("/simple"):
                path = path.removesuffix("/simple")
            if path.startswith("/") and path not in paths:
                paths.append(path)
    return paths


def cache_dir(env: dict[str, str]) -> Path:
    if env.get("SYSTEST_CACHE"):
        return Path(env["SYSTEST_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / NAME / "systest"


def fs_type(path: Path) -> str:
    while not path.exists():
        path = path.parent
    out = subprocess.run(["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True)
    return out.stdout.strip()


def make_dirs(path: Path) -> list[Path]:
    """mkdir -p, returning the folders it made (deepest last) so they can be removed again."""
    made: list[Path] = []
    for parent in [*reversed(path.parents), path]:
        if not parent.exists():
            parent.mkdir()
            made.append(parent)
    return made


def unmount(log: Log, where: Path) -> bool:
    """WHERE unmounted; False, with a warning, where it is busy (another run on it)."""
    proc = host_run(log, ["umount", str(where)])
    if proc.returncode != 0:
        say(f"systest: warning: could not unmount {where}: {proc.stderr.strip()}")
        return False
    return True


def one_run_at_a_time(stack: contextlib.ExitStack) -> None:
    lock = stack.enter_context(HOST_LOCK.open("w"))
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        say(f"systest: another systest is running on this machine; waiting for it ({HOST_LOCK})")
        fcntl.flock(lock, fcntl.LOCK_EX)


def nspawn_tmpfs(stack: contextlib.ExitStack, log: Log) -> None:
    """nspawn refuses to start unless /run/systemd/nspawn is on a tmpfs: mount one if it is not
    (and take it away at the end). A tmpfs that is already there is left alone."""
    if fs_type(NSPAWN_RUN) == "tmpfs":
        return
    made = make_dirs(NSPAWN_RUN)
    proc = host_run(log, ["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", str(NSPAWN_RUN)])
    if proc.returncode != 0:
        remove_dirs(made)
        raise StepFailed(f"cannot mount a tmpfs on {NSPAWN_RUN}: {proc.stderr.strip()}")
    # The folders go only once the tmpfs is off them; a tmpfs another run still uses stays.
    stack.callback(lambda: unmount(log, NSPAWN_RUN) and remove_dirs(made))


def remove_dirs(made: list[Path]) -> bool:
    """The folders make_dirs made, deepest first, where they are empty and free; one another run
    still uses (a container of pitest's on the tmpfs: EBUSY) stays, and is reused."""
    for folder in reversed(made):
        try:
            folder.rmdir()
        except FileNotFoundError:
            continue
        except OSError as err:
            say(f"systest: warning: left {folder} in place: {err.strerror}")
            return False
    return True


def root_failure(recipe: Recipe, partial: Path, build_log: Path, status: int) -> str:
    """Why debootstrap failed, in one line: the recipe's packages the suite's list (as
    debootstrap fetched it into the partial root) has none of, else debootstrap's own error."""
    lists = partial / "var" / "lib" / "apt" / "lists"
    arch = recipe.arch or host_arch()
    stanzas = archive.read_lists(lists, recipe.include) if lists.is_dir() else []
    absent = archive.absent(stanzas, recipe.include, arch) if stanzas else []
    if absent:
        return (
            f"debootstrap failed (exit {status}): Debian {recipe.suite} for {arch} has no "
            f"{', '.join(absent)} (the recipe's include; its log: {build_log})"
        )
    said = archive.debootstrap_failure(build_log.read_text(errors="replace"))
    return f"debootstrap failed (exit {status}): {said} (its log: {build_log})"


def root_fs(cache: Path, recipe: Recipe, log: Log, rebuild: bool) -> Path:
    """The cached root file system for this recipe, built by debootstrap when missing."""
    cache.mkdir(parents=True, exist_ok=True)
    root = cache / f"root-{recipe.digest}"
    with (cache / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time; others wait and reuse it
        if root.is_dir() and not rebuild:
            say(f"systest: root file system {root} (cached)")
            return root
        if shutil.which("debootstrap") is None:
            raise Skip(
                "needs debootstrap to build its root file system (apt-get install debootstrap)"
            )
        partial = cache / f"root-{recipe.digest}.partial"
        for old in (partial, root):
            if old.exists():
                shutil.rmtree(old)
        mirror = os.environ.get("SYSTEST_MIRROR") or recipe.mirror
        build_log = cache / "build.log"
        say(
            f"systest: building the root file system (Debian {recipe.suite}"
            + (f" for {recipe.arch}, under QEMU" if recipe.arch else "")
            + f", once; about {'10 to 20' if recipe.arch else '3 to 6'} minutes) in {root}; "
            f"its log: {build_log}"
        )
        started = time.monotonic()
        with build_log.open("w") as out:
            proc = subprocess.run(
                recipe.debootstrap(partial, mirror),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        if proc.returncode != 0:
            raise StepFailed(root_failure(recipe, partial, build_log, proc.returncode))
        partial.rename(root)
        (cache / f"root-{recipe.digest}.recipe").write_text(shlex.join(recipe.debootstrap(root)))
        for old in cache.glob("root-*"):  # the roots of older recipes: ours, and unused now
            if old.name.split(".")[0] != root.name:
                if old.is_dir():
                    shutil.rmtree(old)
                else:
                    old.unlink()
        say(f"systest: root file system built in {time.monotonic() - started:.0f} s")
        log.write(f"built {root} in {time.monotonic() - started:.0f} s")
        return root


def overlay(stack: contextlib.ExitStack, log: Log, lower: Path, run_dir: Path) -> Path:
    """The run's own root: an overlay on the cached one (a copy where overlayfs fails)."""
    upper, work, merged = run_dir / "upper", run_dir / "work", run_dir / "root"
    for d in (upper, work, merged):
        d.mkdir(parents=True)
    stack.callback(shutil.rmtree, run_dir, ignore_errors=True)
    options = f"lowerdir={lower},upperdir={upper},workdir={work}"
    proc = host_run(log, ["mount", "-t", "overlay", "overlay", "-o", options, str(merged)])
    if proc.returncode == 0:
        stack.callback(unmount, log, merged)
    else:
        say("systest: overlayfs failed here; copying the root file system instead")
        copy = host_run(log, ["cp", "-a", "--reflink=auto", f"{lower}/.", str(merged)], 600)
        if copy.returncode != 0:
            raise StepFailed(f"cannot copy the root file system: {copy.stderr.strip()}")
    return merged


def host_pip(log: Log) -> tuple[str, list[str]]:
    """The host's pip configuration as a pip.conf, and the paths it names."""
    try:
        proc = host_run(log, [sys.executable, "-m", "pip", "config", "list"])
        listing = proc.stdout if proc.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        listing = ""
    settings = pip_settings(listing)
    for variable in ("https_proxy", "HTTPS_PROXY"):
        if os.environ.get(variable) and "proxy" not in settings:
            settings["proxy"] = os.environ[variable]
    return pip_conf(settings), pip_paths(settings)


def checkout_files(repo: Path) -> list[str]:
    """The checkout as a contributor has it: tracked and new files, not what git ignores."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
    )
    if proc.returncode == 0:
        return [f for f in proc.stdout.split("\0") if f and (repo / f).is_file()]
    skip = {".git", ".venv", ".cache", "__pycache__", ".pytest_cache", ".ruff_cache"}
    return [
        str(p.relative_to(repo))
        for p in repo.rglob("*")
        if p.is_file() and not skip.intersection(p.relative_to(repo).parts)
    ]
