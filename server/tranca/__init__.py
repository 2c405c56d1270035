"""Tranca server: an authoritative rules engine and game service for Tranca."""

__version__ = "0.1.0"
