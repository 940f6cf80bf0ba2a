"""Issue 36: pairing and forgetting phones on a card that refuses writes (a read-only remount,
a full tmpfs), and the paired phones' lives across restarts with a wrong wall clock
(libfaketime), each for real."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from storage_support import empty, fill, small_disk

from companion.app.phones import PairCode
from tests.phones_support import live_box, pair, request, wait_for

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def read_only(state: Path) -> Iterator[None]:
    """``state`` read-only under the running box: a read-only bind mount over it (a plain
    remount is refused while the journal is open for writing; files opened before keep
    writing, as on a card that turned read-only under an open file only its new writes fail)."""
    for args in (["--bind", str(state), str(state)], ["-o", "remount,bind,ro", str(state)]):
        proc = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            pytest.skip(f"cannot mount read-only here (needs root): {proc.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(state)], check=False, capture_output=True)


@contextlib.contextmanager
def refusing(state: Path, fault: str) -> Iterator[None]:
    if fault == "read-only":
        with read_only(state):
            yield
    else:
        fill(state)
        try:
            yield
        finally:
            empty(state)


def shown(box) -> str:
    return " ".join(box.on_loop(lambda: box.app.current()[0].text_lines()))


def kept(state: Path) -> list[str]:
    return [p["sha256"] for p in json.loads((state / "phones.json").read_text())["phones"]]


def toast_gone(box) -> bool:
    return box.on_loop(lambda: box.app.toast) is None


@pytest.mark.parametrize("fault", ["read-only", "full"])
@pytest.mark.parametrize("apart", [False, True], ids=["in-process", "server-apart"])
def test_pairing_on_a_card_that_refuses_it_is_said_on_the_phone_and_the_oled(
    tmp_path: Path, fault: str, apart: bool
) -> None:
    with small_disk(tmp_path / "state", "1m") as state, live_box(state, apart=apart) as box:
        token = pair(box)  # paired while the card took it
        wait_for(lambda: toast_gone(box))
        box.on_loop(lambda: box.app.phone_command("pair_phone"))
        digits = box.app.phones.pairing.code.digits
        with refusing(state, fault):
            status, _, body = request(
                box, "POST", "/api/pair", f"code={digits}", source="127.0.0.5"
            )
            said = f"the box cannot save pairings now: its storage is {fault}"
            assert (status, body) == (503, {"error": said})  # not a 500
            assert box.app.phones.pairing.code is None  # the used code is off the OLED
            wait_for(lambda: "Phone not paired" in shown(box))
            assert f"now: its storage is {fault}" in shown(box)
            assert not isinstance(box.on_loop(lambda: box.app.menu), PairCode)
            assert box.app.phones.pairing.count() == 1
            assert request(box, "GET", "/api/state", cookie=token)[0] == 200


@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_forgetting_phones_holds_or_is_refused_whole(tmp_path: Path, fault: str) -> None:
    """Refused with a notice while the card refuses it (the phone stays in, even after a
    restart: never forgotten in memory only); once the card takes it, forgotten for good."""
    with small_disk(tmp_path / "state", "1m") as state:
        with live_box(state) as box:
            token = pair(box)
            wait_for(lambda: toast_gone(box))
            before = kept(state)
            with refusing(state, fault):
                box.on_loop(lambda: box.app.phone_command("forget_phones"))
                box.controls.press("ok")  # yes, on the box
                wait_for(lambda: "Phones not forgotten" in shown(box))
                assert f"now: its storage is {fault}" in shown(box)  # on one page
                menu = box.on_loop(lambda: box.app.menu)
                assert getattr(menu, "title", "") != "Forget phones?"  # the question is gone
                assert box.app.phones.pairing.count() == 1  # no half: still paired
                assert request(box, "GET", "/api/state", cookie=token)[0] == 200
        assert kept(state) == before  # the phone is still in the file
        with live_box(state) as box:  # a restart: what the box said holds
            assert request(box, "GET", "/api/state", cookie=token)[0] == 200
            box.on_loop(lambda: box.app.phone_command("forget_phones"))
            box.controls.press("ok")
            wait_for(lambda: "1 phone forgotten" in shown(box))
        with live_box(state) as box:
            assert request(box, "GET", "/api/state", cookie=token)[0] == 401


PAIR_SCRIPT = """
import json, sys, time
from pathlib import Path
from companion.web.pairing import Pairing
state, tokens = Path(sys.argv[1]), json.loads(sys.argv[2])
p = Pairing(state, clock=time.monotonic)
codes = iter(range(100_000, 999_999))
p.randbelow = lambda n: next(codes)
allowed = [p.allows(t) for t in tokens]
if sys.argv[3] == "pair":
    digits = p.new_code()
    tokens.append(p.attempt(digits).token)
print(json.dumps({"allowed": allowed, "tokens": tokens, "wall": time.time()}))
"""


def run_at(when: str | None, state: Path, tokens: list[str], what: str) -> dict:
    command = [sys.executable, "-c", PAIR_SCRIPT, str(state), json.dumps(tokens), what]
    if when is not None:
        command = ["faketime", "-f", when, *command]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.skipif(shutil.which("faketime") is None, reason="needs libfaketime (faketime)")
def test_pairing_while_the_wall_clock_is_wrong_keeps_every_phone_after_a_restart(
    tmp_path: Path,
) -> None:
    """A phone paired with the clock right, a second paired at a boot that said 1970 (before
    NTP), then restarts with the clock right and years ahead: both phones stay paired."""
    first = run_at(None, tmp_path, [], "pair")
    second = run_at("@1970-01-02 00:00:00", tmp_path, first["tokens"], "pair")
    assert second["wall"] < 200_000  # it was 1970 in there
    assert second["allowed"] == [True]
    right = run_at(None, tmp_path, second["tokens"], "check")
    assert right["allowed"] == [True, True]
    ahead = run_at("@2099-06-01 00:00:00", tmp_path, second["tokens"], "check")
    assert ahead["allowed"] == [True, True]
    kept = json.loads((tmp_path / "phones.json").read_text())
    assert kept["version"] == 2 and all("left" in p for p in kept["phones"])
