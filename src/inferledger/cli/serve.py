"""`inferledger serve`: a local web page over the library, with a small JSON API (see inferledger.web.api)."""

from __future__ import annotations

HELP = "serve a local web page: choose model, card, formats and workload; see the account and plots; diagnose logs"


def add_arguments(parser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")


def run(args) -> int:
    import ipaddress
    import sys

    from inferledger.errors import BadArgument
    from inferledger.web.server import make_server

    if not 0 <= args.port <= 65535:
        raise BadArgument(f"--port must be between 0 and 65535, got {args.port}")
    try:
        server = make_server(args.host, args.port, quiet=not args.verbose)
    except OSError as error:
        raise BadArgument(f"cannot listen on {args.host}:{args.port} ({error.strerror or error})") from None
    host, port = server.server_address[:2]
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        print(f"inferledger serve: warning: listening on {host}, not only this machine; the page has no login",
              file=sys.stderr)
    shown = f"[{host}]" if ":" in host else host
    print(f"inferledger serve: http://{shown}:{port}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0
