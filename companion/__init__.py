"""The companion: the referee of the game in progress (``service.py``, made
of parts: ``docs/architecture.md``), its store, its camera watcher, its
configuration and the ``willughby`` command that runs them all."""
