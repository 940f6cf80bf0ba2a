"""One module per command; each adds its parser with ``register(subparsers)``."""
