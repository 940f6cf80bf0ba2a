"""The simulator's web API through aiohttp's test client (no browser): what /api/state answers,
presses and taps posted to the box, the event stream, and every kind of bad request refused
with a clear 4xx while the box plays on."""

import asyncio
import json

import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given
from hypothesis import strategies as st

from companion.core.config import Config
from companion.replay import run_script
from companion.sim.box import SimulatedBox
from companion.sim.controls import SimControls
from companion.web.guard import CSP, Guard, host_name, local_source
from companion.web.server import WebServer
from companion.web.sim_routes import SimRoutes, note_hz


class Site:
    """The box on a virtual clock and its web routes; the test moves the box's time on."""

    def __init__(self, box, server, client):
        self.box, self.server, self.client = box, server, client

    async def settle(self, seconds=1.0):
        """Let the box handle what was posted, then let the server take the new snapshot."""
        self.box.advance(seconds)
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    async def state(self):
        r = await self.client.get("/api/state")
        assert r.status == 200
        return await r.json()

    @property
    def origin(self):
        return {"Origin": f"http://127.0.0.1:{self.client.port}"}

    async def post(self, path, headers=None, **kw):
        headers = self.origin if headers is None else headers
        return await self.client.post(path, headers=headers, **kw)


def run_site(tmp_path, body):
    async def main():
        box = SimulatedBox(Config(), state_dir=tmp_path, seed=0, today=lambda: "2000-01-01")
        controls = SimControls(box)
        deck = [(c.uid, c.name, c.game) for c in box.app.registry.demo.values()]
        server = WebServer("127.0.0.1", 0, Guard(), [SimRoutes(controls, deck, 1.0)])
        server.bind_loop(asyncio.get_running_loop())
        box.app.faces.add(server)
        client = TestClient(TestServer(server.application(), host="127.0.0.1"))
        await client.start_server()
        try:
            box.app.start()
            site = Site(box, server, client)
            await site.settle(0)
            await body(site)
        finally:
            await client.close()
            box.close()

    asyncio.run(main())


def test_state_answers_what_a_replay_line_prints(tmp_path):
    async def body(site):
        first = await site.state()
        assert first["screen"][0] == "Choose a game" and first["game"] is None
        for button in ("ok", "green"):  # pick Dice, start it with its default options
            r = await site.post(f"/api/press/{button}")
            assert r.status == 202
            await site.settle()
        site.box.app.dice.force([4])
        r = await site.post("/api/press/green")
        assert (await r.json()) == {"pressed": "green", "long": False}
        await site.settle()
        now = await site.state()
        expected = run_script("wait 0\npress ok\npress green\ndice 4\npress green\n")[-1]
        for key in ("game", "state", "screen", "leds"):
            assert now[key] == expected[key], key
        assert now["seq"] > first["seq"]
        assert now["reader"].startswith("reader")

    run_site(tmp_path, body)


def test_a_long_press_and_a_card_tap_reach_the_box(tmp_path):
    async def body(site):
        r = await site.post("/api/press/back?long=1")
        assert (await r.json())["long"] is True
        await site.settle(2.0)
        await site.post("/api/press/ok")  # pick Dice
        await site.settle()
        uid = next(iter(site.box.app.registry.demo))
        runner = site.box.app.runner
        assert await asyncio.to_thread(runner.wait_ready, 5)
        base = runner.seen_count
        r = await site.post(f"/api/tap/{uid}")
        assert r.status == 202 and (await r.json())["tapped"] == uid
        site.box.loop.drain()  # the box lays the card on the reader
        assert await asyncio.to_thread(runner.wait_seen, base + 1, 5)  # the reader's thread
        await site.settle(0.1)
        seen = await site.state()
        assert "card_ok" in seen["sounds"]

    run_site(tmp_path, body)


@pytest.mark.parametrize("typed", ["-1", "04_A1_B2_C3", "04::A1", "04A1B2C3-", ":04A1B2C3"])
def test_the_uid_box_refuses_a_sign_underscores_and_stray_separators(tmp_path, typed):
    """Issue 36: what only Python's int() would read as hex is not a card UID (before, "-1" was
    tapped as 0000000001 and "04_A1_B2_C3" as 04A1B2C3)."""

    async def body(site):
        r = await site.post(f"/api/tap/{typed}")
        answer = await r.json()
        assert r.status == 400 and answer["say"].startswith("not a card UID")
        assert repr(typed) in answer["error"]
        ok = await site.post("/api/tap/14:00:8e:c7:93")  # a label's own grouping still is
        assert ok.status == 202

    run_site(tmp_path, body)


def test_a_bad_card_uid_is_also_said_in_plain_words(tmp_path):
    async def body(site):
        r = await site.post("/api/tap/hello")
        answer = await r.json()
        assert r.status == 400 and answer["say"] == "not a card UID"
        assert "not hexadecimal" in answer["error"]  # the detail, for whoever wants it

    run_site(tmp_path, body)


def test_bad_input_is_a_clear_4xx_and_changes_nothing(tmp_path):
    async def body(site):
        before = await site.state()
        cases = [
            (site.post("/api/press/purple"), 400, "unknown button 'purple'"),
            (site.post("/api/press/ok?long=yes"), 400, "long='yes'"),
            (site.post("/api/tap/not-a-uid"), 400, "card UID 'not-a-uid'"),
            (site.post("/api/tap/" + "A" * 40), 400, "at most 32"),
            (site.post("/api/press/ok", headers={}), 403, "Origin"),
            (site.post("/api/press/ok", headers={"Origin": "http://evil.example"}), 403, "Origin"),
            (site.post("/api/press/ok", data=b"x" * 100_000), 413, "over the limit"),
            (
                site.client.get("/api/state", headers={"Host": "evil.example:8765"}),
                421,
                "not this box",
            ),
            (
                site.post("/api/press/ok", headers={"Host": "rebind.example", **site.origin}),
                421,
                "not this box",
            ),
            (  # issue 36: the box's own address with a name glued on is not the box
                site.client.get("/api/state", headers={"Host": "[::1]evil.com"}),
                421,
                "not this box",
            ),
            (
                site.client.get("/api/state", headers={"Host": "127.0.0.1:80evil.com"}),
                421,
                "not this box",
            ),
            (site.client.get("/api/press/ok"), 405, ""),
        ]
        for request, status, words in cases:
            r = await request
            assert r.status == status, (status, await r.text())
            assert words in await r.text()
        await site.settle()
        after = await site.state()
        assert after["screen"] == before["screen"] and after["game"] == before["game"]
        r = await site.post("/api/press/ok")  # and the box plays on
        assert r.status == 202
        await site.settle()
        assert (await site.state())["screen"][0] == "Dice"

    run_site(tmp_path, body)


def test_presses_faster_than_a_finger_are_dropped_with_429(tmp_path):
    async def body(site):
        codes = [(await site.post("/api/press/down")).status for _ in range(12)]
        assert codes[0] == 202 and 429 in codes
        await site.settle()

    run_site(tmp_path, body)


def test_every_answer_carries_the_security_headers(tmp_path):
    async def body(site):
        for path in ("/", "/api/state", "/static/app.js", "/api/display.png", "/api/cards"):
            r = await site.client.get(path)
            assert r.status == 200, path
            assert r.headers["Content-Security-Policy"] == CSP
            assert r.headers["X-Content-Type-Options"] == "nosniff"
        png = await (await site.client.get("/api/display.png")).read()
        assert png.startswith(b"\x89PNG")
        page = await (await site.client.get("/")).text()
        assert 'alt="Display"' in page and "<script>" not in page  # no inline script
        assert "http" not in page.replace("http-equiv", "")  # nothing from another site

    run_site(tmp_path, body)


def test_the_event_stream_pushes_each_new_frame_to_every_client(tmp_path):
    async def next_event(stream):
        while True:
            line = await asyncio.wait_for(stream.content.readline(), 5)
            if line.startswith(b"data: "):
                return json.loads(line[6:])

    async def body(site):
        a = await site.client.get("/api/events")
        b = await site.client.get("/api/events")
        assert a.headers["Content-Type"] == "text/event-stream"
        first_a, first_b = await next_event(a), await next_event(b)
        assert first_a["seq"] == first_b["seq"]
        assert first_a["png"].startswith("data:image/png;base64,")
        await site.post("/api/press/ok")
        await site.settle()
        new_a, new_b = await next_event(a), await next_event(b)
        assert new_a["seq"] > first_a["seq"] and new_b["seq"] == new_a["seq"]
        assert new_a["screen"][0] == "Dice"
        a.close()
        b.close()

    run_site(tmp_path, body)


def test_sound_cues_are_served_as_frequencies():
    assert note_hz("A4") == 440.0
    assert note_hz("A5") == 880.0
    assert note_hz("rest") is None
    assert note_hz("C#6") == pytest.approx(1108.73, abs=0.01)


@pytest.mark.parametrize(
    ("address", "answered"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("192.168.1.20", True),
        ("10.0.0.5", True),
        ("172.16.3.4", True),
        ("169.254.10.1", True),
        ("fe80::1%eth0", True),
        ("fd00::5", True),
        ("::ffff:192.168.0.2", True),
        ("8.8.8.8", False),
        ("2001:4860::8888", False),
        # Python calls these private; the box's list does not (docs/raspberry-pi.md).
        ("2001::1", False),  # Teredo
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),
        ("2001:db8::1", False),  # documentation
        ("198.18.0.1", False),  # benchmarking
        ("198.19.255.254", False),
        ("240.0.0.1", False),  # reserved
        ("255.255.255.255", False),
        ("100.64.0.1", False),  # carrier-grade NAT
        ("192.0.2.1", False),
        ("0.0.0.0", False),
        ("::", False),
        ("::ffff:198.18.0.1", False),
        ("::ffff:8.8.8.8", False),
        ("172.32.0.1", False),
        ("fe80::1", True),
        ("fdff:ffff::1", True),
        ("127.8.8.8", True),
        ("", False),
        (None, False),
        ("not an address", False),
    ],
)
def test_only_local_sources_are_answered(address, answered):
    assert local_source(address) is answered


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("localhost:8765", "localhost"),
        ("LOCALHOST", "localhost"),
        ("127.0.0.1:80", "127.0.0.1"),
        ("[::1]:8765", "::1"),
        ("box.local.", "box.local"),
        ("[::1]evil.com", ""),  # not a host and a port: matches nothing
        ("[::1]:80evil", ""),
        ("[::1", ""),
        ("localhost:http", ""),
        ("127.0.0.1:80evil.com", ""),
    ],
)
def test_host_names_are_read_without_port_or_brackets(header, name):
    assert host_name(header) == name


@given(st.text(max_size=60))
def test_any_host_header_is_read_without_raising(text):
    name = host_name(text)
    assert isinstance(name, str)
    assert name == name.lower()


@pytest.mark.parametrize(
    ("body", "depth"),
    [
        (b"", 0),
        (b'{"code": "123456"}', 1),
        (b'{"a": [1, {"b": []}]}', 4),
        (b'{"a": "[[[[{{{{"}', 1),  # brackets in a string do not count
        (b'{"a": "\\"[[["}', 1),  # nor after an escaped quote
        (b"[" * 1000 + b"]" * 1000, 1000),
    ],
)
def test_nesting_is_counted_without_parsing(body: bytes, depth: int) -> None:
    from companion.core.nesting import json_too_deep

    assert not json_too_deep(body, depth)
    assert json_too_deep(body, depth - 1) == (depth > 0)
