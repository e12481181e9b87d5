"""Re-export of :mod:`trace_crs.cache` (the one home of memo tables and the disk cache dir)."""
from trace_crs.cache import CACHE_ENV, MEMO_CAP, disk_cache_dir, kb_key, memo, memo_call  # noqa: F401
