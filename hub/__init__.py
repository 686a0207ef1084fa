"""A club's boards on one page (``docs/hub.md``): the hub follows what each referee publishes through the club's
MQTT broker and keeps the archive of every game of every board. It only reads: it sends nothing to a board,
and carries none of a board's controls."""
