"""What the box shows, as data: one renderer turns it into the OLED frame, the simulator's
picture and the replay's ``screen`` lines, so they can never disagree."""

from __future__ import annotations

from companion.core.values import value

RGB = tuple[float, float, float]

OFF: RGB = (0.0, 0.0, 0.0)
WHITE: RGB = (1.0, 1.0, 1.0)
RED: RGB = (1.0, 0.0, 0.0)
GREEN: RGB = (0.0, 1.0, 0.0)
BLUE: RGB = (0.0, 0.0, 1.0)
AMBER: RGB = (1.0, 0.5, 0.0)
YELLOW: RGB = (1.0, 1.0, 0.0)
PURPLE: RGB = (0.6, 0.0, 1.0)
CYAN: RGB = (0.0, 1.0, 1.0)


@value
class Screen:
    """A 128x64 screen: a title line, one thing large or up to three lines, a footer.

    ``big`` is drawn in large digits (timers, dice faces); ``lines`` are short text lines
    (at most three without ``big``, one with it). ``footer`` says what green and red do now.
    ``inverted`` draws the middle white-on-black for alerts (time up, knock-out).
    ``picture`` names an extra drawing the renderer knows (e.g. "dungeon") with its data.
    ``big_seat`` is the seat that ``big`` stands for (a turn screen's large seat number), so a
    player's name can take its place (ui/names.py); None where ``big`` is a number of the game.
    """

    title: str
    lines: tuple[str, ...] = ()
    big: str | None = None
    footer: str = ""
    inverted: bool = False
    picture: tuple[str, tuple[object, ...]] | None = None
    big_seat: int | str | None = None

    def text_lines(self) -> list[str]:
        """Top to bottom, as replay prints them."""
        out = [self.title]
        if self.big is not None:
            out.append(self.big)
        out.extend(self.lines)
        if self.footer:
            out.append(self.footer)
        return out


@value
class Lights:
    """The RGB LED: a colour and a pattern (solid, blink, pulse, off)."""

    color: RGB = OFF
    pattern: str = "solid"

    def shown(self) -> RGB:
        """The colour a still picture of the LED would show (replay's ``leds``)."""
        return OFF if self.pattern == "off" else self.color


def fraction_color(fraction: float) -> RGB:
    """Green (1.0 left) through amber to red (0.0 left): a timer's colour."""
    f = max(0.0, min(1.0, fraction))
    if f >= 0.5:
        return (round(2 * (1 - f), 3), 1.0, 0.0)
    return (1.0, round(2 * f, 3), 0.0)
