"""The players' page: ``create_app(config, companion)`` builds a Flask app
with the JSON API (``/api/...``), the live events (``/api/events``) and the
pages (the board, the games, the dispute view, the calibration), serving the
companion it is handed (``contract.CompanionLike``).
"""

from .app import create_app
from .config import ConfigError, WebConfig
from .contract import CompanionLike, Subscription

__all__ = ["create_app", "WebConfig", "ConfigError", "CompanionLike", "Subscription"]
