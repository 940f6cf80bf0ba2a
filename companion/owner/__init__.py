"""The owner's commands on a running box: `trap-companion cards ...` asks the daemon over a
local socket, so the daemon stays the only writer of its state (docs/architecture.md)."""
