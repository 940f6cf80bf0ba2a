"""Releases side by side under /opt/trap-companion: the bundle, the switch, the trial, going back.

The layout is /work/wt/RELEASE-CONTRACT.md's (docs/raspberry-pi.md for owners): releases/<v>/,
``current`` and ``previous`` symlinks renamed into place. Stdlib only: parts run under the
system python3 before any venv exists, and the guard runs from the release kept for going back.
"""
