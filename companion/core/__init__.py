"""Core: events, clocks, the one-consumer loop, the journal, the card registry and config."""
