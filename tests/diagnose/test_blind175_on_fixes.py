"""Blind rounds 175 on: the general fixes of the fourteenth session. Expected figures are worked out here."""

from __future__ import annotations

from inferledger.diagnose import diagnose_files
from inferledger.diagnose.read import read_records

from blind_helpers import write

# A disaggregated deployment's prefill server (SGLang with Mooncake, sglang#11648): its Prefill batch lines carry
# `#unbootstrapped-req` and `#transferring-req` and no `#running-req`, since it decodes nothing.
PD_PREFILL = """\
[2025-10-15 14:44:33 DP8 TP8 EP8] Prefill batch. #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.01, \
#unbootstrapped-req: 0, #queue-req: 0, #transferring-req: 0, input throughput (token/s): 1258.57, 
[2025-10-15 14:44:33 DP13 TP13 EP13] Prefill batch. #new-seq: 2, #new-token: 512, #cached-token: 0, token usage: \
0.01, #unbootstrapped-req: 0, #queue-req: 3, #transferring-req: 1, input throughput (token/s): 1257.48, 
"""


def test_a_disaggregated_prefill_servers_batch_lines_are_read(tmp_path):
    records = read_records(write(tmp_path, PD_PREFILL))
    assert [record.source for record in records] == ["sglang.prefill", "sglang.prefill"]
    second = records[1].metrics
    # the line's own fields: 2 new sequences (all the server runs), 3 queued, 1 sending its KV cache, 1257.48 tok/s
    assert second["running_requests"] == 2.0
    assert second["waiting_requests"] == 3.0
    assert second["transferring_requests"] == 1.0
    assert second["prompt_tokens_per_second"] == 1257.48
    assert diagnose_files([write(tmp_path, PD_PREFILL)]).verdict == "insufficient-data"  # no stream's speed in it
