"""The 14 Trace baselines + Itinerary-LLM (paper §4, Appendix A Table 8, Appendix F)."""
