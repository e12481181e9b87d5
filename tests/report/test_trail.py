"""From the Table 5 page a reader reaches the metric functions in at most five files, each file
naming the next (the results reader names its writer and the metric registry)."""
import inspect

from trace_crs.metrics import grounding, recommendation
from trace_crs.metrics import registry as metric_registry
from trace_crs.report import results, t05_headline

# notebooks/t05_headline.py -> report.t05_headline -> report.results -> metrics.registry ->
# metrics.recommendation / metrics.grounding: five files.
TRAIL = [  # (module, what its docstring must name next)
    (t05_headline, ["trace_crs.report.results"]),
    (results, ["trace_crs.cli.score", "trace_crs.metrics.registry", "recall_at_k", "grounding.composite"]),
    (metric_registry, ["trace_crs.metrics.recommendation.recall_at_k", "trace_crs.metrics.grounding.composite"]),
]


def test_each_file_names_the_next():
    for module, names in TRAIL:
        doc = inspect.getdoc(module) or ""
        flat = " ".join(doc.split())
        assert all(n in flat for n in names), (module.__name__, [n for n in names if n not in flat])


def test_registry_entries_call_those_functions():
    """The registry's R@1 and CGS entries are wired to the functions the trail ends at."""
    assert "rec.recall_at_k" in inspect.getsource(metric_registry.METRICS["recall@1"].fn)
    assert "gr.composite" in inspect.getsource(metric_registry.METRICS["cgs"].fn)
    assert metric_registry.rec is recommendation and metric_registry.gr is grounding
    assert t05_headline.COLUMNS["R@1"] == "recall@1" and t05_headline.COLUMNS["CGS"] == "cgs"
