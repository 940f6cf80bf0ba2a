"""Raspberry Pi specifics: boot firmware configuration, systemd notification, self-test."""
