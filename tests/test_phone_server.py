"""The phones' server as a phone (and an attacker on the LAN) meets it: pairing, the cookie,
Origin and Host checks, limits, and the box playing on whatever is sent."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import time
from pathlib import Path

import pytest

from companion.app.phones import PairCode
from companion.web.pace import Pace
from tests.phones_support import live_box, pair, request, wait_for


@pytest.fixture
def box(tmp_path: Path):
    with live_box(tmp_path) as live:
        yield live


def screen(box) -> list[str]:
    return box.on_loop(lambda: box.app.shown[0].text_lines())


# --- pairing and the cookie -----------------------------------------------------------------


def test_unpaired_requests_get_401_and_the_page_itself(box) -> None:
    for path in ("/api/state", "/api/cards", "/api/events"):
        assert request(box, "GET", path)[0] == 401
    assert request(box, "POST", "/api/press/ok")[0] == 401
    status, headers, body = request(box, "GET", "/")
    assert status == 200 and b"Pair this phone" in body
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert request(box, "GET", "/phone.js")[0] == 200


def test_pairing_with_the_code_on_the_oled_sets_a_strict_cookie(box) -> None:
    box.on_loop(lambda: box.app.phone_command("pair_phone"))
    shown = screen(box)
    assert shown[0].startswith("Pair a phone")
    code = next(line for line in shown if line.replace(" ", "").isdigit()).replace(" ", "")
    status, headers, body = request(box, "POST", "/api/pair", f"code={code}")
    assert status == 200 and body == {"paired": True}
    cookie = headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Max-Age=43200" in cookie
    token = cookie.split("tc_phone=")[1].split(";")[0]
    assert len(token) == 64
    assert request(box, "GET", "/api/state", cookie=token)[0] == 200
    # The box says so and leaves the code screen; the code is good once.
    wait_for(lambda: "Phone paired" in " ".join(screen(box)))
    assert request(box, "POST", "/api/pair", f"code={code}")[0] == 403
    assert token not in (box.app.config.state_dir() / "phones.json").read_text()


def test_wrong_and_no_code_get_one_answer_and_the_oled_counts_the_guesses(box) -> None:
    before = [request(box, "POST", "/api/pair", "code=000000") for _ in range(12)]
    box.on_loop(lambda: box.app.phone_command("pair_phone"))
    right = box.app.phones.pairing.code.digits
    wrong = "000000" if right != "000000" else "111111"
    during = [request(box, "POST", "/api/pair", f"code={wrong}") for _ in range(3)]
    answers = {(status, json.dumps(body)) for status, _, body in before + during}
    assert len(answers) == 1 and next(iter(answers))[0] == 403  # nothing tells them apart
    assert not any("Retry-After" in headers for _, headers, _ in before + during)
    wait_for(lambda: screen(box)[0].startswith("3 wrong guesses"))  # not those before
    assert isinstance(box.on_loop(lambda: box.app.menu), PairCode)
    # the guesser's address had its three tries at this code; the owner's phone pairs
    assert request(box, "POST", "/api/pair", f"code={right}", source="127.0.0.9")[0] == 200


def test_ten_wrong_codes_void_the_code_and_the_oled_says_so(box) -> None:
    box.on_loop(lambda: box.app.phone_command("pair_phone"))
    pairing = box.app.phones.pairing
    right = pairing.code.digits
    wrong = "000000" if right != "000000" else "111111"
    for n in range(10):  # from four addresses: one alone cannot void a code
        assert (
            request(box, "POST", "/api/pair", f"code={wrong}", source=f"127.0.0.{2 + n % 4}")[0]
            == 403
        )
    wait_for(lambda: "void" in " ".join(screen(box)))
    assert "10 wrong guesses" in screen(box)
    assert request(box, "POST", "/api/pair", f"code={right}")[0] == 403


def test_stale_forged_and_forgotten_cookies_get_401(box) -> None:
    token = pair(box)
    forged = ("0" if token[0] != "0" else "1") + token[1:]
    for bad in (forged, "x" * 64, token[:-1], "", token.upper()):
        assert request(box, "GET", "/api/state", cookie=bad)[0] == 401, bad
    assert request(box, "GET", "/api/state", cookie=token)[0] == 200
    box.on_loop(lambda: box.app.phone_command("forget_phones"))
    assert box.on_loop(lambda: box.app.menu.title) == "Forget phones?"
    box.on_loop(lambda: box.app.phone_command("forget_yes"))
    assert request(box, "GET", "/api/state", cookie=token)[0] == 401


# --- what a request may change --------------------------------------------------------------


def test_a_press_from_the_remote_moves_the_box(box) -> None:
    token = pair(box)
    wait_for(lambda: screen(box)[0] == "Choose a game")
    status, _, body = request(box, "POST", "/api/press/down", cookie=token)
    assert status == 200 and body["pressed"] == "down"
    wait_for(lambda: any(line.startswith("> Trap Attack") for line in screen(box)))


def test_changes_need_a_same_origin_origin(box) -> None:
    token = pair(box)
    before = screen(box)
    for headers in ({}, {"Origin": "http://evil.example"}, {"Origin": "null"}):
        status, _, body = request(
            box, "POST", "/api/press/down", cookie=token, origin=False, headers=headers
        )
        assert status == 403 and b"Origin" in body, headers
    time.sleep(0.3)
    assert screen(box) == before


def test_a_foreign_host_is_refused_even_with_the_cookie(box) -> None:
    token = pair(box)
    status, _, body = request(
        box, "GET", "/api/state", cookie=token, headers={"Host": "rebound.example:80"}
    )
    assert status == 421 and b"is not this box" in body


def test_unknown_button_huge_body_and_bad_card_are_clear_4xx(box) -> None:
    token = pair(box)
    status, _, body = request(box, "POST", "/api/press/jump", cookie=token)
    assert status == 404 and "no button 'jump'" in body["error"]
    status, _, body = request(box, "POST", "/api/pair", "code=" + "1" * 10_000)
    assert status == 413 and b"over the limit" in body
    status, _, body = request(box, "POST", "/api/cards/ZZ-1/forget", cookie=token)
    assert status == 400
    status, _, body = request(box, "POST", "/api/cards/0A0B0C0D/forget", cookie=token)
    assert status == 404 and "no enrolled card" in body["error"]
    status, _, body = request(box, "POST", "/api/enrol", "card=skull", cookie=token)
    assert status == 404 and "no game" in body["error"]
    own = {"Origin": f"http://127.0.0.1:{box.port}"}
    assert request(box, "PUT", "/api/state", cookie=token, headers=own)[0] == 405
    # and the box plays on
    request(box, "POST", "/api/press/ok", cookie=token)
    wait_for(lambda: screen(box)[0] == "Dice")


def test_a_slow_body_is_cut_off_and_the_box_plays_on(box, monkeypatch) -> None:
    monkeypatch.setattr("companion.web.players_routes.BODY_SECONDS", 0.3)
    conn = socket.create_connection(("127.0.0.1", box.port))
    head = (
        f"POST /api/pair HTTP/1.1\r\nHost: 127.0.0.1:{box.port}\r\n"
        f"Origin: http://127.0.0.1:{box.port}\r\nContent-Length: 100\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n\r\ncode="
    )
    conn.sendall(head.encode())
    conn.settimeout(5)
    answer = conn.recv(200).decode()
    conn.close()
    assert answer.startswith("HTTP/1.1 408")
    token = pair(box)
    assert request(box, "GET", "/api/state", cookie=token)[0] == 200


def test_the_card_list_forget_and_an_enrolment_run(box) -> None:
    token = pair(box)
    box.on_loop(lambda: box.app.new_game("trap-attack", {}))
    status, _, cards = request(box, "GET", "/api/cards", cookie=token)
    assert status == 200 and cards["game"] == "trap-attack" and cards["kinds"]
    kind = next(k for k in cards["kinds"] if not k["fields"])
    status, _, body = request(box, "POST", "/api/enrol", f"card={kind['id']}", cookie=token)
    assert status == 200 and body["card"] == kind["name"]
    for n, uid in enumerate(("04A1B2C3D4E5F6", "04A1B2C3D4E5F7"), start=1):
        box.controls.tap(uid)
        wait_for(lambda n=n: (box.app.phones.view["enrol"] or {}).get("count") == n)
    _, _, state = request(box, "GET", "/api/state", cookie=token)
    assert state["enrol"]["count"] == 2
    _, _, cards = request(box, "GET", "/api/cards", cookie=token)
    uids = [c["uid"] for c in cards["cards"]]
    assert "04A1B2C3D4E5F6" in uids
    status, _, body = request(box, "POST", "/api/cards/04A1B2C3D4E5F6/forget", cookie=token)
    assert status == 200 and body["forgotten"] == "04A1B2C3D4E5F6"
    _, _, cards = request(box, "GET", "/api/cards", cookie=token)
    assert "04A1B2C3D4E5F6" not in [c["uid"] for c in cards["cards"]]


def test_the_event_stream_pushes_the_new_view(box) -> None:
    token = pair(box)
    conn = http.client.HTTPConnection("127.0.0.1", box.port, timeout=5)
    conn.request(
        "GET",
        "/api/events",
        headers={"Host": f"127.0.0.1:{box.port}", "Cookie": f"tc_phone={token}"},
    )
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type").startswith("text/event-stream")
    first = response.readline()
    assert first.startswith(b"data: ")
    box.on_loop(lambda: box.app.new_game("deathtrap-dungeon", {}))
    seen = b""
    while b"Deathtrap" not in seen:
        seen = response.readline()
    assert b'"scoreboard"' in seen
    conn.close()


def test_a_taken_port_leaves_the_box_playing_and_is_retried(tmp_path: Path) -> None:
    from companion.web import phones as phone_module
    from tests.phones_support import LiveBox, taken_port

    port, blocker = taken_port()
    live = LiveBox(tmp_path, port=port)
    try:
        live.start()
        assert live.phones.thread is None and live.phones.taken
        assert f"port {port} taken" in live.app.status_line()
        assert f"port {port}" in " ".join(screen(live))
        retry = live.on_loop(lambda: live.app.loop.pending("phones-retry"))
        now = live.on_loop(live.app.clock.now)
        assert retry == pytest.approx(now + phone_module.RETRY_SECONDS, abs=1.0)
        live.on_loop(lambda: live.app.new_game("dice", {}))  # the box plays on
        assert live.on_loop(lambda: live.app.session.name) == "dice"
        blocker.close()
        live.on_loop(live.phones._listen)  # the deadline, brought forward
        assert live.phones.thread is not None and not live.phones.taken
        assert live.phones.ready.wait(5)
        assert request(live, "GET", "/api/state")[0] == 401
        assert f"phones on port {port}" in live.app.status_line()
    finally:
        blocker.close()
        live.stop()


def test_the_state_is_a_replay_line_with_the_public_part_only(box) -> None:
    token = pair(box)
    box.on_loop(lambda: box.app.new_game("deathtrap-dungeon", {}))
    wait_for(lambda: (box.app.phones.view or {}).get("game") == "deathtrap-dungeon")
    status, _, state = request(box, "GET", "/api/state", cookie=token)
    assert status == 200
    assert {"game", "screen", "leds", "sounds", "state"} <= set(state)
    assert state["game"] == "deathtrap-dungeon" and state["screen"]  # a notice may be on top
    assert state["state"]["scoreboard"]["rows"][0][0] == "Seat 1"
    raw = box.on_loop(lambda: box.app.session.rules.public(box.app.session.state))
    assert "building" in raw and "building" not in state["state"]  # the public part only


def test_without_aiohttp_the_box_plays_on_and_says_why(tmp_path: Path, monkeypatch) -> None:
    import importlib.util

    from tests.phones_support import LiveBox

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "aiohttp" else real(name, *a)
    )
    live = LiveBox(tmp_path)
    try:
        live.start()
        assert live.phones.thread is None
        assert "phones off: aiohttp is not installed" in live.app.status_line()
        assert "aiohttp missing" in " ".join(screen(live))
        live.on_loop(live.app.open_game_menu)
        assert "Pair a phone" not in live.on_loop(lambda: live.app.menu.items)
    finally:
        live.stop()


def test_the_retry_is_a_deadline_on_the_loop_that_fires_by_itself(
    tmp_path: Path, monkeypatch
) -> None:
    from tests.phones_support import LiveBox, taken_port

    monkeypatch.setattr("companion.web.phones.RETRY_SECONDS", 0.3)
    port, blocker = taken_port()
    live = LiveBox(tmp_path, port=port)
    try:
        live.start()
        assert live.phones.taken
        blocker.close()  # the other program goes away: the next deadline binds the port
        assert live.phones.ready.wait(5)
        assert request(live, "GET", "/api/state")[0] == 401
        wait_for(lambda: "phones on port" in live.app.status_line())
    finally:
        blocker.close()
        live.stop()


def open_stream(box, token: str) -> tuple[http.client.HTTPConnection, int]:
    conn = http.client.HTTPConnection("127.0.0.1", box.port, timeout=5)
    conn.request(
        "GET",
        "/api/events",
        headers={"Host": f"127.0.0.1:{box.port}", "Cookie": f"tc_phone={token}"},
    )
    response = conn.getresponse()
    if response.status == 200:
        response.readline()  # the first event: the stream is open
    return conn, response.status


def test_a_closed_event_stream_frees_its_slot_at_once(box) -> None:
    from companion.web.server import MAX_STREAMS

    token = pair(box)
    wait_for(lambda: screen(box)[0] == "Choose a game")  # the box shows nothing new from now
    streams = [open_stream(box, token) for _ in range(MAX_STREAMS)]
    assert [status for _, status in streams] == [200] * MAX_STREAMS
    extra, status = open_stream(box, token)
    extra.close()
    assert status == 503
    streams.pop()[0].close()  # a phone goes away, long before the next ping

    def reopened() -> bool:
        conn, status = open_stream(box, token)
        if status == 200:
            streams.append((conn, status))
        else:
            conn.close()
        return status == 200

    try:
        wait_for(reopened, seconds=3.0)
    finally:
        for conn, _ in streams:
            conn.close()


# --- error answers: short, 4xx, the guard's headers, one log line ---------------------------


def raw_request(box, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Bytes as an attacker might send them; the status, headers and body of the answer."""
    with socket.create_connection(("127.0.0.1", box.port), timeout=5) as conn:
        conn.sendall(data)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = conn.recv(4096)
            if not chunk:
                break
            answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        length = int(headers.get("Content-Length", "0"))
        while len(body) < length:
            chunk = conn.recv(4096)
            if not chunk:
                break
            body += chunk
    return int(lines[0].split()[1]), headers, body


WEB_LOGGERS = ("companion.web", "aiohttp", "asyncio")


def log_lines(caplog) -> int:
    """Lines the web server's side logged (the box's own, such as the reader's, are not its)."""
    return sum(
        len(caplog.handler.format(r).splitlines())
        for r in caplog.records
        if r.name.startswith(WEB_LOGGERS)
    )


def assert_short_guarded_4xx(status: int, headers: dict[str, str], body: bytes) -> None:
    assert 400 <= status < 500, status
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    server = headers.get("Server", "")
    assert "aiohttp" not in server.lower() and "python" not in server.lower(), server
    assert len(body) < 200, body


def test_deeply_nested_json_is_a_short_400_and_one_log_line(box, caplog) -> None:
    caplog.set_level(logging.INFO)
    caplog.clear()
    nested = "[" * 1000 + "]" * 1000
    status, headers, body = request(
        box, "POST", "/api/pair", nested, headers={"Content-Type": "application/json"}
    )
    assert status == 400
    assert_short_guarded_4xx(status, dict(headers), body if isinstance(body, bytes) else b"")
    assert log_lines(caplog) <= 1
    assert request(box, "GET", "/")[0] == 200  # and the box answers on


@pytest.mark.parametrize(
    "head",
    [
        "GET /api/state HTTP/1.1\r\nHost: {host}\r\nX-Note: a\x00b\r\n\r\n",  # a NUL
        "GET /api/state HTTP/1.1\r\nHost: {host}\r\nX-Note: " + "a" * 9000 + "\r\n\r\n",
        "GET /api/state HTTP/1.1\r\nHost: {host}\r\nContent-Length: -1\r\n\r\n",
        "GET /\x01 HTTP/1.1\r\nHost: {host}\r\n\r\n",
        "GET /api/state HTTP/9.9\r\nHost: {host}\r\n\r\n",
    ],
)
def test_a_request_aiohttp_cannot_parse_gets_the_guards_short_400(box, caplog, head) -> None:
    caplog.set_level(logging.INFO)
    caplog.clear()
    data = head.format(host=f"127.0.0.1:{box.port}").encode("latin-1")
    status, headers, body = raw_request(box, data)
    assert_short_guarded_4xx(status, headers, body)
    assert log_lines(caplog) <= 1
    assert request(box, "GET", "/")[0] == 200


def test_every_refusal_of_the_api_is_a_short_guarded_4xx(box) -> None:
    own = {"Origin": f"http://127.0.0.1:{box.port}"}
    for method, path, extra in (
        ("GET", "/nothing-here", {}),
        ("PUT", "/api/state", own),
        ("GET", "/api/state", {}),
        ("GET", "/api/state", {"Host": "rebound.example"}),
        ("POST", "/api/pair", {"Origin": "http://evil.example"}),
    ):
        status, headers, body = request(box, method, path, headers=extra, origin=False)
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        assert_short_guarded_4xx(status, headers, raw)


# --- pairing needs the box ----------------------------------------------------------------------


def remote(box, button: str, token: str) -> None:
    status, _, body = request(box, "POST", f"/api/press/{button}", cookie=token)
    assert status == 200 and body["pressed"] == button
    box.on_loop(lambda: None)  # the press, posted before the answer, has been handled


def test_the_phones_remote_cannot_open_pairing_nor_forget_phones(box) -> None:
    token = pair(box)
    wait_for(lambda: screen(box)[0] == "Choose a game")
    items = box.on_loop(lambda: list(box.app.menu.items))
    assert items[-2:] == ["Pair a phone", "Forget phones"]
    for _ in range(2):  # up twice from the first item wraps to "Pair a phone"
        remote(box, "up", token)
    assert any(line.startswith("> Pair a phone") for line in screen(box))
    remote(box, "ok", token)
    assert box.app.phones.pairing.code_status()[0] == "none"  # no code made
    assert not isinstance(box.on_loop(lambda: box.app.menu), PairCode)
    assert "Only on the box" in " ".join(screen(box))
    wait_for(lambda: screen(box)[0] == "Choose a game")
    assert any(line.startswith("> Pair a phone") for line in screen(box))  # the list as it was
    remote(box, "down", token)  # "Forget phones"
    remote(box, "ok", token)
    assert box.on_loop(lambda: getattr(box.app.menu, "title", "")) != "Forget phones?"
    assert box.app.phones.pairing.count() == 1
    assert "Only on the box" in " ".join(screen(box))
    wait_for(lambda: screen(box)[0] == "Choose a game")  # the notice has had its moment
    assert request(box, "GET", "/api/state", cookie=token)[0] == 200
    # The box's own buttons still pair: the code screen is open, and the remote cannot make
    # it show a new code either.
    box.on_loop(lambda: box.app.phone_command("pair_phone"))
    shown = box.app.phones.pairing.code.digits
    remote(box, "ok", token)
    assert box.app.phones.pairing.code.digits == shown
    assert box.on_loop(lambda: box.app.toast) is None  # no notice hides the code either


def test_no_phone_facing_answer_or_event_carries_the_code(box) -> None:
    token = pair(box)
    wait_for(lambda: screen(box)[0] == "Choose a game")
    wait_for(lambda: box.on_loop(lambda: box.app.toast) is None)
    _, _, before = request(box, "GET", "/api/state", cookie=token)
    box.on_loop(lambda: box.app.phone_command("pair_phone"))  # on the box, by its owner
    digits = box.app.phones.pairing.code.digits
    assert f"{digits[:3]} {digits[3:]}" in screen(box)  # the OLED shows it
    box.on_loop(lambda: None)  # the box has drawn the code screen (and shown the phones)

    def carries(text: str) -> bool:
        return digits in "".join(text.split())

    for path in ("/api/state", "/api/cards", "/"):
        status, _, body = request(box, "GET", path, cookie=token)
        text = body.decode() if isinstance(body, bytes) else json.dumps(body)
        assert status == 200 and not carries(text), path
    # Nor does anything say that a code is shown: the phones keep the view from before.
    _, _, state = request(box, "GET", "/api/state", cookie=token)
    assert state == before and "pairing" not in state
    assert not any("Pair a phone" in line or "code" in line for line in state["screen"])
    conn = http.client.HTTPConnection("127.0.0.1", box.port, timeout=5)
    conn.request(
        "GET",
        "/api/events",
        headers={"Host": f"127.0.0.1:{box.port}", "Cookie": f"tc_phone={token}"},
    )
    first = conn.getresponse().readline().decode()
    conn.close()
    assert first.startswith("data: ") and not carries(first)
    assert json.loads(first.removeprefix("data: ")) == before


def test_a_paired_phone_cannot_press_on_the_pairing_nor_the_forgetting_screen(box) -> None:
    """Issue 36 point 2: a hostile paired phone pressing as soon as a screen opens ends no code,
    hides none under a notice and dismisses no "Forget phones?": the box's buttons decide."""
    token = pair(box)
    wait_for(lambda: box.on_loop(lambda: box.app.toast) is None)
    pairing = box.app.phones.pairing
    box.app.phones.pace = Pace(rate=1000.0, burst=1000)  # 60 presses here; the pace apart
    for _ in range(5):
        box.on_loop(lambda: box.app.phone_command("pair_phone"))  # the owner, on the box
        digits = pairing.code.digits
        for button in ("back", "red", "ok", "green", "up", "down"):
            remote(box, button, token)
            assert isinstance(box.on_loop(lambda: box.app.menu), PairCode), button
            assert box.on_loop(lambda: box.app.toast) is None, button  # nothing over the code
            assert pairing.code.digits == digits and pairing.code_status()[0] == "showing"
        assert f"{digits[:3]} {digits[3:]}" in screen(box)
        status, _, _ = request(box, "POST", "/api/pair", f"code={digits}", source="127.0.0.7")
        assert status == 200  # the owner's new phone pairs with the code it read
        wait_for(lambda: box.on_loop(lambda: box.app.toast) is None)
    for _ in range(5):
        box.on_loop(lambda: box.app.phone_command("forget_phones"))  # the owner, on the box
        for button in ("back", "red", "ok", "green", "up", "down"):
            remote(box, button, token)
            title = box.on_loop(lambda: getattr(box.app.menu, "title", ""))
            assert title == "Forget phones?", button
        box.controls.press("back")  # the box's own button answers it: no
        wait_for(
            lambda: box.on_loop(lambda: getattr(box.app.menu, "title", "")) != "Forget phones?"
        )
    assert pairing.count() == 6


def test_the_threat_list_says_the_cookie_goes_to_every_port_and_names_real_tests() -> None:
    import re

    root = Path(__file__).resolve().parent.parent
    doc = (root / "docs" / "web.md").read_text(encoding="utf-8")
    threats = doc.split("## Threats from the network", 1)[1].split("\n## ", 1)[0]
    flat = " ".join(threats.split())
    assert "A cookie is sent to every port of the box's host name" in flat
    assert "HttpOnly" in flat and "tc_phone" in flat
    named = set(re.findall(r"`(test_\w+)`", threats))
    assert len(named) >= 10
    sources = " ".join(p.read_text(encoding="utf-8") for p in (root / "tests").glob("test_*.py"))
    for name in named:
        assert f"def {name}(" in sources, name
    assert "tests/test_file_handles.py" in threats
    assert (root / "tests" / "test_file_handles.py").exists()


def test_the_about_section_names_the_running_release_and_the_kept_one(box) -> None:
    from companion import __version__

    assert request(box, "GET", "/api/about")[0] == 401
    status, _, about = request(box, "GET", "/api/about", cookie=pair(box))
    assert status == 200 and about["program"] == __version__
    assert set(about) == {"program", "running", "kept", "on_trial", "installed_at"}
