"""Python SDK for the Tranca game service (tranca.v1)."""
