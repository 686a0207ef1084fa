"""The players' page and JSON API (issue 5: not built yet)."""
