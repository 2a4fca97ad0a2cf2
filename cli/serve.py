"""`papertalk serve`: the HTTP API (and what is built on it) under uvicorn."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.console import console


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs) over the data directory's papers."""
    import os

    import uvicorn

    from cli.main import get_settings

    settings = get_settings()  # a bad setting is one line now, not a traceback per worker
    os.environ["PAPERTALK_DATA_DIR"] = str(settings.data_dir)  # workers build their own settings: same store
    console.print(f"papertalk serving {settings.data_dir} at http://{host}:{port}/ (API docs at /docs)")
    uvicorn.run("api.app:create_app", factory=True, host=host, port=port, workers=workers, log_level="info")


def register_serve_command(app: typer.Typer) -> None:
    app.command()(serve)
