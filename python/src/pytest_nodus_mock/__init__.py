"""nodus-mock from Python: a control client per tenant, a server you can start with `with`, and
pytest fixtures (a server per session, a tenant per test, a snapshot per failure)."""
from .client import NodusMock, NodusMockError
from .server import NodusMockServer, NodusMockStartError, start_server
from .webhooks import WebhookReceiver

__all__ = ["NodusMock", "NodusMockError", "NodusMockServer", "NodusMockStartError", "WebhookReceiver", "start_server"]
