"""Card readers: wire-protocol drivers over pyserial, fake devices over a pty, and the runner."""
