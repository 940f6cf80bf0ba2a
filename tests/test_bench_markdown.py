"""`trap-companion bench --markdown`: the table that opens docs/performance.md, made from the
bench's own JSON (a run's, `make pibench`'s), each target met or not, so it is pasted there."""

import json
import os

import pytest

from companion import cli
from companion.bench.markdown import HEADER, figure, read, sources_of, table
from companion.bench.run import BUS_TARGETS, PI_TARGETS, QUICK_PRESSES, TARGETS
from companion.errors import DataError

DAY = "2026-11-29"


def whole_run(**figures: float) -> dict:
    """A whole run's JSON as run_all ends it: the figures, the targets met or not, a bus figure."""
    data: dict = {"button_samples": 1000, "machine": {"cpus": 2, "python": "3.11.7"}}
    data.update(figures)
    data["bus_bytes_per_menu_move"] = {"ssd1306_window_percent": 52.0}
    data["targets"] = {k: v for k, v in TARGETS.items() if k in data}
    data["met"] = {k: data[k] <= v for k, v in TARGETS.items() if k in data}
    data["targets"]["menu_move_window_percent_of_whole"] = BUS_TARGETS["menu_move"]
    data["met"]["menu_move_window_percent_of_whole"] = False
    return data


def pibench(**emulated: float) -> dict:
    return {
        "native": {"python_loop_seconds": 0.25, "machine": {"arch": "x86_64"}},
        "arm64": {"python_loop_seconds": 2.5, "machine": {"arch": "aarch64"}, **emulated},
    }


def rows(lines: list[str]) -> list[list[str]]:
    """The table's rows (the header and its rule left out), cell by cell."""
    body = lines[len(HEADER) : lines.index("") if "" in lines else len(lines)]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in body]


def test_a_whole_run_gives_a_row_a_target_with_its_figure_and_whether_it_is_met() -> None:
    data = whole_run(button_p99_ms=1.89, card_p99_ms=12.5, ready_seconds=0.21)
    lines = table(sources_of(data, "run.json", DAY))
    assert tuple(lines[:2]) == HEADER
    got = rows(lines)
    assert all(len(row) == 7 for row in got)
    by_figure = {row[0]: row for row in got}
    assert by_figure["button to frame, p99"] == [
        "button to frame, p99",
        "native",
        "1.89 ms",
        "<= 5 ms",
        "yes",
        "`trap-companion bench`",
        DAY,
    ]
    assert by_figure["card to frame (RDM6300), p99"][4] == "**no**"  # 12.5 ms against 10
    assert by_figure["start to READY=1"][2:5] == ["0.21 s", "<= 1.5 s", "yes"]
    bus = by_figure["I2C bytes of a menu move, window / whole frame (SSD1306)"]
    assert bus[2:5] == ["52 %", "<= 40 %", "**no**"]  # the bus figure read from its table
    assert len(got) == len(data["targets"])
    assert lines[-1] == "- native: 2 CPUs, Python 3.11.7"


def test_met_is_the_runs_own_word_and_a_quick_run_says_so() -> None:
    data = whole_run(button_p99_ms=1.0, button_samples=QUICK_PRESSES)
    data["met"]["button_p99_ms"] = False  # as the run said, never judged again here
    (row,) = rows(table(sources_of(data, "run.json", DAY)))[:1]
    assert row[4] == "**no**" and row[5] == "`trap-companion bench --quick`"


def test_a_pibench_file_is_read_at_a_pis_pace_against_its_own_targets() -> None:
    data = pibench(button_p99_ms=57.1, ready_per_bare_import=1.45, web_press_p99_ms=15.0)
    lines = table(sources_of(data, "pi.json", DAY))
    got = {row[0]: row for row in rows(lines)}
    assert set(got) == {
        "button to frame, p99",
        "start to READY=1 / bare import of the libraries",
        "HTTP press to its event, p99",
    }  # only the targets it has figures for
    assert got["button to frame, p99"][1:6] == [
        "a Pi's pace (arm64, QEMU)",
        "57.1 ms",
        f"<= {PI_TARGETS['button_p99_ms']:g} ms",
        "**no**",
        "`make pibench ARCH=arm64`",
    ]
    start = got["start to READY=1 / bare import of the libraries"]
    assert start[2:5] == ["1.45x", "<= 1.5x", "yes"]
    assert got["HTTP press to its event, p99"][4] == "yes"  # at the target is met
    assert "plain Python loop 10.0x this machine's" in lines[-1]


def test_a_pi_class_run_on_the_pi_itself_is_read_against_the_pis_targets() -> None:
    data = {"python_loop_seconds": 1.0, "button_p99_ms": 4.0, "machine": {"arch": "armv7l"}}
    (row,) = rows(table(sources_of(data, "pi.json", DAY)))
    assert row[1] == "on armv7l" and row[4] == "yes"
    assert row[5] == "`trap-companion bench --pi-class`"


def test_a_target_without_words_still_gets_its_row() -> None:
    data = whole_run(button_p99_ms=1.0)
    data["targets"]["new_figure_ms"], data["met"]["new_figure_ms"] = 3.0, True
    data["new_figure_ms"] = 2.0
    got = [row[:5] for row in rows(table(sources_of(data, "r", DAY)))]
    assert ["new_figure_ms", "native", "2", "<= 3", "yes"] in got


def test_figures_without_targets_are_refused_naming_the_file() -> None:
    with pytest.raises(DataError, match=r"game\.json: no figures with targets"):
        sources_of({"press_cpu_ratio_long_to_short": 1.0}, "game.json", DAY)
    with pytest.raises(DataError, match=r"list\.json: not the JSON"):
        sources_of([1, 2], "list.json", DAY)


def test_the_files_make_one_table_dated_by_each_file(tmp_path, capsys) -> None:
    run = tmp_path / "run.json"
    run.write_text(json.dumps(whole_run(button_p99_ms=1.5)))
    pi = tmp_path / "pi.json"
    pi.write_text(json.dumps(pibench(button_p99_ms=8.0)))
    os.utime(pi, (1_764_000_000, 1_764_000_000))  # 2025-11-24 UTC
    sources = read([str(run), str(pi)])
    assert [s.date for s in sources][1] == "2025-11-24"
    assert cli.main(["bench", "--markdown", str(run), str(pi)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert tuple(out[:2]) == HEADER
    wheres = [row[1] for row in rows(out)]
    assert wheres[0] == "native" and wheres[-1] == "a Pi's pace (arm64, QEMU)"
    assert figure(json.loads(run.read_text()), "menu_move_window_percent_of_whole") == 52.0


def test_bad_files_say_what_and_where_with_their_own_status(tmp_path, capsys) -> None:
    missing = tmp_path / "none.json"
    assert cli.main(["bench", "--markdown", str(missing)]) == 2
    assert f"trap-companion: {missing}: no such file" in capsys.readouterr().err
    garbled = tmp_path / "garbled.json"
    garbled.write_text("{not json")
    assert cli.main(["bench", "--markdown", str(garbled)]) == 65
    assert f"trap-companion: {garbled}: not JSON" in capsys.readouterr().err
