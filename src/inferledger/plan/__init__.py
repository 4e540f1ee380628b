"""Which card: a closed-form sweep of cards × precisions × batch limits, ranked by dollars per million output
tokens under an SLO (sweep.py), with a $/GPU-hour table the user can override (prices.py)."""

from inferledger.plan.prices import Price, load_prices
from inferledger.plan.sweep import DEFAULT_BATCH_LIMITS, DEFAULT_PRECISIONS, Plan, Shape, plan, steady_state

__all__ = ["DEFAULT_BATCH_LIMITS", "DEFAULT_PRECISIONS", "Plan", "Price", "Shape", "load_prices", "plan",
           "steady_state"]
