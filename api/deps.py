"""What routes depend on: the settings, the one store and assistant of the app, the API key check."""

from __future__ import annotations

import hmac
import os
import threading
from functools import cached_property
from typing import Annotated

from fastapi import Depends, Request

from api.errors import Unauthorized
from assistant.service import Assistant
from assistant.topics import TopicService
from papertalk.settings import Settings
from storage.store import Store

KEY_ENV = "PAPERTALK_API_KEY"  # the short name, beside the setting PAPERTALK_API__KEY


class AppState:
    """The store and the assistant an app shares between its requests (and threads)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = Store(settings)
        self.assistant = Assistant(self.store)
        self._warm = threading.Lock()

    def warm_assistant(self) -> Assistant:
        """The assistant with its retriever and answerer built once, not by two first requests at a time."""
        with self._warm:
            _ = self.assistant.retriever, self.assistant.answerer
        return self.assistant

    @cached_property
    def topics(self) -> TopicService:
        """The topic pages' service (the bundled topics are synced into the catalog once, here)."""
        return TopicService(self.store)

    def close(self) -> None:
        self.store.close()


def app_state(request: Request) -> AppState:
    state: AppState = request.app.state.papertalk
    return state


def get_settings(request: Request) -> Settings:
    """The app's settings; tests replace them with `app.dependency_overrides[get_settings]`."""
    return app_state(request).settings


def get_store(request: Request) -> Store:
    return app_state(request).store


def get_assistant(request: Request) -> Assistant:
    return app_state(request).warm_assistant()


def get_topics(request: Request) -> TopicService:
    return app_state(request).topics


def api_key(settings: Settings) -> str | None:
    key = settings.api.key.get_secret_value() if settings.api.key else os.environ.get(KEY_ENV)
    return key or None


def require_key(request: Request, settings: Annotated[Settings, Depends(get_settings)]) -> None:
    """Write routes need the API key when one is configured (`Authorization: Bearer KEY` or `X-API-Key`)."""
    expected = api_key(settings)
    if expected is None:
        return
    given = request.headers.get("x-api-key") or ""
    auth = request.headers.get("authorization") or ""
    if auth.lower().startswith("bearer "):
        given = auth[7:].strip()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise Unauthorized("this route needs the API key: send it as `Authorization: Bearer KEY` or `X-API-Key: KEY`")


SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[Store, Depends(get_store)]
AssistantDep = Annotated[Assistant, Depends(get_assistant)]
TopicsDep = Annotated[TopicService, Depends(get_topics)]
WriteAccess = Depends(require_key)
