"""A page served for a browser test: the app on 127.0.0.1 by werkzeug's threaded server, in a thread of this
process, so the test can ask the companion behind it directly."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def serving(app: Any, name: str = "browser-test-server") -> Iterator[str]:
    """While inside, *app* answers at the URL yielded (``http://127.0.0.1:PORT/``)."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
