"""Trap Attack: the solo-mode AI, the pawns' books and end-of-game scoring."""

from companion.games.trap_attack.game import GAME

__all__ = ["GAME"]
