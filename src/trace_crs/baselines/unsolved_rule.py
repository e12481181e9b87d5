"""TravelBench's ``[Unsolved]`` rule, stated to every LLM baseline (seed 003, App. "Prompts",
Fig. 14: the infeasible-query prompt is the single-turn assistant prompt "with an explicit rule
specifying when to output [Unsolved]").

The seed text describes Fig. 14 but does not reproduce its wording, so the rule below is ours,
written to cover the reasons of Trace's unsolvable set (:mod:`trace_crs.dialogues.unsolvable`)
without naming any item: contradictory or over-tight requests, places or cities the candidates do
not cover, requests needing live data or a booking, and requests missing key context.  It is
appended to the action instruction as one separate, marked sentence
(:func:`trace_crs.baselines.llm_common.instruction`), so the baselines' signatures and field
order are unchanged.  ``[Unsolved]`` replies are parsed as abstentions
(:class:`trace_crs.baselines.llm_common.Unsolved`).
"""

from __future__ import annotations

UNSOLVED_RULE = (
    "Rule [Unsolved]: if the request cannot be solved with the candidate places and their facts — it contradicts "
    "itself, no candidate can meet all of it, it is about a city or kind of place the candidates do not cover, it "
    "needs live information or a booking (opening right now, availability, tonight's price), or it lacks key "
    "context such as the city or the kind of place — do not recommend: answer [Unsolved] (as the ranking and at "
    "the start of the reply) followed by one sentence saying why."
)
