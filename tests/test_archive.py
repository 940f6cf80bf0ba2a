"""Choosing from Debian's lists of the moment (issue 44): dpkg's version order, the lists as apt
keeps them, and every chooser fed lists by hand with the skew that broke a new machine (the
arm64 kernel 6.1.192-2 while the host's build tools were already 6.1.192-3) and with an old
version gone. No network, no root: the choosers are pure."""

from __future__ import annotations

import dataclasses
import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools" / "hwtest"))
sys.path.insert(0, str(REPO / "tools" / "systest"))
sys.path.insert(0, str(REPO / "tools" / "pitest"))
sys.path.insert(0, str(REPO / "tools" / "bundle"))

import archive  # noqa: E402
import build  # noqa: E402  (tools/bundle/build.py)
import hwbase  # noqa: E402
import hwtest  # noqa: E402
import kernel  # noqa: E402
import newer_qemu  # noqa: E402
import systest  # noqa: E402

RECIPE = hwbase.load_recipe(hwbase.RECIPE.read_bytes())
HOST = kernel.HOST_ARCH


def packages(*rows: tuple[str, str, str] | tuple[str, str, str, str]) -> str:
    """A Packages list: (name, version, arch[, depends]) each."""
    out = []
    for row in rows:
        name, version, arch = row[:3]
        text = f"Package: {name}\nVersion: {version}\nArchitecture: {arch}\n"
        if len(row) > 3:
            text += f"Depends: {row[3]}\n"
        text += "Description: a package\n some words\n .\n more\n"
        out.append(text)
    return "\n".join(out)


def kernel_lists(
    meta: str, abi: str, image: str, headers: str | None = None
) -> list[archive.Stanza]:
    headers = headers or image
    return archive.parse_packages(
        packages(
            ("linux-image-arm64", meta, "arm64", f"linux-image-{abi}-arm64 (= {image})"),
            (f"linux-image-{abi}-arm64", image, "arm64", "kmod"),
            (f"linux-headers-{abi}-arm64", headers, "arm64"),
            (f"linux-headers-{abi}-common", headers, "all"),
        )
    )


def host_lists(kbuild: list[str], source: list[str]) -> list[archive.Stanza]:
    rows = [("linux-kbuild-6.1", v, HOST) for v in kbuild]
    rows += [("linux-source-6.1", v, "all") for v in source]
    return archive.parse_packages(packages(*rows))


# --- versions -----------------------------------------------------------------------------------

ORDERED = [
    "1.0~rc1",
    "1.0",
    "1.0-1~bpo12+1",
    "1.0-1",
    "1.0-1.1",
    "1.0a",
    "1.0+dfsg-2",
    "1.0.1",
    "6.1.192-2",
    "6.1.192-3",
    "6.1.192-10",
    "9.9",
    "10.0",
    "1:0.9",
]


@pytest.mark.parametrize("i", range(len(ORDERED) - 1))
def test_versions_sort_as_dpkg_sorts_them(i: int) -> None:
    a, b = ORDERED[i], ORDERED[i + 1]
    assert archive.compare(a, b) < 0 < archive.compare(b, a)
    assert archive.compare(a, a) == 0


def test_versions_agree_with_dpkg_itself() -> None:
    if subprocess.run(["which", "dpkg"], capture_output=True).returncode:
        pytest.skip("no dpkg on this machine")
    for a in ORDERED:
        for b in ORDERED:
            lt = subprocess.run(["dpkg", "--compare-versions", a, "lt", b]).returncode == 0
            assert (archive.compare(a, b) < 0) == lt, (a, b)


def test_upstream_is_the_version_without_epoch_and_revision() -> None:
    assert archive.upstream("6.1.192-3") == "6.1.192"
    assert archive.upstream("1:7.2+dfsg-7+deb12u18") == "7.2+dfsg"
    assert archive.upstream("2.0") == "2.0"


def test_lists_are_read_however_apt_keeps_them(tmp_path: Path) -> None:
    text = packages(("a", "1", "arm64"), ("b", "2", "all"), ("c", "3", "arm64"))
    (tmp_path / "x_main_binary-arm64_Packages").write_text(text)
    (tmp_path / "y_main_binary-arm64_Packages.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "x_InRelease").write_text("not a list")
    got = archive.read_lists(tmp_path, {"a", "b"})
    assert sorted((s.package, s.version) for s in got) == [("a", "1")] * 2 + [("b", "2")] * 2
    assert archive.versions(got, "b", "arm64") == ["2"]


# --- hwtest's kernel ----------------------------------------------------------------------------


def test_the_skew_of_issue_44_takes_the_build_tools_of_another_revision() -> None:
    """arm64 still at 6.1.192-2, the host's linux-kbuild already 6.1.192-3 (-2 dropped)."""
    target = kernel_lists("6.1.192-2", "6.1.0-56", "6.1.192-2")
    host = host_lists(["6.1.192-3", "6.1.176-1"], ["6.1.192-3", "6.1.192-2", "6.1.176-1"])
    chosen = kernel.choose_kernel(target, host, RECIPE)
    assert (chosen.abi, chosen.version, chosen.kbuild, chosen.source) == (
        "6.1.0-56", "6.1.192-2", "6.1.192-3", "6.1.192-2",
    )  # fmt: skip
    assert chosen.wanted(RECIPE) == {
        "linux-image-6.1.0-56-arm64": "6.1.192-2",
        "linux-headers-6.1.0-56-arm64": "6.1.192-2",
        "linux-headers-6.1.0-56-common": "6.1.192-2",
        "linux-kbuild-6.1": "6.1.192-3",
        "linux-source-6.1": "6.1.192-2",
    }


def test_the_same_revision_is_taken_where_the_lists_have_it() -> None:
    target = kernel_lists("6.1.192-3", "6.1.0-56", "6.1.192-3")
    host = host_lists(["6.1.192-3", "6.1.192-2"], ["6.1.192-3", "6.1.192-2"])
    chosen = kernel.choose_kernel(target, host, RECIPE)
    assert (chosen.version, chosen.kbuild, chosen.source) == ("6.1.192-3",) * 3


def test_a_kernel_whose_build_tools_are_gone_falls_back_to_an_older_complete_one() -> None:
    """The newest kernel's upstream has no build tools yet: the older kernel the metapackage
    named (still in the lists with all its packages) is taken."""
    target = kernel_lists("6.1.200-1", "6.1.0-60", "6.1.200-1") + kernel_lists(
        "6.1.176-1", "6.1.0-40", "6.1.176-1"
    )
    host = host_lists(["6.1.176-1"], ["6.1.176-1"])
    chosen = kernel.choose_kernel(target, host, RECIPE)
    assert (chosen.abi, chosen.version, chosen.kbuild) == ("6.1.0-40", "6.1.176-1", "6.1.176-1")


def test_no_complete_kernel_names_the_missing_package_in_one_line() -> None:
    target = kernel_lists("6.1.192-2", "6.1.0-56", "6.1.192-2")
    host = host_lists(["6.1.176-1"], ["6.1.192-2"])  # the old build tools only
    with pytest.raises(archive.Missing) as err:
        kernel.choose_kernel(target, host, RECIPE)
    text = str(err.value)
    assert "\n" not in text
    assert f"linux-kbuild-6.1 6.1.192-* for {HOST} is not in the archive" in text
    assert "6.1.176-1" in text  # what it has instead


def test_headers_of_another_revision_than_the_image_are_named() -> None:
    target = kernel_lists("6.1.192-2", "6.1.0-56", "6.1.192-2", headers="6.1.192-3")
    host = host_lists(["6.1.192-3"], ["6.1.192-3"])
    with pytest.raises(
        archive.Missing, match=re.escape("linux-headers-6.1.0-56-arm64 6.1.192-2 for arm64")
    ):
        kernel.choose_kernel(target, host, RECIPE)


def test_no_metapackage_at_all_is_said() -> None:
    with pytest.raises(archive.Missing, match="linux-image-arm64 for arm64"):
        kernel.choose_kernel([], host_lists(["6.1.192-3"], []), RECIPE)


def test_hwtest_exits_77_with_one_line_when_the_archive_has_no_complete_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_kernel(cache: Path, log: object) -> None:
        raise archive.Missing("no kernel with all its packages: linux-kbuild-6.1 6.1.192-* gone")

    monkeypatch.setenv("HWTEST_CACHE", str(tmp_path))
    monkeypatch.setattr(hwtest, "host_problem", lambda *a: None)
    monkeypatch.setattr(hwtest, "ensure_host_packages", lambda log: None)
    monkeypatch.setattr(hwtest.piroot, "ensure_emulation", lambda arch: "emulation ready")
    monkeypatch.setattr(hwtest, "build_image", no_kernel)
    assert hwtest.main(["--arch", "arm64"]) == hwtest.EXIT_SKIP
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == (
        "hwtest: cannot run here: no kernel with all its packages: linux-kbuild-6.1 6.1.192-* gone"
    )
    assert not any("Traceback" in line for line in out)


# --- the newer QEMU for trixie ------------------------------------------------------------------


def qemu_lists(*rows: tuple[str, str]) -> list[archive.Stanza]:
    return archive.parse_packages(packages(*(("qemu-user", v, arch) for v, arch in rows)))


def test_the_newer_qemu_is_the_lists_newest_for_the_host() -> None:
    """The suite moved on from the version an earlier run fetched: the list's own is taken."""
    lists = qemu_lists(("1:11.1.4+ds-1~bpo13+1", "amd64"), ("1:11.1.5+ds-1~bpo13+1", "arm64"))
    chosen = newer_qemu.choose(lists, "amd64", "trixie-backports")
    assert (chosen.version, chosen.architecture) == ("1:11.1.4+ds-1~bpo13+1", "amd64")


def test_a_newer_qemu_only_for_another_architecture_is_missing_in_one_line() -> None:
    """The skew of issue 44: the new build is out for arm64, the host's is still the old one."""
    lists = qemu_lists(("1:10.0.7+ds-0+deb13u1", "amd64"), ("1:11.1.3+ds-1~bpo13+1", "arm64"))
    with pytest.raises(archive.Missing) as err:
        newer_qemu.choose(lists, "amd64", "Debian trixie-backports")
    assert str(err.value) == (
        "qemu-user 1:11.1~ or later for amd64 is not in Debian trixie-backports "
        "(newest 1:10.0.7+ds-0+deb13u1)"
    )


def test_a_qemu_gone_from_the_suite_is_missing() -> None:
    with pytest.raises(archive.Missing, match="none at all"):
        newer_qemu.choose([], "amd64", "Debian trixie-backports")


# --- the roots debootstrap builds ---------------------------------------------------------------


def test_a_package_of_the_recipe_gone_from_the_suite_is_named(tmp_path: Path) -> None:
    """debootstrap left the suite's list in the partial root: the include it lacks is named."""
    recipe = systest.load_recipe(systest.RECIPE.read_bytes())
    lists = tmp_path / "partial" / "var" / "lib" / "apt" / "lists"
    lists.mkdir(parents=True)
    rows = [(p, "1.0", "amd64") for p in recipe.include if p != "python3-venv"]
    (lists / "debootstrap.invalid_dists_bookworm_main_binary-amd64_Packages").write_text(
        packages(*rows)
    )
    log = tmp_path / "build.log"
    log.write_text("I: Retrieving Packages\nE: Couldn't find these debs: python3-venv\n")
    said = systest.root_failure(
        dataclasses.replace(recipe, arch="amd64"), tmp_path / "partial", log, 1
    )
    assert said == (
        f"debootstrap failed (exit 1): Debian bookworm for amd64 has no python3-venv "
        f"(the recipe's include; its log: {log})"
    )


def test_debootstrap_without_a_list_is_said_by_its_own_error(tmp_path: Path) -> None:
    recipe = systest.load_recipe(systest.RECIPE.read_bytes())
    log = tmp_path / "build.log"
    log.write_text("I: Retrieving InRelease\nE: Failed getting release file http://m/Release\n")
    said = systest.root_failure(recipe, tmp_path / "none", log, 1)
    assert said == (
        "debootstrap failed (exit 1): E: Failed getting release file http://m/Release "
        f"(its log: {log})"
    )


# --- wheels from PyPI ---------------------------------------------------------------------------

PIP_NONE = (
    "ERROR: Could not find a version that satisfies the requirement lgpio>=0.2 "
    "(from versions: none)\nERROR: No matching distribution found for lgpio>=0.2\n"
)


def test_pip_missing_a_version_is_one_line_naming_the_requirement() -> None:
    assert archive.pip_failure(PIP_NONE) == (
        "Could not find a version that satisfies the requirement lgpio>=0.2 (from versions: none)"
    )
    noisy = "WARNING: Retrying (Retry(total=4))\n" * 5 + "ERROR: HTTP error 503\n"
    assert archive.pip_failure(noisy) == "HTTP error 503"
    assert len(archive.pip_failure("x" * 1000)) == 300


def test_the_bundle_says_what_pip_could_not_get_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyPI out of reach, or a requirement with no version and no source: one line each."""
    said_by_pip = {
        "unreachable": "WARNING: Retrying (Retry(total=4))\n" * 5
        + "ERROR: Could not install packages due to an OSError: HTTP error 503\n",
        "no version": PIP_NONE.replace("lgpio>=0.2", "pillow>=10").replace("none", "9.4.0"),
    }
    for case, stderr in said_by_pip.items():

        def pip(cmd: list[str], stderr: str = stderr, **kw: object) -> object:
            return subprocess.CompletedProcess(cmd, 1, "", stderr)

        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        monkeypatch.setattr(build.subprocess, "run", pip)
        with pytest.raises(SystemExit) as err:
            build.cross_wheels(REPO, "arm64", "3.11", tmp_path / "wheels", emulate=False)
        said = str(err.value)
        assert "\n" not in said, case
        if case == "unreachable":
            assert said == (
                "bundle: pip download failed: Could not install packages due to an OSError: "
                "HTTP error 503"
            )
        else:
            assert said.startswith("bundle: PyPI has no arm64 wheel of pillow for Python 3.11")


def test_hwtest_asks_for_qemus_rom_a_machine_without_recommends_lacks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by the cold CI run: qemu-system-arm installed without its recommends has no
    efi-virtio.rom, and -M virt does not start."""
    monkeypatch.setattr(hwtest.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    monkeypatch.setattr(hwtest.Path, "exists", lambda self: False)
    asked: list[list[str]] = []
    monkeypatch.setattr(hwbase, "run", lambda cmd, log, **kw: asked.append(cmd) or "")
    hwbase.ensure_host_packages(log=None)  # type: ignore[arg-type]
    assert asked[-1][-1] == "ipxe-qemu"


def test_hwtest_finds_qemus_rom_where_ipxe_qemu_puts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Debian's ipxe-qemu puts efi-virtio.rom in /usr/lib/ipxe/qemu, where QEMU reads it:
    found there, nothing is installed (not an apt-get update on every run)."""
    monkeypatch.setattr(hwtest.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    rom = "/usr/lib/ipxe/qemu/efi-virtio.rom"
    monkeypatch.setattr(hwtest.Path, "exists", lambda self: str(self) == rom)
    asked: list[list[str]] = []
    monkeypatch.setattr(hwbase, "run", lambda cmd, log, **kw: asked.append(cmd) or "")
    hwbase.ensure_host_packages(log=None)  # type: ignore[arg-type]
    assert asked == []
