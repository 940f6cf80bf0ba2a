"""Where the kernel's pieces come from: Debian's lists, the kernel chosen, its modules built."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import archive  # tools/systest/archive.py: Debian's lists, versions, choosers
import rootfs  # tools/systest/rootfs.py: host_arch, checkout_files
import sysbase  # tools/systest/sysbase.py: Log, Skip, NAME, the parsers
from hwbase import Failed, run, say

HERE = Path(__file__).resolve().parent

IMAGE_DEPENDS = re.compile(r"\blinux-image-(\d[\w.+~-]*?)-arm64\b")

HOST_ARCH = rootfs.host_arch()  # where fixdep and modpost run: the build tools' architecture


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

    def __init__(self, cache: Path, log: sysbase.Log) -> None:
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


def build_modules(cache: Path, kroot: Path, abi: str, source: str, apt: Arm64Apt,
                  recipe: dict[str, Any], log: sysbase.Log) -> Path:  # fmt: skip
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
