"""Trace: accountable evaluation of tourism conversational recommenders."""
__version__ = "0.1.0"
DEFAULT_SEED = 42
