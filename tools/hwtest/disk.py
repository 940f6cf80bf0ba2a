"""How the image is built: its digest, the device tree, the initramfs, the disk, the wheels."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import archive  # tools/systest/archive.py: Debian's lists, versions, choosers
import piroot  # tools/pitest/piroot.py: the cached arm64 root
import sysbase  # tools/systest/sysbase.py: Log, Skip, NAME, the parsers
from hwbase import IMAGE, RECIPE, Failed, load_recipe, run, say
from kernel import HOST_ARCH, Arm64Apt, build_modules, module_closure

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def cache_dir() -> Path:
    env = os.environ
    if env.get("HWTEST_CACHE"):
        return Path(env["HWTEST_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / sysbase.NAME / "hwtest-arm64"


def image_digest(texts: list[bytes], abi: str, version: str, root_name: str) -> str:
    h = hashlib.sha256()
    for text in texts:
        h.update(text + b"\0")
    h.update(f"{abi}\0{version}\0{root_name}".encode())
    return h.hexdigest()[:16]


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


def wheelhouse(cache: Path, recipe: dict[str, Any], log: sysbase.Log) -> Path:
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


def build_image(cache: Path, log: sysbase.Log) -> tuple[Image, dict[str, Any]]:
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
