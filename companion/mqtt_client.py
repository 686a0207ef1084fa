"""One way to reach the club's MQTT broker, for a referee that publishes (``hub_publish.py``) and for the hub
that follows the boards (``willughby.hub``): who and where (:class:`BrokerAccount`), and an Eclipse Paho
client made for it (MQTT 3.1.1; reconnecting by itself, 1 s doubling to 30 s; TLS checked against the club's
authority where asked)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BrokerAccount", "mqtt_client"]


@dataclass(frozen=True)
class BrokerAccount:
    """Where the broker is and as whom to log in (an empty username: none; ``ca_file`` empty: the system's
    authorities)."""

    broker: str
    port: int = 1883
    username: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""


def mqtt_client(account: BrokerAccount, client_id: str, *, clean_session: bool) -> Any:
    """A Paho client for *account*, not yet connected (``connect_async`` and ``loop_start`` start it)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311,
                         clean_session=clean_session)
    if account.username:
        client.username_pw_set(account.username, account.password or None)
    if account.tls:
        client.tls_set(ca_certs=account.ca_file or None)
    client.reconnect_delay_set(1, 30)
    return client
