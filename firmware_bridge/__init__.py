"""The byte protocol to the dice box and its serial link (issue 4: not built yet)."""
