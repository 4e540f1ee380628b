"""Accelerator catalog: bundled datasheet figures (accelerators.json, with sources) and user-supplied parts."""

from inferledger.hardware.catalog import DTYPES, Accelerator, canonical_dtype, load_catalog, load_file
from inferledger.hardware.lookup import find_accelerator

__all__ = ["DTYPES", "Accelerator", "canonical_dtype", "find_accelerator", "load_catalog", "load_file"]
