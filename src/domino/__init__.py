"""Domino: the classic with 28 tiles, for 2-4 players, humans and bots at one table."""

__version__ = "0.1.0"
