"""The canonical submission format: pydantic v2 models of events, manifests and the pre-registration.

The format knows nothing about how it is checked.
"""

from checker.format.schema.events import EVENT_ADAPTER, EVENT_MODELS, Event
from checker.format.schema.manifest import Prereg, Submission

__all__ = ["EVENT_ADAPTER", "EVENT_MODELS", "Event", "Prereg", "Submission"]
