"""Steps 5-6: a power cut mid-game and the game resumed; the unit's hardening (and the
phones' server's)."""

from __future__ import annotations

import json
import shlex
import socket
from pathlib import Path

from container import failure_tail, wait_for
from steps import Steps
from sysbase import (
    CONFIG,
    EMULATION_DROPIN,
    ETC,
    NAME,
    PLAY,
    PLAY_ACTIONS,
    REPO,
    STATE,
    UNIT,
    StepFailed,
    analyze_exposure,
    docs_exposure,
    last_resumed,
    parse_show,
)


class PowerSteps(Steps):
    # 5

    def step_power_cut(self) -> str:
        self.ensure_running()
        self.box.sh(f"systemctl stop {UNIT}")
        # The game, played into the daemon's own state dir by the service user.
        # In /var/tmp: /tmp is emptied by the reboot.
        config, script = "/var/tmp/systest-play.toml", "/var/tmp/systest-play.txt"
        self.box.sh(
            f"sed 's|^dir = .*|dir = \"{STATE}\"|' {CONFIG} > {config} && chmod 644 {config}"
            f" && printf %s {shlex.quote(PLAY)} > {script} && chmod 644 {script}"
        )
        proc = self.box.sh(f"{NAME} replay --config {config} {script}", user=NAME)
        if proc.returncode != 0:
            raise StepFailed(f"replay as {NAME} exited {proc.returncode}: {proc.stderr.strip()}")
        last = json.loads(proc.stdout.splitlines()[-1])
        self.played = {"game": last["game"], "state": last["state"]}
        journal = self.box.sh(f"cat {STATE}/journal.jsonl").stdout
        actions = journal.count('"kind":"action"')
        if actions != PLAY_ACTIONS:
            raise StepFailed(
                f"the journal holds {actions} actions after the game, not {PLAY_ACTIONS}"
            )
        self.box.sh(f"systemctl start {UNIT}", timeout=60)
        show = self.running("with the game in play, ")
        if not show["StatusText"].lower().startswith(last["game"]):
            raise StepFailed(
                f'before the power cut, with the saved game, STATUS "{show["StatusText"]}" '
                f"does not name the game {last['game']}"
            )
        self.box.power_cut()
        booted = self.box.boot()
        try:
            show, _ = wait_for(
                "the service after boot",
                lambda: (
                    (s := self.box.show("ActiveState", "SubState")).get("SubState") == "running"
                    and s
                ),
                30 * self.box.pace,
            )
        except StepFailed as err:
            enabled = self.box.sh(f"systemctl is-enabled {UNIT}").stdout.strip()
            raise StepFailed(
                f"after the power cut the service did not start at boot (is-enabled: {enabled}); "
                + self.journal_tail()
            ) from err
        show = self.running("after the power cut, ")
        resumed = last_resumed("\n".join(self.daemon_lines()))
        if resumed != (last["game"], PLAY_ACTIONS):
            raise StepFailed(
                f"after the power cut the journal says {resumed}, not resumed "
                f"{last['game']} after {PLAY_ACTIONS} actions; " + self.journal_tail()
            )
        if not show["StatusText"].lower().startswith(last["game"]):
            raise StepFailed(f'after the power cut STATUS is "{show["StatusText"]}"')
        # Exactly that game: the state the box folds from its journal is the state played.
        start = self.box.show("InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic")
        ready = (
            int(start["ActiveEnterTimestampMonotonic"])
            - int(start["InactiveExitTimestampMonotonic"])
        ) / 1e6
        self.box.sh(f"systemctl stop {UNIT}")
        proc = self.box.sh(f"printf 'wait 0\\n' | {NAME} replay --config {config} -", user=NAME)
        self.box.sh(f"systemctl start {UNIT}", timeout=60)
        if proc.returncode != 0 or not proc.stdout.strip():
            raise StepFailed(
                f"cannot read the game back after the power cut: {proc.stderr.strip()}"
            )
        again = json.loads(proc.stdout.splitlines()[-1])
        if {"game": again["game"], "state": again["state"]} != self.played:
            raise StepFailed(
                f"the game after the power cut differs: {again['state']} != {self.played['state']}"
            )
        return (
            f"{last['game']} resumed after {PLAY_ACTIONS} actions, the same state; boot "
            f"{booted:.1f} s, the service ready {ready:.2f} s after its start"
        )

    # 6

    def step_hardening(self) -> str:
        show = self.ensure_running()
        pid = show["MainPID"]
        # Root inside the daemon's own mount namespace: what the namespace lets through.
        paths = ["/", "/etc", ETC, "/opt", f"/opt/{NAME}/current/venv", "/usr", "/usr/local/bin",
                 "/var", "/var/lib", "/var/log", "/srv", "/root", "/home"]  # fmt: skip
        probe = (
            "for d in " + " ".join(paths) + "; do "
            't="$d/.systest-probe"; if touch "$t" 2>/dev/null; then echo "$d"; rm -f "$t"; fi; '
            "done"
        )
        wrote = self.box.in_mounts_of(pid, ["sh", "-c", probe]).stdout.split()
        if wrote:
            raise StepFailed(f"the daemon's view lets it write {', '.join(wrote)}")
        as_user = ["setpriv", f"--reuid={NAME}", f"--regid={NAME}", "--init-groups", "--", "sh"]
        probe = f"touch {STATE}/.systest-probe && rm {STATE}/.systest-probe"
        proc = self.box.in_mounts_of(pid, [*as_user, "-c", probe])
        if proc.returncode != 0:
            raise StepFailed(f"the daemon cannot write its own state dir: {proc.stderr.strip()}")
        # No network: its own network namespace with only lo, and sockets only of AF_UNIX.
        if self.box.emulated:
            return self.hardening_emulated(pid, measured_exposure=self.exposure())
        ns = self.box.sh(f"readlink /proc/{pid}/ns/net /proc/1/ns/net").stdout.split()
        devices = self.box.sh(f"tail -n +3 /proc/{pid}/net/dev").stdout
        interfaces = sorted(
            line.split(":")[0].strip() for line in devices.splitlines() if ":" in line
        )
        if len(ns) != 2 or ns[0] == ns[1] or interfaces != ["lo"]:
            raise StepFailed(
                f"the daemon shares a network: namespace {ns}, interfaces {interfaces}"
            )
        unit = self.box.show("RestrictAddressFamilies", "PrivateNetwork")
        if unit.get("RestrictAddressFamilies") != "AF_UNIX":
            raise StepFailed(
                f"the unit allows the address families {unit.get('RestrictAddressFamilies')!r}, "
                "not AF_UNIX only"
            )
        if unit.get("PrivateNetwork") != "yes":
            raise StepFailed(f"the unit has PrivateNetwork={unit.get('PrivateNetwork')}")
        status = parse_show(
            self.box.sh(f"tr ':\\t' '=\\0' < /proc/{pid}/status | tr -d '\\0 '").stdout
        )
        if (
            status.get("NoNewPrivs") != "1"
            or status.get("Seccomp") != "2"
            or int(status.get("CapEff", "1"), 16)
        ):
            raise StepFailed(
                f"the process: NoNewPrivs {status.get('NoNewPrivs')}, Seccomp "
                f"{status.get('Seccomp')}, CapEff {status.get('CapEff')}"
            )
        measured = self.exposure()
        phones = self.phones_on_and_off()
        return (
            f"writes only {STATE} (/, /etc, /opt, /usr, /var read-only); own network (lo only), "
            f"AF_UNIX only; no capabilities; exposure {measured} as documented; {phones}"
        )

    def exposure(self) -> str:
        """The exposure the owner's guide states, as `systemd-analyze security` measures it (of
        the unit as installed, under emulation without the emulation's drop-in)."""
        dropin = f"/etc/systemd/system/{UNIT}.d/{EMULATION_DROPIN}"
        hide = f"mv {dropin} /run/ && systemctl daemon-reload && " if self.box.emulated else ""
        back = (
            f"; mv /run/{EMULATION_DROPIN} {dropin} && systemctl daemon-reload"
            if self.box.emulated
            else ""
        )
        analysis = self.box.sh(
            f"{hide}systemd-analyze security {UNIT} --no-pager{back}", timeout=120
        ).stdout
        measured = analyze_exposure(analysis)
        docs = REPO / "docs" / "raspberry-pi.md"
        stated = docs_exposure(docs.read_text())
        if measured is None:
            raise StepFailed("systemd-analyze security gave no exposure level")
        if stated != measured:
            raise StepFailed(
                f"systemd-analyze security says {measured}; docs/raspberry-pi.md states {stated}"
            )
        return measured

    def hardening_emulated(self, pid: str, measured_exposure: str) -> str:
        """Under QEMU the unit runs with the emulation's drop-in (no private network or IPC
        namespace: they cannot be set up there): the network is checked as the unit declares it,
        and the daemon's sockets as it holds them."""
        unit = self.box.show("RestrictAddressFamilies", "PrivateNetwork", "DropInPaths")
        declared = self.box.sh(f"systemctl cat {UNIT} --no-pager").stdout
        base = declared.split("\n# /etc/systemd/system/" + UNIT + ".d/", 1)[0]
        if "\nPrivateNetwork=yes" not in base:
            raise StepFailed("the installed unit does not declare PrivateNetwork=yes")
        if unit.get("RestrictAddressFamilies") != "AF_UNIX":
            raise StepFailed(
                f"the unit allows the address families {unit.get('RestrictAddressFamilies')!r}, "
                "not AF_UNIX only"
            )
        dropins = unit.get("DropInPaths", "").split()
        if [Path(d).name for d in dropins] != [EMULATION_DROPIN]:
            raise StepFailed(f"drop-ins other than the emulation's: {dropins}")
        sockets = self.box.sh(
            f"ls -l /proc/{pid}/fd | grep -o 'socket:\\[[0-9]*\\]' | tr -dc '0-9\\n'"
        ).stdout.split()
        inet = self.box.sh("cat /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6").stdout
        held = [inode for inode in sockets if f" {inode} " in inet]
        if held:
            raise StepFailed(f"the daemon holds internet sockets: inodes {held}")
        phones = self.phones_on_and_off()
        return (
            f"writes only {STATE} (/, /etc, /opt, /usr, /var read-only); declares PrivateNetwork"
            f" (off under emulation only), AF_UNIX only, holds no internet socket; exposure "
            f"{measured_exposure} as documented (without the emulation's drop-in); {phones}"
        )

    def phones_on_and_off(self) -> str:
        """Phones on (`phones enable`): the phones' server is a unit of its own
        (trap-companion-phones), listening on the port, at a lower CPU weight; the game's unit
        keeps its own network namespace and AF_UNIX only. `phones disable` stops the phones'
        unit (issue 33 point 1)."""
        if self.box.sh(f"{NAME} phones --help").returncode != 0:
            return "no phones command to check"
        # A port free on this host: the container shares the host's network.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.box.sh(f"sed -i '/^\\[phones\\]/,/^\\[/ s/^port = .*/port = {port}/' {CONFIG}")
        phones_unit = f"{NAME}-phones.service"

        def phones_show(*props: str) -> dict[str, str]:
            args = " ".join(f"-p {p}" for p in props)
            return parse_show(self.box.sh(f"systemctl show {phones_unit} {args}").stdout)

        base = {"RestrictAddressFamilies": "AF_UNIX", "PrivateNetwork": "yes"}
        if self.box.emulated:  # the emulation's drop-in: no private network namespace there
            base["PrivateNetwork"] = "no"
        proc = self.box.sh(f"{NAME} phones enable", timeout=90)
        if proc.returncode != 0:
            raise StepFailed(f"phones enable exited {proc.returncode}: {failure_tail(proc)}")
        try:
            show = self.running("after phones enable, ")
            unit = self.box.show("RestrictAddressFamilies", "PrivateNetwork")
            if unit != base:
                raise StepFailed(f"phones enabled, and the game's unit has a network: {unit}")
            if not self.box.emulated:
                ns = self.box.sh(f"readlink /proc/{show['MainPID']}/ns/net /proc/1/ns/net")
                pair = ns.stdout.split()
                if len(pair) != 2 or pair[0] == pair[1]:
                    raise StepFailed(f"phones enabled, the game shares a network: {pair}")
            served: dict[str, str] = {}

            def listening() -> bool:
                served.update(phones_show("ActiveState", "MainPID", "CPUWeight"))
                if served.get("ActiveState") != "active" or served.get("MainPID") in ("", "0"):
                    return False
                tables = self.box.sh(f"cat /proc/{served['MainPID']}/net/tcp*").stdout
                return f":{port:04X} " in tables

            wait_for(f"the phones' unit listening on port {port}", listening, 20 * self.box.pace)

            def linked() -> bool:  # the game's STATUS says so only once the link is up
                text = self.box.show("StatusText").get("StatusText", "")
                return f"phones on port {port}" in text

            wait_for("the game linked to the phones' unit", linked, 20 * self.box.pace)
            if served.get("CPUWeight") != "20":
                raise StepFailed(f"the phones' unit has CPUWeight={served.get('CPUWeight')}")
            sockets = self.box.sh(
                f"ls -l /proc/{show['MainPID']}/fd | grep -o 'socket:\\[[0-9]*\\]' "
                "| tr -dc '0-9\\n'"
            ).stdout.split()
            inet = self.box.sh(
                "cat /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6"
            ).stdout
            held = [inode for inode in sockets if f" {inode} " in inet]
            if held:
                raise StepFailed(f"phones enabled, the game holds internet sockets: {held}")
        finally:
            proc = self.box.sh(f"{NAME} phones disable", timeout=90)
        if proc.returncode != 0:
            raise StepFailed(f"phones disable exited {proc.returncode}: {failure_tail(proc)}")
        show = self.running("after phones disable, ")
        unit = self.box.show("RestrictAddressFamilies", "PrivateNetwork")
        if unit != base:
            raise StepFailed(f"after phones disable the daemon has a network: {unit}")
        state = phones_show("ActiveState").get("ActiveState")
        if state not in ("inactive", "failed"):
            raise StepFailed(f"after phones disable the phones' unit is {state}")
        return (
            f"phones enable: the phones' own unit on port {port} (CPUWeight 20) linked to the "
            "game, the game's unit AF_UNIX only in its own network; disable: the phones' unit "
            "stopped"
        )
