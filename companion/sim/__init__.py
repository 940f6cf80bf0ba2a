"""The terminal simulator: keys to mock pins, the OLED frame to the terminal."""
