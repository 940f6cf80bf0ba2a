"""One version everywhere (issue 45 point 4): on an installed release `--version` and `check
--offline` say the release's own ("0.4.0+gda8f72aa", its wheel's metadata), as `version` does,
never the source's bare 0.1.0."""

from __future__ import annotations

import pytest

from companion import cli
from companion.release import about

RELEASE = "0.4.0+gda8f72aa"


@pytest.fixture
def a_release(monkeypatch):
    monkeypatch.setattr(about.metadata, "version", lambda name: RELEASE)


def test_version_option_says_the_releases_version(a_release, capsys):
    with pytest.raises(SystemExit) as ended:
        cli.main(["--version"])
    assert ended.value.code == 0
    assert capsys.readouterr().out == f"trap-companion {RELEASE}\n"


def test_the_offline_check_says_the_releases_version(a_release, capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(
        '[hardware]\npin_factory = "mock"\n[display]\ndriver = "none"\n'
        f'[reader]\ntype = "none"\n[state]\ndir = "{tmp_path / "state"}"\n'
    )
    (tmp_path / "state").mkdir()
    status = cli.main(["check", "--offline", "--config", str(config)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"offline check of {RELEASE}:" in out


def test_a_trial_systemd_said_nothing_of_is_told_so():
    from companion.release.systemd import why_down

    assert why_down({}) == "systemd did not say what became of it"
    assert "?" not in why_down({"ActiveState": "failed"})
    assert why_down({"ActiveState": "failed", "SubState": "failed", "Result": "oom-kill"}) == (
        "it is failed/failed, result oom-kill"
    )
