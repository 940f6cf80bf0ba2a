"""`trap-companion check`: the owner's self-test of the box, part by part."""

from __future__ import annotations

import argparse

from companion import __version__
from companion.commands._common import add_config_arg, load_config, with_state_dir
from companion.core.config import Config
from companion.errors import CompanionError, UsageError
from companion.release.about import program_version


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="test every part of the box: pins, display, reader, buttons, LED, buzzer, a card",
        description="Reports the GPIO backend, whether the OLED answers and whether the card "
        "reader's port opens (with the PN532's firmware version), then asks you to press each "
        "button, confirm each LED colour and the tone with ok/back, and tap a card (its UID "
        "and whether it is enrolled). Ends with a pass/fail table. Stop the service first: "
        "sudo systemctl stop trap-companion. Exit status 0 when nothing failed, 1 otherwise, "
        "78 for a configuration error.",
    )
    add_config_arg(p)
    p.add_argument(
        "--simulate",
        action="store_true",
        help="run on simulated parts (mock pins, dummy display, fake reader), answering itself",
    )
    p.add_argument(
        "--offline",
        action="store_true",
        help="no hardware and nothing asked (what an update checks in a new release before it "
        "switches): the config, the state dir readable, the card list and every game load, "
        "then the self-test on simulated parts",
    )
    p.add_argument(
        "--non-interactive",
        action="store_true",
        help="only the automatic checks (pins, display, reader): nothing is asked",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long each question waits for an answer (default 10)",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from companion.pi import selftest

    if not 0 < args.timeout <= 600:
        raise UsageError(f"--timeout {args.timeout:g}: give 0 < SECONDS <= 600")
    config = load_config(args)
    if args.offline:
        return offline(config, args)
    if not args.simulate:
        config = with_state_dir(config, args, write=False)  # it only reads the cards
    interactive = not args.non_interactive
    print(f"Trap Companion self-test ({config.source})", flush=True)
    if args.simulate:
        with selftest.simulated(config, say=_say) as (sim_config, parts, operator):
            results = selftest.SelfTest(sim_config, parts, operator, args.timeout).run(interactive)
    else:
        parts = selftest.CheckParts.from_config(config, selftest.registry_path(config))
        test = selftest.SelfTest(config, parts, ConsoleOperator(), args.timeout)
        results = test.run(interactive)
    print()
    print(selftest.format_table(results))
    return selftest.exit_status(results)


def offline(config: Config, args: argparse.Namespace) -> int:
    """Everything the box needs but its parts: a release that passes this starts as far as
    software can tell without the hardware. Exit 0 when all passed, 1 otherwise."""
    from companion.core.registry import Registry
    from companion.games import registry as games
    from companion.pi import selftest

    config = with_state_dir(config, args, write=False)  # 73 if the service user cannot read it
    state_dir = config.state_dir()
    failed: list[str] = []
    cards = selftest.registry_path(config)
    try:
        Registry(cards)
    except CompanionError as err:
        failed.append(f"card list: {err}")
    for problem in games.attach(state_dir):
        failed.append("games: " + " ".join(problem))
    for name in games.available():
        try:
            games.get(name)
        except Exception as err:  # a game that does not load is what this check is for
            failed.append(f"game {name}: {type(err).__name__}: {err}")
    with selftest.simulated(config, say=lambda text: None) as (sim_config, parts, operator):
        results = selftest.SelfTest(sim_config, parts, operator, args.timeout).run(True)
    failed += [f"{r.part}: {r.detail}" for r in results if r.outcome == selftest.FAIL]
    for line in failed:
        print(f"FAIL {line}", flush=True)
    print(
        f"offline check of {program_version(__version__)}: config {config.source}, "
        f"state dir {state_dir}, {len(games.available())} games, {len(results)} simulated parts: "
        + ("passed" if not failed else f"{len(failed)} failed"),
        flush=True,
    )
    return 0 if not failed else 1


def _say(text: str) -> None:
    print(text, flush=True)


class ConsoleOperator:
    """The person at the box reads the questions here and answers with the box's buttons."""

    def tell(self, text: str) -> None:
        _say(text)

    def ask(self, step: str, text: str) -> None:
        _say(f"> {text}")
