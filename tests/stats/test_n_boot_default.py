"""One home for the number of bootstrap resamples: ``stats.bootstrap.N_BOOT`` (Appendix L).

Every command that bootstraps takes its ``--n-boot`` default from it, and so do the interval
functions; 1000 is the value every table so far was computed with (a change would move them)."""

import inspect

import pytest

from trace_crs.cli import build_parser
from trace_crs.human.study import analyse
from trace_crs.report.compare import derived_intervals
from trace_crs.stats.bootstrap import N_BOOT, bootstrap_indices, bootstrap_pairs
from trace_crs.stats.intervals import cluster_mean_ci


def test_n_boot_is_the_tables_value():
    assert N_BOOT == 1000


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "bootstrap", "--scores", "s", "--out", "o.csv"],
        ["human", "agree", "--labels", "l.jsonl", "--out", "d"],
    ],
)
def test_cli_default_is_n_boot(argv):
    assert build_parser().parse_args(argv).n_boot == N_BOOT


@pytest.mark.parametrize("func", [bootstrap_indices, bootstrap_pairs, cluster_mean_ci, derived_intervals, analyse])
def test_function_default_is_n_boot(func):
    assert inspect.signature(func).parameters["n_boot"].default == N_BOOT
