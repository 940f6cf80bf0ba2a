"""The install, the faults a run may patch in, and the frame at start."""

from __future__ import annotations

import time
from pathlib import Path

import sysbase  # tools/systest/sysbase.py: Log, Skip, NAME, the parsers
from hwbase import CLONE, FAULTS, INSTALL_GUARD, LOSE_PRESS_ANCHOR, SHARE_TAG, UNIT, Failed, say
from hwrun import Run
from machine import Agent

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


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
    show = sysbase.parse_show(a.sh(
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
