"""``chaodipi serve``: run the game server under uvicorn."""

from __future__ import annotations

import logging
import socket

from chaodipi.server.config import ServerConfig
from chaodipi.server.protocol import MAX_MESSAGE_BYTES

__all__ = ["default_owner", "serve"]


def default_owner(port: int) -> str:
    """This process's name in the database: host and port, so a restarted server takes its own tables back at once."""
    return f"{socket.gethostname()[:48]}:{port}"


def serve(host: str, port: int, url: str, config: ServerConfig) -> None:
    """Serve the lobby and the tables at ``http://host:port`` on the database at ``url`` until stopped."""
    import uvicorn

    from chaodipi.server.app import create_app

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    shown = "localhost" if host in ("0.0.0.0", "::") else f"[{host}]" if ":" in host else host

    def ready() -> None:
        print(f"chaodipi: play in your browser at http://{shown}:{port}  (database {url}; Ctrl+C stops)", flush=True)

    app = create_app(url, config, on_ready=ready)
    uvicorn.run(
        app,
        host=host,
        port=port,
        ws_max_size=MAX_MESSAGE_BYTES * 4,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        log_level="info",
        access_log=False,
    )
