"""The hub's subscription: every board's topics, through the club's broker, handed to the archive.

The hub logs in with a session the broker keeps (a fixed client id, not clean, QoS 1), so what the boards
publish while the hub is away waits for it at the broker; a board's entry that comes twice is kept once by
the archive (``archive.py``). A message the archive refuses is logged in one line and changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from willughby.companion.mqtt_client import BrokerAccount, mqtt_client
from willughby.companion.periodic import Periodic

from .archive import HubArchive, Refused

log = logging.getLogger(__name__)

__all__ = ["HubFollower", "FollowSettings"]


@dataclass(frozen=True)
class FollowSettings:
    """Where and as whom the hub reads (the broker's access list lets the user ``hub`` read every board), the
    topics' root, and the client id its kept session is known by."""

    account: BrokerAccount
    root: str = "willughby"
    client_id: str = "willughby-hub"


class HubFollower:
    """Subscribes to ``<root>/#`` and hands every message to *archive*; counts what it kept and refused; has
    the archive check the games that ended every two seconds (``HubArchive.settle``)."""

    def __init__(self, archive: HubArchive, settings: FollowSettings) -> None:
        self.archive = archive
        self.settings = settings
        self.kept = self.again = self.refused = 0
        self.client = mqtt_client(settings.account, settings.client_id, clean_session=False)
        self.client.on_connect = self._connected
        self.client.on_message = self._message
        self._settling = Periodic("willughby-hub-settle", 2.0, archive.settle)

    def start(self) -> None:
        self.client.connect_async(self.settings.account.broker, self.settings.account.port, keepalive=30)
        self.client.loop_start()
        self._settling.start()

    def close(self) -> None:
        self._settling.close()
        self.client.disconnect()
        self.client.loop_stop()

    def _connected(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("the broker refused the hub: %s", reason)
            return
        client.subscribe(f"{self.settings.root}/#", qos=1)

    def _message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            done = self.archive.take(msg.topic, bytes(msg.payload))
        except Refused as exc:
            self.refused += 1
            log.warning("refused: %s", exc)
            return
        if done == "kept":
            self.kept += 1
        else:
            self.again += 1
