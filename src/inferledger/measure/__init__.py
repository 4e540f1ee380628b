"""Measuring the machine at hand: its ceilings (ceilings.py), a real NumPy decode loop (decode.py), and the
ledger's floor and realistic estimate set beside them (bench.py, realistic_cpu.py)."""
