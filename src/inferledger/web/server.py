"""`inferledger serve`: the page and its JSON API (web/api.py) on the standard library's ThreadingHTTPServer.

Loopback by default. The server reads a body only after checking its declared length against the limit, refuses
anything it does not route, and answers every failure with JSON; a failing request never stops the server.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from inferledger.web import api, static_text

JSON_POSTS = {"api/request": api.post_request, "api/charts": api.post_charts, "api/report": api.post_report}
POST_PATHS = (*JSON_POSTS, "api/diagnose")
STATIC = {"static/style.css": "text/css", "static/charts.js": "text/javascript",
          "static/app.js": "text/javascript", "index.html": "text/html"}
READ_TIMEOUT_SECONDS = 30  # a client that stops sending mid-body is dropped


class Handler(BaseHTTPRequestHandler):
    server_version = "inferledger"
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT_SECONDS
    quiet = True
    body_read = False  # set per request once the body is consumed

    def log_message(self, format, *args):  # noqa: A002 (the standard library's name)
        if not self.quiet:
            super().log_message(format, *args)

    def _send(self, status: int, text: str, content_type: str = "application/json") -> None:
        body = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        if self.close_connection:
            self.send_header("Connection", "close")
        try:
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        except (ConnectionError, TimeoutError):  # the client left before its answer: nothing to do
            self.close_connection = True

    def _fail(self, status: int, message: str) -> None:
        if self.command not in ("GET", "HEAD") and not self.body_read:
            self.close_connection = True  # an unread body would be taken for the next request
        self._send(status, api.error_text(message))

    def _body(self, limit: int) -> bytes:
        length = self.headers.get("Content-Length")
        if length is None:
            raise api.ApiError(411, "send a Content-Length header with the body")
        if not length.isdigit():
            raise api.ApiError(400, f"Content-Length {length[:30]!r} is not a byte count")
        if int(length) > limit:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            raise api.ApiError(413, f"the body is {int(length):,} bytes; the limit is {limit:,}")
        body = self.rfile.read(int(length))
        self.body_read = True
        if len(body) < int(length):  # the client hung up mid-body: nobody is left to answer
            raise ConnectionAbortedError("the client closed the connection before sending its body")
        return body

    def _route(self, method: str):
        from inferledger.errors import InferledgerError

        self.body_read = False
        url = urlsplit(self.path)
        path = url.path.lstrip("/") or "index.html"
        try:
            if method == "GET" and path in STATIC:
                return self._send(200, static_text(path), STATIC[path])
            if method == "GET" and path in GET_ROUTES:
                return self._send(200, GET_ROUTES[path]())
            if method == "POST" and path in JSON_POSTS:
                answer = JSON_POSTS[path](self._body(api.MAX_JSON_BYTES))
                return self._send(200, answer, "text/html" if path == "api/report" else "application/json")
            if method == "POST" and path == "api/diagnose":
                query = {key: values[-1] for key, values in parse_qs(url.query).items()}
                return self._send(200, api.post_diagnose(self._body(api.MAX_LOG_BYTES), query))
            if path in STATIC or path in GET_ROUTES or path in POST_PATHS:
                return self._fail(405, f"{method} is not allowed on /{path}")
            return self._fail(404, f"no such page: /{path[:100]}")
        except api.ApiError as error:
            return self._fail(error.status, str(error))
        except InferledgerError as error:
            return self._fail(400, str(error))
        except RecursionError:
            return self._fail(400, "the input is nested too deeply to read")
        except (ConnectionError, TimeoutError):  # a client that left or stalled past the read timeout
            self.close_connection = True
        except Exception as error:  # a bug must not stop the server: answer 500 and keep serving
            self.log_error("internal error on /%s: %r", path, error)
            return self._fail(500, f"internal error ({error.__class__.__name__}); please report it")

    def do_GET(self):  # noqa: N802 (http.server's names)
        self._route("GET")

    def do_HEAD(self):  # noqa: N802
        self._route("GET")

    def do_POST(self):  # noqa: N802
        self._route("POST")

    def do_PUT(self):  # noqa: N802
        self.body_read = False
        self._fail(405, "only GET and POST are served")

    do_DELETE = do_PATCH = do_PUT


GET_ROUTES = {"api/models": api.get_models, "api/gpus": api.get_gpus, "api/formats": api.get_formats}


def make_server(host: str = "127.0.0.1", port: int = 8000, quiet: bool = True) -> ThreadingHTTPServer:
    """A server bound to host:port (port 0: any free one; server.server_address says which). Call
    serve_forever() to run it and shutdown() from another thread to stop it."""
    handler = type("QuietHandler" if quiet else "LoudHandler", (Handler,), {"quiet": quiet})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def api_index() -> str:
    """What GET /api answers: the routes, for a person exploring with curl."""
    return json.dumps({"GET": ["/api/models", "/api/gpus", "/api/formats"],
                       "POST": {"/api/request": "request options as JSON → request --json",
                                "/api/charts": "the same options → chart specs",
                                "/api/report": "the same options → the HTML report",
                                "/api/diagnose": "a log as the body → diagnose --json"},
                       "fields": list(api.FIELDS)}, indent=2) + "\n"


GET_ROUTES["api"] = api_index
