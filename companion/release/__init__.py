"""Releases of the box: bundles, the release directories and the switch between them (issue 34)."""
