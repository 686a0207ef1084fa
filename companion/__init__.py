"""The composition root: configuration, the running service and the
``willughby`` command.  (The service itself comes with issue 5; the command
line's engine subcommands are here.)"""
