"""The Trace dialogue corpus (paper §2.2, Appendices C, G, H, I, S): schema, personas,
candidate pools, the simulated and the LLM generator, validation, splits and release."""

from trace_crs.dialogues.schema import DialogueFormatError, iter_dialogues, load_dialogues

__all__ = ["DialogueFormatError", "iter_dialogues", "load_dialogues"]
