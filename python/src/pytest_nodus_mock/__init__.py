"""pytest fixtures for nodus-mock: a server per session, a tenant per test, a snapshot per failure."""
from .client import NodusMock, NodusMockError
from .server import NodusMockServer, NodusMockStartError

__all__ = ["NodusMock", "NodusMockError", "NodusMockServer", "NodusMockStartError"]
