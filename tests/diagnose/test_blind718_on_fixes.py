"""Blind rounds 718 on: the general fixes of the thirty-third session. Expected figures are worked out here."""

from __future__ import annotations

from blind_helpers import diagnosed

# An SGLang server log whose reader counts all three failures failures.py also reads (the KV pool's figures, a
# refused prompt, the scheduler's OOM), then the client's own timeout pasted below it.
_SGLANG_FAILURES_THEN_CLIENT_TIMEOUT = """\
[2025-05-01 10:00:01 TP0] KV Cache is allocated. #tokens: 100000, K size: 6.10 GB, V size: 6.10 GB
[2025-05-01 10:00:02 TP0] max_total_num_tokens=100000, chunked_prefill_size=8192, max_prefill_tokens=16384, \
max_running_requests=2048, context_len=131072
[2025-05-01 10:00:10 TP0] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.08, \
#running-req: 0, #queue-req: 0
[2025-05-01 10:00:20 TP0] Input length (120000 tokens) exceeds the maximum allowed length (100000 tokens). Use a \
shorter input or enable --allow-auto-truncate.
[2025-05-01 10:00:30 TP0] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory. Tried to \
allocate 2.00 GiB.
requests.exceptions.ReadTimeout: HTTPConnectionPool(host='localhost', port=30000): Read timed out. (read timeout=600)
"""


def test_a_client_timeout_is_read_where_the_reader_counted_every_engine_failure(tmp_path):
    diagnosis = diagnosed(tmp_path, _SGLANG_FAILURES_THEN_CLIENT_TIMEOUT, "sglang_server.log")
    # one refused prompt (120,000 tokens over the pool's 100,000) and one OOM, each counted once by the reader
    assert diagnosis.events == {"too_long_rejections": 1.0, "oom": 1.0, "client_read_timeouts": 1.0}
    assert any("stopped waiting for at its read timeout" in note for note in diagnosis.notes)
