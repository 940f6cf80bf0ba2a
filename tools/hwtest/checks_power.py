"""A power cut mid-game and the game resumed on the next boot."""

from __future__ import annotations

import ssd1306
import sysbase  # tools/systest/sysbase.py: Log, Skip, NAME, the parsers
from checks_readers import wait_status
from hwbase import FRAME_GUARD, PRESS_SECONDS, UNIT
from hwrun import Run


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
    show = sysbase.parse_show(a.sh(f"systemctl show {UNIT} -p ActiveState -p StatusText"))
    # The box comes back at boot and draws its screen: the frame it showed before the cut.
    r.panel = ssd1306.Ssd1306()
    wait_status(r, lambda st: "menu" not in st.lower() and bool(st))
    diff, _ = r.settle_on(before, quiet=FRAME_GUARD)
    text = a.sh(f"journalctl -u {UNIT} -b -o cat", check=False)
    resumed = sysbase.last_resumed(text)
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
