"""Steps 7-9: the owner's own use (their login, their clone), the upgrade from the previous
release, the update of a bundle (tools/systest/update_cut.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import sysbase
from container import emulation_dropins, failure_tail, wait_for
from steps import Steps
from sysbase import CLONE, CONFIG, ETC, NAME, OWNER, STATE, UNIT, StepFailed


class OwnerSteps(Steps):
    # 7

    def step_owner(self) -> str:
        """The owner's `cards` commands on the installed box (issue 45 point 1): while it runs
        they ask the box over its socket (sudo: done, logged, shown; no sudo, or a user outside
        the service's group: refused, 77, nothing written); stopped, root's command writes as
        the service's user; the registry keeps trap-companion:trap-companion 0640 throughout,
        and a start reads it whole (nothing set aside)."""
        show = self.ensure_running()
        pid = show["MainPID"]
        cards = f"{STATE}/cards.toml"
        socket_path = f"/run/{NAME}/owner.sock"
        enrol = f"{NAME} cards enrol 04A1B2C4 trapwords curse-echo"

        def whose(path: str) -> str:
            return self.box.sh(f"stat -c '%U:%G %a' {path}").stdout.strip()

        said = self.box.sh(f"stat -c '%U:%G %a' {socket_path} /run/{NAME}").stdout.split("\n")
        if said[:2] != [f"{NAME}:{NAME} 660", f"{NAME}:{NAME} 750"]:
            raise StepFailed(f"the owner's socket and its folder are {said[:2]}")
        before = self.sha(cards)
        proc = self.box.sh(enrol, user=OWNER)  # no sudo, not in the group
        if proc.returncode != 77 or f"only root and the group {NAME}" not in proc.stderr:
            raise StepFailed(f"enrol without sudo: exit {proc.returncode}: {proc.stderr.strip()}")
        proc = self.box.sh(f"{NAME} cards list", user="nobody")
        if proc.returncode != 77:
            raise StepFailed(f"cards list as nobody: exit {proc.returncode}: {proc.stderr.strip()}")
        if self.sha(cards) != before:
            raise StepFailed("a refused enrolment changed the registry")
        since = self.now()
        proc = self.box.sh(f"sudo {enrol}", user=OWNER)
        if proc.returncode != 0 or "04A1B2C4: Echo" not in proc.stdout:
            raise StepFailed(f"sudo enrol: exit {proc.returncode}: {failure_tail(proc)}")
        logged = [line for line in self.daemon_lines(since) if "enrolled from a shell" in line]
        if not logged:
            raise StepFailed("the box did not log the enrolment from a shell")
        if whose(cards) != f"{NAME}:{NAME} 640":
            raise StepFailed(f"after sudo enrol the registry is {whose(cards)}")
        if self.running("after sudo enrol, ")["MainPID"] != pid:
            raise StepFailed("the box restarted over an enrolment")
        listed = self.box.sh(f"sudo {NAME} cards list", user=OWNER).stdout
        if "04A1B2C4" not in listed:
            raise StepFailed(f"sudo cards list does not show the card: {listed!r}")
        # Stopped: root's command writes as the service's user; the owner's alone cannot.
        self.box.sh(f"systemctl stop {UNIT}", timeout=90)
        proc = self.box.sh(f"{NAME} cards forget 04A1B2C4", user=OWNER)
        if proc.returncode == 0:
            raise StepFailed("the owner without sudo forgot a card of a stopped box")
        proc = self.box.sh(f"sudo {NAME} cards forget 04A1B2C4 && sudo {enrol}", user=OWNER)
        if proc.returncode != 0:
            raise StepFailed(f"with the box stopped, sudo forget and enrol: {failure_tail(proc)}")
        if whose(cards) != f"{NAME}:{NAME} 640":
            raise StepFailed(f"with the box stopped, sudo enrol left the registry {whose(cards)}")
        since = self.now()
        show = self.ensure_running()
        lines = self.daemon_lines(since)
        aside = [line for line in lines if "unreadable" in line or "set aside" in line]
        if aside or self.box.sh(f"ls {STATE} | grep -c unreadable").stdout.strip() != "0":
            raise StepFailed(f"the start set the registry aside: {aside}")
        state_dir = whose(STATE)
        if state_dir != f"{NAME}:{NAME} 750":
            raise StepFailed(f"{STATE} is {state_dir} while the service runs")
        # A registry made root's by hand: named with the fix at the start, left where it is.
        restarted = self.now()
        self.box.sh(f"chown root:root {cards}; systemctl restart {UNIT}", timeout=90)
        self.running("with a registry of root's, ")
        lines = self.daemon_lines(restarted)
        fix = f"sudo chown {NAME}:{NAME} {cards}"
        if not any(fix in line and "root:root 0640" in line for line in lines):
            raise StepFailed(f"the start did not name root's registry and its fix: {lines[-3:]}")
        if whose(cards) != "root:root 640" or self.box.sh(f"ls {STATE}").stdout.count("cards") != 1:
            raise StepFailed("the start moved root's registry")
        self.box.sh(f"chown {NAME}:{NAME} {cards}")
        listed = self.box.sh(f"sudo {NAME} cards list", user=OWNER).stdout
        if "04A1B2C4" not in listed:
            raise StepFailed(f"after the fix the running box does not list the card: {listed!r}")
        return (
            "enrol while running: without sudo 77, as nobody 77, with sudo done by the box "
            f"(logged, no restart); stopped: root's enrol wrote as {NAME}; registry "
            f"{NAME}:{NAME} 0640 throughout, {STATE} 0750; a registry of root's named with "
            "its fix at the start, left where it is, read once given back"
        )

    # 8

    def step_upgrade(self) -> str:
        self.ensure_running()
        self.box.sh(f"printf '# the owner was here\\n' >> {CONFIG}")
        proc = self.box.sh(
            f"{NAME} cards enrol 04A1B2C3 trap-attack damage-2 --name Fireball", user=NAME
        )
        if proc.returncode != 0:
            raise StepFailed(f"cannot enrol a card as {NAME}: {proc.stderr.strip()}")
        kept = {path: self.sha(path) for path in (CONFIG, f"{STATE}/cards.toml")}
        journal = self.box.sh(f"cat {STATE}/journal.jsonl").stdout
        pid = self.box.show("MainPID")["MainPID"]
        before = self.box.sh(f"readlink /opt/{NAME}/current").stdout.strip()
        proc = self.install()
        if proc.returncode != 0:
            raise StepFailed(f"make install again exited {proc.returncode}: " + failure_tail(proc))
        after = self.box.sh(f"readlink /opt/{NAME}/current").stdout.strip()
        releases = self.box.sh(f"ls /opt/{NAME}/releases").stdout.split()
        if after == before or len(releases) != 2:
            raise StepFailed(
                f"make install of the checkout: current {before} -> {after}, releases {releases}"
            )
        if f"kept the existing {CONFIG}" not in proc.stdout:
            raise StepFailed("make install again did not say it kept the config")
        show = self.running("after make install again, ")
        if show["MainPID"] == pid:
            raise StepFailed("make install again did not restart the daemon")
        changed = [path for path, sha in kept.items() if self.sha(path) != sha]
        if changed:
            raise StepFailed(f"make install again changed {', '.join(changed)}")
        if not self.box.sh(f"cat {STATE}/journal.jsonl").stdout.startswith(journal) or not journal:
            raise StepFailed("make install again lost the journal")
        # Uninstall: stopped, disabled, gone; the owner's data kept.
        proc = self.box.sh(f"cd {CLONE} && sudo make uninstall", user=OWNER)
        if proc.returncode != 0:
            raise StepFailed(f"make uninstall exited {proc.returncode}: {proc.stderr.strip()}")
        if f"'sudo {NAME}-uninstall --purge' removes them" not in proc.stdout:
            raise StepFailed(f"make uninstall named no purge that works: {proc.stdout[-200:]}")
        show = self.box.show("LoadState", "ActiveState", "UnitFileState")
        if show.get("ActiveState") != "inactive":
            raise StepFailed(
                f"after make uninstall the service is still {show.get('ActiveState')} "
                f"(its unit: {show.get('LoadState')})"
            )
        if show.get("LoadState") != "not-found":
            raise StepFailed(f"after make uninstall the unit is still {show.get('LoadState')}")
        left = self.box.sh(
            f"for p in /opt/{NAME} /usr/local/bin/{NAME} /etc/systemd/system/{UNIT} "
            f"/etc/systemd/system/multi-user.target.wants/{UNIT}; "
            'do [ -e "$p" ] || [ -L "$p" ] && echo "$p"; done'
        ).stdout.split()
        if left:
            raise StepFailed(f"make uninstall left {', '.join(left)}")
        alive = self.box.sh(
            f'uid=$(id -u {NAME}) && grep -l "^Uid:[[:space:]]*$uid[[:space:]]" /proc/[0-9]*/status'
        ).stdout.strip()
        if alive:
            raise StepFailed(f"a process of {NAME} still runs after make uninstall")
        changed = [path for path, sha in kept.items() if self.sha(path) != sha]
        if changed or not self.box.sh(f"cat {STATE}/journal.jsonl").stdout.startswith(journal):
            raise StepFailed(f"make uninstall did not keep {', '.join(changed) or 'the journal'}")
        # Purge, with the uninstaller the box kept (a box from a bundle has no clone, no make).
        proc = self.box.sh(f"cd && sudo {NAME}-uninstall --purge", user=OWNER)
        if proc.returncode != 0:
            raise StepFailed(
                f"{NAME}-uninstall --purge exited {proc.returncode}: {proc.stderr.strip()}"
            )
        kept_by_box = f"/usr/local/sbin/{NAME}-uninstall /usr/local/lib/{NAME}"
        left = self.box.sh(
            f"for p in {ETC} {STATE} {kept_by_box}; do [ -e $p ] && echo $p; done"
        ).stdout.split()
        if self.box.sh(f"id {NAME}").returncode == 0:
            left.append(f"the user {NAME}")
        if left:
            raise StepFailed(f"{NAME}-uninstall --purge left {', '.join(left)}")
        if self.box.emulated:  # the purge took the box's drop-ins, the emulation's too
            emulation_dropins(self.box.root)
            self.box.sh("systemctl daemon-reload")
        return (
            f"make install of the checkout (a bundle built inside) beside the bundle's release: "
            f"current -> {after}; kept config, cards and journal; uninstall stopped and disabled "
            f"the service and kept them; the {NAME}-uninstall it kept (--purge) removed them and "
            "itself"
        )

    # 9, update (issue 34): tools/systest/update_cut.py

    def step_update(self) -> str:
        sys.path.insert(0, str(sysbase.HERE))
        import update_cut

        out = Path(self.box.root).parent / "bundles"  # the run's dir: removed with it
        start = os.environ.get("SYSTEST_UPDATE_FROM")  # CI: the previous commit's bundle
        if start and not Path(start).is_file():
            raise StepFailed(f"SYSTEST_UPDATE_FROM={start}: no such file")
        bundles = update_cut.make_bundles(
            out,
            self.box.emulated or "native",
            Path(start) if start else None,
            sysbase.BUNDLE_PYTHON,
        )
        suite = update_cut.UpdateCut(self, bundles, StepFailed, wait_for, UNIT, CLONE)
        return suite.run()
