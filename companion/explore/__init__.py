"""The explorer of the box's flow (issue 43): the pure step walked as a table would walk it,
every screen drawn, every failure kept as a replay script. ``trap-companion explore``."""
