"""The dice box's MicroPython firmware (copied to the box as it is; see README.md here).

The Pi imports ``wire`` from here too, so both ends share one frame format."""
