"""Fill brief.md in for one collector: brief.py N 'family sentence' -> /work/briefs/roundN.md (and gpus.txt)."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

import blind

OUT = Path("/work/briefs")
OUT.mkdir(exist_ok=True)
catalogue = json.loads((blind.ROOT / "src/inferledger/hardware/accelerators.json").read_text())["accelerators"]
(OUT / "gpus.txt").write_text("\n".join(f"{card['name']}  ({card['display_name']})" for card in catalogue) + "\n")
number, family = sys.argv[1], sys.argv[2]
text = (Path(__file__).with_name("brief.md").read_text()
        .replace("{N}", number).replace("{FAMILY}", family).replace("{DATE}", str(datetime.date.today())))
(OUT / f"round{number}.md").write_text(text)
print(OUT / f"round{number}.md")
