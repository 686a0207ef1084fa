"""The rules engine: positions, presets, legal plays, notation, the referee,
stakes and game records.  Pure: no I/O, no clock, no randomness except
through an argument (DESIGN.md).
"""
