"""Knowledge base of POIs and reviews (paper §2.1, Appendix D)."""

from trace_crs.kb.schema import POI, POI_TYPES, REVIEW_MAX_CHARS, KBFormatError, Review
from trace_crs.kb.store import KB, load_kb

__all__ = ["KB", "POI", "POI_TYPES", "REVIEW_MAX_CHARS", "KBFormatError", "Review", "load_kb"]
