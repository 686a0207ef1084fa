"""The Pi's own devices behind small interfaces (issue 4: not built yet)."""
