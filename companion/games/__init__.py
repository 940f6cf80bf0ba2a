"""Game rules: pure state + action -> state + effects. Imports nothing but the standard library
and companion.games / companion.ui.screen data types."""
