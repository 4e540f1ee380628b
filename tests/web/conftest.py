"""A live `inferledger serve` on a free loopback port for the module's tests, stopped at the end."""

import threading

import pytest


@pytest.fixture(scope="module")
def server_url():
    from inferledger.web.server import make_server

    server = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)
