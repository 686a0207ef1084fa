"""The dice box: its byte protocol (``codec``, docs/protocol.md), the serial
link that keeps it connected (``link``), a fake box on a pseudo-terminal
(``fake``), and the box's own MicroPython firmware (``firmware/``)."""
