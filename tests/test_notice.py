"""No notice loses words: a refusal, a card's name or a start-up problem is wrapped to lines
that fit and paged, and every page is drawn without an ellipsis."""

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.replay import run_script
from companion.ui.fonts import ELLIPSIS
from companion.ui.notice import LINES_PER_PAGE, pages
from companion.ui.render import layout

WORDS = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'().,:",
    min_size=1,
    max_size=12,
)


def _drawn_words(screens):
    words = []
    for screen in screens:
        placed = [p for p in layout(screen).texts if p.area == "line"]
        assert all(ELLIPSIS not in p.text for p in placed), placed
        assert len(placed) == len(screen.lines) <= LINES_PER_PAGE
        words.extend(word for p in placed for word in p.text.split())
    return words


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=1, max_size=14), min_size=1, max_size=4))
def test_every_word_is_drawn_in_order(pieces):
    texts = [" ".join(words) for words in pieces]
    screens = pages("Trap Attack", texts)
    assert _drawn_words(screens) == [word for words in pieces for word in words]
    if len(screens) > 1:
        assert [s.footer for s in screens] == [
            f"{n}/{len(screens)}" for n in range(1, len(screens) + 1)
        ]


def test_a_refusal_says_its_whole_sentence():
    out = run_script(
        "game trap-attack\ndice 6 1\ndo first_player\n"
        "do attack kind=damage amount=1\ndice 3\ndo attack kind=damage amount=1\n"
    )
    refused = out[-1]
    assert refused["rejected"] == "Player 1 has already cast an attack this turn"
    assert refused["screen"][0] == "Not allowed"
    assert " ".join(refused["screen"][1:]).split() == refused["rejected"].split()


def test_a_long_notice_pages_and_then_gives_the_screen_back(tmp_path):
    """Two problems at start (a damaged card list and journal) both show, a page each."""
    (tmp_path / "cards.toml").write_text("this is [not toml")
    (tmp_path / "journal.jsonl").write_bytes(b"\x00garbage\n")
    out = run_script("wait 0.1\nwait 2.5\nwait 2.5\n", state_dir=tmp_path)
    first, second, after = (o["screen"] for o in out)
    assert first[-1] == "1/2" and second[-1] == "2/2"
    shown = " ".join(first[1:-1] + second[1:-1])
    assert "Card list unreadable" in shown and "Saved game damaged" in shown
    assert after[-1] not in ("1/2", "2/2")
