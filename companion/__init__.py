"""Trap Companion: an electronic companion box for physical trap games."""

__version__ = "0.1.0"
