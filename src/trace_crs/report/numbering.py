"""The one list of the paper's numbered tables and figures and the book page that shows each.

Every page title or section heading that names a paper artefact ("Table 5", "Figure 2") must
name it as this list does, on the page this list gives; every artefact of the list has such a
heading (``tests/report/test_numbering.py``).  Numbers follow the paper (seed 000): Tables 1–29
and Figures 1, 2, 3 and 6.  Where the text extraction lost a caption the number is the one the
paper's order implies, said in ``note`` (Tables 11–13 of Appendix K, Table 26 of Appendix R,
Figure 3 of Appendix C).  Figures 4 and 5 are not named anywhere in the extracted text and have
no entry; the annotation-tool screenshots on the human-evaluation page carry no number.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Artefact:
    """One numbered table or figure of the paper: where it is in the paper and in the book."""

    kind: str  # "Table" or "Figure"
    number: int
    title: str
    section: str  # where the paper prints it
    page: str  # notebooks/<page>.py (book/content/<page>)
    note: str = ""
    also: tuple[str, ...] = ()  # other pages that show it again (e.g. with another judge)

    @property
    def name(self) -> str:
        """``Table 5``, ``Figure 2``: how a heading names it."""
        return f"{self.kind} {self.number}"


_HUMAN = "human_eval"
_K = "number not printed in the extraction; the paper's order of App. K implies it"
ARTEFACTS: tuple[Artefact, ...] = (
    Artefact("Table", 1, "Benchmark comparison", "§1", "t01_benchmarks"),
    Artefact("Table", 2, "Gap, mechanism and metric", "§2", "t02_gap_map"),
    Artefact("Table", 3, "Dataset statistics", "§2.1", "t03_dataset"),
    Artefact("Table", 4, "Release and access factors", "§2.2", "t04_release"),
    Artefact("Table", 5, "Closed-set headline", "§6", "t05_headline"),
    Artefact("Table", 6, "Per-axis stressors", "§6", "t06_per_axis"),
    Artefact("Table", 7, "Metric catalogue", "App. A", "t07_metrics"),
    Artefact("Table", 8, "Baseline catalogue", "App. A", "t08_baselines"),
    Artefact("Table", 9, "Practical value", "App. E", "t09_practical"),
    Artefact("Table", 10, "Likert means and majority-vote citation check", "App. K.2", _HUMAN),
    Artefact("Table", 11, "Annotator heterogeneity", "App. K.2", _HUMAN, _K),
    Artefact("Table", 12, "Leave-one-out α", "App. K.2", _HUMAN, _K),
    Artefact("Table", 13, "Leave-pair-out α", "App. K.2", _HUMAN, _K),
    Artefact("Table", 14, "Metric–human correlation", "App. K.3", _HUMAN),
    Artefact("Table", 15, "Per-dialogue paired t-tests", "App. K.3", _HUMAN),
    Artefact("Table", 16, "Fuzzy matching threshold", "App. L", "t16_fuzzy_threshold"),
    Artefact("Table", 17, "Entailment vs fuzzy grounding", "App. L", "t17_entailment_vs_fuzzy"),
    Artefact("Table", 18, "Spatial coherence threshold", "App. L", "t18_spatial_threshold"),
    Artefact("Table", 19, "Anti-gaming: citation density vs grounding", "App. L", "t19_antigaming"),
    Artefact("Table", 20, "Per-turn standard deviations", "App. L", "t20_spreads"),
    Artefact("Table", 21, "Paired cluster bootstrap", "App. L", "t21_bootstrap"),
    Artefact("Table", 22, "CGS vs entailment-gated CGS", "App. L", "t22_cgs_variants"),
    Artefact("Table", 23, "Difficulty tiers", "App. M", "t23_difficulty"),
    Artefact("Table", 24, "Candidate pool size", "App. P", "t24_pool_size"),
    Artefact("Table", 25, "Open set and prefilter ablation", "App. Q", "t25_open_set"),
    Artefact(
        "Table",
        26,
        "Official test split",
        "App. R",
        "t26_test_split",
        "number not printed; the paper's order implies it",
    ),
    Artefact("Table", 27, "Multi-reference recall", "App. S", "t27_multi_reference"),
    Artefact("Table", 28, "Cross-judge agreement", "App. T", "t28_cross_judge", also=("core_judge",)),
    Artefact("Table", 29, "LLM-as-judge", "App. U", "t29_judge"),
    Artefact("Figure", 1, "Overview: four gaps and three competencies", "§1", "f01_overview"),
    Artefact("Figure", 2, "The Three-Competency Gap", "§6", "f02_gap"),
    Artefact(
        "Figure",
        3,
        "Dialogue generation pipeline",
        "App. C",
        "f03_pipeline",
        "App. C's diagram has no caption in the extraction; the paper's order implies Figure 3",
    ),
    Artefact("Figure", 6, "Error analysis", "App. O", "f06_error_analysis"),
)
BY_NAME: dict[str, Artefact] = {a.name: a for a in ARTEFACTS}


def of_page(page: str) -> tuple[Artefact, ...]:
    """The artefacts page ``page`` shows (as their page or again), in list order."""
    return tuple(a for a in ARTEFACTS if page == a.page or page in a.also)


def label(name: str) -> str:
    """``Table 7 (App. A)``: the artefact as the book cites it (KeyError outside the list)."""
    art = BY_NAME[name]
    return f"{art.name} ({art.section})"
