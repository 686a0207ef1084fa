"""Camera frames in, board readings out (issue 3: not built yet)."""
