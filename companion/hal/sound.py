"""The buzzer: named cues played on gpiozero's TonalBuzzer. Notes change on loop deadlines,
never by sleeping, so a cue never blocks the consumer."""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Callable
from importlib import resources
from typing import Any

from gpiozero import TonalBuzzer
from gpiozero.tones import Tone

log = logging.getLogger(__name__)

Note = tuple[str, float]
NEXT = "sound:next"  # the loop's key for a cue's next note (one cue at a time)


def load_cues() -> dict[str, list[Note]]:
    text = resources.files("companion.data").joinpath("sounds.toml").read_text("utf-8")
    return {
        name: [(str(n), float(s)) for n, s in notes]
        for name, notes in tomllib.loads(text)["cues"].items()
    }


CUES = load_cues()


class Sound:
    """Plays one cue at a time (a new cue cuts the old one short)."""

    def __init__(
        self,
        pin: int,
        factory: Any,
        volume: float,
        call_at: Callable[[float, Callable[[], None], str], Any],
        cancel: Callable[[str], None],
        now: Callable[[], float],
    ) -> None:
        self.volume = volume
        self.call_at = call_at
        self.cancel = cancel
        self.now = now
        self.buzzer: TonalBuzzer | None = None
        if volume > 0:
            self.buzzer = TonalBuzzer(pin, mid_tone=Tone("A5"), octaves=2, pin_factory=factory)

    def play(self, cue: str) -> None:
        notes = CUES.get(cue)
        if notes is None:
            log.warning("no sound cue named %r", cue)
            return
        if self.buzzer is None:
            return
        self.cancel(NEXT)  # a new cue cuts the old one short
        self._step(tuple(notes))

    def _step(self, notes: tuple[Note, ...]) -> None:
        """Play the first note, and ask for the next one its length after it really began: a
        loop late to this deadline (a frame drawn at a Pi Zero's pace) delays a cue but never
        squeezes its notes together into no sound at all."""
        if not notes:
            self._silence()
            return
        (note, seconds), rest = notes[0], notes[1:]
        self._note(note)
        self.call_at(self.now() + seconds, lambda: self._step(rest), NEXT)

    def _note(self, note: str) -> None:
        if self.buzzer is None:
            return
        if note == "rest":
            self._silence()
            return
        self.buzzer.play(Tone(note))
        self.buzzer.pwm_device.value = 0.5 * self.volume  # duty cycle sets loudness

    def _silence(self) -> None:
        """Stop the tone and drive the line low. lgpio stops its software PWM wherever the
        wave was (gpiozero's stop() asks for no more than that): a cue could end with the line
        left high, a steady current through the buzzer's coil and transistor until the next
        cue (hwtest saw 8 stops in 20 end high in its VM)."""
        if self.buzzer is not None:
            self.buzzer.stop()
            self.buzzer.pwm_device.off()

    def close(self) -> None:
        if self.buzzer is not None:
            self._silence()
            self.buzzer.close()
