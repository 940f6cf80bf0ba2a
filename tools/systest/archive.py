"""Debian's package lists as the test tools read them, and how they choose from them.

The tools that take packages from Debian's archive (hwtest's kernel, the newer QEMU for trixie,
the roots debootstrap builds) pin no version of their own: they choose from the lists of the
moment, so a version the archive has dropped is never asked for. The choosers are pure
functions over parsed lists (tests/test_archive.py feeds them lists by hand); where no
consistent choice exists they raise Missing, whose text is one line naming the package and the
version that is not there.

Versions are compared as dpkg compares them (epoch, upstream, Debian revision; "~" sorts before
everything, even the end).
"""

from __future__ import annotations

import functools
import gzip
import lzma
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


class Missing(Exception):
    """No consistent choice in the archive's lists now (one line: which package, which version,
    for which architecture)."""


@dataclass(frozen=True)
class Stanza:
    """One package of a Packages list: what the choosers need of it."""

    package: str
    version: str
    architecture: str
    depends: str = ""
    sha256: str = ""
    filename: str = ""


def parse_packages(text: str, only: Iterable[str] | None = None) -> list[Stanza]:
    """The stanzas of a Packages list (an apt list file, or a part of one); of the packages
    named ONLY, when given."""
    out: list[Stanza] = []
    names = None if only is None else set(only)
    for block in text.split("\n\n"):
        if names is not None:
            head = block.lstrip("\n").split("\n", 1)[0]
            if head.partition(":")[2].strip() not in names:
                continue
        fields: dict[str, str] = {}
        key = ""
        for line in block.splitlines():
            if not line.strip():
                continue
            if line[0] in " \t":  # a continuation line (Description's body)
                if key:
                    fields[key] += "\n" + line.strip()
                continue
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
        if "Package" in fields and "Version" in fields:
            out.append(
                Stanza(
                    fields["Package"],
                    fields["Version"],
                    fields.get("Architecture", ""),
                    fields.get("Depends", ""),
                    fields.get("SHA256", ""),
                    fields.get("Filename", ""),
                )
            )
    return out


def read_lists(lists_dir: Path, only: Iterable[str] | None = None) -> list[Stanza]:
    """Every Packages list apt keeps in LISTS_DIR (Dir::State::Lists), however apt stored it
    (plain, or compressed as Acquire::GzipIndexes asks: gz, xz, lz4, zst; apt-helper reads the
    compressions Python's library has not); of the packages named ONLY, when given."""
    stanzas: list[Stanza] = []
    for path in sorted(lists_dir.glob("*_Packages*")):
        name = path.name
        if name.endswith("_Packages"):
            raw = path.read_bytes()
        elif name.endswith("_Packages.gz"):
            raw = gzip.decompress(path.read_bytes())
        elif name.endswith("_Packages.xz"):
            raw = lzma.decompress(path.read_bytes())
        else:
            raw = subprocess.run(
                ["/usr/lib/apt/apt-helper", "cat-file", str(path)], capture_output=True, check=True
            ).stdout
        stanzas += parse_packages(raw.decode(errors="replace"), only)
    return stanzas


# --- dpkg's version order -----------------------------------------------------------------------


def _order(c: str) -> int:
    if c == "~":
        return -1
    if c.isalpha():
        return ord(c)
    return ord(c) + 256


def _compare_part(a: str, b: str) -> int:
    i = j = 0
    while i < len(a) or j < len(b):
        while (i < len(a) and not a[i].isdigit()) or (j < len(b) and not b[j].isdigit()):
            ac = _order(a[i]) if i < len(a) and not a[i].isdigit() else 0
            bc = _order(b[j]) if j < len(b) and not b[j].isdigit() else 0
            if ac != bc:
                return ac - bc
            i += 1
            j += 1
        while i < len(a) and a[i] == "0":
            i += 1
        while j < len(b) and b[j] == "0":
            j += 1
        first = 0
        while i < len(a) and a[i].isdigit() and j < len(b) and b[j].isdigit():
            if not first:
                first = ord(a[i]) - ord(b[j])
            i += 1
            j += 1
        if i < len(a) and a[i].isdigit():
            return 1
        if j < len(b) and b[j].isdigit():
            return -1
        if first:
            return first
    return 0


def _split(version: str) -> tuple[int, str, str]:
    epoch, _, rest = version.rpartition(":") if ":" in version else ("0", "", version)
    upstream, _, revision = rest.rpartition("-") if "-" in rest else (rest, "", "")
    return int(epoch or 0), upstream, revision


def compare(a: str, b: str) -> int:
    """<0, 0, >0 as dpkg --compare-versions A lt|eq|gt B."""
    ea, ua, ra = _split(a)
    eb, ub, rb = _split(b)
    if ea != eb:
        return ea - eb
    return _compare_part(ua, ub) or _compare_part(ra, rb)


version_key = functools.cmp_to_key(compare)


def upstream(version: str) -> str:
    """The upstream part of a Debian version: "6.1.192" of "6.1.192-3" (the epoch aside)."""
    return _split(version)[1]


# --- choosing -----------------------------------------------------------------------------------


def versions(stanzas: Iterable[Stanza], package: str, arch: str | None = None) -> list[str]:
    """PACKAGE's versions in the lists, newest first (ARCH, or "all", when given)."""
    found = {
        s.version
        for s in stanzas
        if s.package == package and (arch is None or s.architecture in (arch, "all"))
    }
    return sorted(found, key=version_key, reverse=True)


def stanza(stanzas: Iterable[Stanza], package: str, version: str, arch: str) -> Stanza | None:
    for s in stanzas:
        if s.package == package and s.version == version and s.architecture in (arch, "all"):
            return s
    return None


def same_upstream(stanzas: Iterable[Stanza], package: str, version: str, arch: str) -> str:
    """PACKAGE at VERSION for ARCH if the lists have it, else the newest Debian revision of the
    same upstream version (a rebuild of one upstream release ships the same tools); Missing
    (one line) when the lists have no revision of that upstream at all."""
    have = versions(stanzas, package, arch)
    if version in have:
        return version
    same = [v for v in have if upstream(v) == upstream(version)]
    if same:
        return same[0]
    has = f"it has {', '.join(have)}" if have else "it has none"
    raise Missing(f"{package} {upstream(version)}-* for {arch} is not in the archive ({has})")


def at_least(stanzas: Iterable[Stanza], package: str, minimum: str, arch: str, where: str) -> str:
    """The newest version of PACKAGE for ARCH in the lists, if it is MINIMUM or later; else
    Missing (one line)."""
    have = versions(stanzas, package, arch)
    if have and compare(have[0], minimum) >= 0:
        return have[0]
    has = f"newest {have[0]}" if have else "none at all"
    raise Missing(f"{package} {minimum} or later for {arch} is not in {where} ({has})")


def absent(stanzas: Iterable[Stanza], packages: Iterable[str], arch: str) -> list[str]:
    """Which of PACKAGES the lists have no version of for ARCH (nor "all")."""
    have = {s.package for s in stanzas if s.architecture in (arch, "all")}
    return [p for p in packages if p not in have]


# --- what a tool said was missing, in one line --------------------------------------------------


def debootstrap_failure(output: str) -> str:
    """debootstrap's reason, one line: its last "E:" line ("Couldn't find these debs: ..."), else
    its last line."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("E:")]
    return (errors or lines or ["no output"])[-1]


def pip_failure(stderr: str) -> str:
    """pip's reason, one line: the requirement PyPI has no version of, with the versions it has
    ("Could not find a version that satisfies the requirement lgpio>=0.2 (from versions:
    none)"), else pip's last ERROR line, else its last line; at most 300 characters."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln.removeprefix("ERROR:").strip() for ln in lines if ln.startswith("ERROR:")]
    wanted = [ln for ln in errors if ln.startswith("Could not find a version")]
    said = (wanted or errors or lines or ["no output"])[-1]
    return said if len(said) <= 300 else said[:297] + "..."
