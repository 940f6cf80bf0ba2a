"""Hardware adapters: thin layers over gpiozero, luma and pyserial. Never imports games."""
