"""inferledger: the ledger of an LLM inference request.

Library first: `inferledger.model`, `inferledger.operators`, `inferledger.ledger` return plain dataclasses;
the `inferledger` command line is a thin layer over them.
"""

__version__ = "0.1.0"
