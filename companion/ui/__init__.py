"""Screens, menus, control maps and light/sound cues: state to pictures, buttons to actions."""
