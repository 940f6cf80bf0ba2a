"""bench measures through the real paths (no timing is asserted here: the figures live in
docs/performance.md); these check that each measurement runs and reports what it claims."""

import json
import socket

import pytest

from companion.bench import figures, long_games, phones, pi_class, run, start


def test_latency_measurements_report_percentiles():
    button = figures.button_latency(5)
    card = figures.card_latency(5)
    assert button["button_samples"] == 5
    assert 0 < button["button_p50_ms"] <= button["button_p99_ms"]
    # CPU a press costs: the loop's thread, within the whole process's (which a loaded
    # machine stretches far less than the wall clock)
    assert 0 < button["button_loop_cpu_ms"] <= button["button_process_cpu_ms"]
    assert card["card_samples"] == 5
    assert 0 < card["card_p50_ms"] <= card["card_p99_ms"]


def test_re_presses_inside_the_debounce_window_each_give_a_frame():
    """A re-press half a window after each release: none is lost (a lost one would leave the
    next release without a frame, which raises)."""
    button = figures.button_latency(8, repress=True)
    assert button["button_repress_samples"] == 8
    assert 0 < button["button_repress_p50_ms"] <= button["button_repress_p99_ms"]


def test_the_pn532_is_measured_through_its_own_driver():
    card = figures.pn532_card_latency(4)
    assert card["pn532_card_samples"] == 4
    assert 0 < card["pn532_card_p50_ms"] <= card["pn532_card_p99_ms"]
    idle = figures.idle_cpu(0.5, reader="pn532")
    assert idle["pn532_idle_seconds"] == 0.5
    assert idle["pn532_idle_cpu_percent"] >= 0 and idle["pn532_idle_wakeups_per_s"] > 0
    assert "pn532_idle_cpu_percent" in run.TARGETS


def test_timer_precision_runs_whole_turns():
    result = figures.timer_precision(turns=2, seconds=1.0)
    assert result["timer_turns"] == 2
    assert len(result["timer_errors_ms"]) == 2
    assert result["timer_error_ms"] == max(result["timer_errors_ms"])


def test_daemon_start_reaches_ready_and_stops():
    result = start.daemon_start(runs=1)
    assert result["ready_seconds"] > 0
    assert result["stop_seconds"] > 0
    assert result["peak_rss_mb"] > 10


def test_the_phones_figures_run():
    idle = phones.phones_idle(0.5)
    assert set(idle) == {"phones_idle_cpu_percent", "phones_idle_wakeups_per_s"}
    started = start.daemon_start(runs=1, phones=True)
    assert started["phones_peak_rss_mb"] > 10
    assert "phones_peak_rss_mb" in run.TARGETS


def test_the_wait_for_the_phones_server_still_ends_when_nothing_answers():
    """The phones' waits are hang guards (floods.START_WAIT, long enough for an emulated Pi
    under load): with nothing listening the wait still ends, saying so."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, never listening: refused
        with pytest.raises(RuntimeError, match=f"nothing answered on port {port}"):
            start._wait_for_port(port, seconds=0.3)


def test_start_is_measured_by_journal_size():
    result = start.start_by_journal_size((0.05,))
    assert result["ready_seconds_journal_0.05mb"] > 0
    assert result["journal_lines_0.05mb"] > 500  # dice games of 100 rolls, the last in play
    assert result["peak_rss_mb_journal_0.05mb"] > 10


def test_a_press_over_http_is_timed_to_its_frame_on_the_event_stream():
    web = phones.web_latency(5)
    assert web["web_press_samples"] == 5
    assert 0 < web["web_press_p50_ms"] <= web["web_press_p99_ms"]
    assert 0 < web["web_press_loop_cpu_ms"] <= web["web_press_process_cpu_ms"]
    assert "web_press_p99_ms" in run.TARGETS
    idle = figures.idle_cpu(0.5, web=True)  # with the page's event stream open
    assert idle["web_idle_seconds"] == 0.5 and idle["web_idle_wakeups_per_s"] > 0


def test_fast_cards_counts_the_cards_that_never_became_a_tap():
    for reader, key in (("rdm6300", "fast_cards_lost"), ("pn532", "pn532_fast_cards_lost")):
        result = figures.fast_cards(cards=5, reader=reader)
        assert set(result) == {key}
        assert 0 <= result[key] <= 5
        assert key in run.TARGETS


def test_a_phones_press_is_timed_without_and_with_slow_connections():
    result = phones.phones_under_load(presses=3, slow=100)
    assert result["phones_press_samples"] == 3 and result["phones_slow_clients"] == 100
    assert 0 < result["phones_press_p50_ms"] <= result["phones_press_p99_ms"]
    assert 0 < result["phones_press_loaded_p50_ms"] <= result["phones_press_loaded_p99_ms"]
    assert 0 < result["phones_server_connections_max"] <= 32
    assert result["phones_load_log_lines"] < 100


def test_the_journal_figures_count_an_hour_of_a_timed_game():
    result = start.journal_writes(hours=0.25)
    assert result["journal_bytes_per_hour"] > 0
    assert result["journal_fsyncs_per_hour"] >= 4 * 30  # a line a turn, 30-second turns
    assert "journal_fsyncs_per_hour" in run.TARGETS


def test_pi_class_figures_come_from_the_same_paths() -> None:
    assert pi_class.python_loop(1000)["python_loop_seconds"] >= 0
    replay = pi_class.replay_speed(rolls=2)
    assert replay["replay_rolls"] == 2 and replay["replay_seconds"] > 0
    assert pi_class.bare_import(1)["bare_import_cpu_seconds"] > 0
    frame = pi_class.frame_cost(12)
    assert frame["frame_partial_ms"] > 0 and frame["frame_whole_ms"] > 0


def test_a_game_of_any_length_is_measured_from_a_journal_the_rules_made(tmp_path) -> None:
    made = long_games.long_journal(tmp_path, 1_200)
    text = (tmp_path / "journal.jsonl").read_text()
    kinds = [json.loads(line)["kind"] for line in text.splitlines()]
    assert kinds[:2] == ["game", "checkpoint"] and made["lines"] == len(kinds) < 1_200
    began = long_games.start_by_game_length((20, 1_200), runs=2)
    assert began["journal_lines_game_20"] == 21
    assert began["ready_ratio_game_long_to_short"] > 0 and "peak_rss_more_mb_game_long" in began
    press = long_games.press_cpu_by_game_length((5, 1_200), presses=4, blocks=2)
    assert press["press_cpu_ms_step_1200"] > 0 and press["press_cpu_ratio_long_to_short"] > 0
    assert press["press_cpu_presses"] == 4 and press["standing_steps_step_5"] == 5 + 20 + 4
    assert press["standing_steps_step_1200"] <= 1_000
    for key in ("ready_ratio_game_long_to_short", "press_cpu_ratio_long_to_short"):
        assert key in run.TARGETS


def test_a_press_by_game_length_is_also_measured_side_by_side() -> None:
    """Both games' boxes running at once, the presses alternated: each box's loop did the
    presses (its CPU counted on its own thread), and the two are compared."""
    paired = long_games.press_cpu_paired((5, 1_200), presses=4)
    assert paired["press_loop_cpu_ms_paired_step_5"] > 0
    assert paired["press_loop_cpu_ms_paired_step_1200"] > 0
    assert paired["press_loop_cpu_ratio_paired"] > 0 and paired["press_cpu_paired_presses"] == 4


def test_the_bus_bytes_are_counted_both_ways_over_the_same_frames(tmp_path) -> None:
    from companion.bench.bus import bus_bytes, frame_send

    (tmp_path / "dice.txt").write_text("game dice die=d6\npress green\npress green\npress down\n")
    results = bus_bytes(tmp_path)
    assert results["bus_example_scripts"] == 1
    press = results["bus_bytes_per_press"]
    assert press["n"] == 3
    tick = results["bus_bytes_per_countdown_tick"]
    assert tick["n"] == 44
    assert tick["ssd1306_whole"] == 7 + 1025  # luma's window commands and the 1,024 bytes
    for kind in ("press", "menu_move", "menu_scroll", "countdown_tick"):
        figures = results[f"bus_bytes_per_{kind}"]
        assert 0 < figures["ssd1306_window"] < figures["ssd1306_whole"]
        assert 0 < figures["sh1106_window"] < figures["sh1106_whole"]
    sends = frame_send(6)
    assert set(sends) == {"frame_send_whole_ms", "frame_send_window_ms", "frame_handoff_ms"}
