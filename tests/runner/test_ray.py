"""The Ray executor (runner.ray_exec): identical records to the local executor on a 2-CPU local
cluster (skipped where Ray is not installed); without Ray, --executor ray is a usage error."""
from __future__ import annotations

import importlib.util

import pyarrow.parquet as pq
import pytest
from runhelpers import llm_config

from trace_crs.cli import main
from trace_crs.lm.fake_server import serve
from trace_crs.runner.llm_pool import endpoint_configs
from trace_crs.runner.run import RunConfig, evaluate

HAS_RAY = importlib.util.find_spec("ray") is not None


def records(out):
    return pq.read_table(out / "records.parquet").drop(["latency_s"])


def test_several_api_bases_are_dealt_round_robin():
    lm = {"model": "openai/x", "api_base": "http://127.0.0.1:1/v1, http://127.0.0.1:2/v1"}
    assert [c["api_base"] for c in endpoint_configs(lm, 3)] == \
           ["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1", "http://127.0.0.1:1/v1"]
    assert endpoint_configs({"model": "local"}, 2) == [{"model": "local"}] * 2


def test_a_ray_actor_shard_writes_the_local_executors_chunks(corpus, llm_env, tmp_path):
    """The actor class itself, without Ray: two shards written by two runners equal a local run."""
    from trace_crs.runner.ray_exec import ShardRunner
    from trace_crs.runner.run import _pending, resolved_config

    names = "popularity,tfidf,mrs"
    with serve() as server:
        cfg = llm_config(corpus, server.api_base, tmp_path / "lm0", baselines=names, chunk_size=2)
        evaluate(cfg, tmp_path / "local", workers=1, progress=False)
        resolved = resolved_config(cfg)
        evaluate(cfg, tmp_path / "shards", workers=1, progress=False)
        for p in (tmp_path / "shards" / "records").glob("*/*"):
            p.unlink()
        todo = _pending(tmp_path / "shards", resolved["baselines"], 6)
        for i in range(2):
            runner = ShardRunner(cfg, resolved["baselines"], resolved["lm"], 4)
            assert runner.run({k: todo[k] for k in sorted(todo)[i::2]}) == 9
            runner.close()
        assert len(list((tmp_path / "shards" / "records").glob("*/*.parquet"))) == 18    # 6 chunks × 3
        evaluate(cfg, tmp_path / "shards", workers=1, progress=False)       # nothing pending: consolidates
    assert records(tmp_path / "shards").equals(records(tmp_path / "local"))


@pytest.mark.skipif(HAS_RAY, reason="Ray is installed")
def test_executor_ray_without_ray_is_a_usage_error(inputs, tmp_path, capsys):
    code = main(["evaluate", "--kb", inputs[0], "--dialogues", inputs[1], "--baselines", "popularity",
                 "--executor", "ray", "--quiet", "--out", str(tmp_path / "run")])
    assert code == 2 and "Ray is not installed" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match="executor"):
        RunConfig(executor="dask")


@pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed")
def test_ray_executor_matches_the_local_executor(corpus, llm_env, tmp_path):
    import ray

    names = "popularity,tfidf,mrs,llm_zero_shot"
    with serve() as server:
        local = llm_config(corpus, server.api_base, tmp_path / "lm0", baselines=names, chunk_size=2)
        evaluate(local, tmp_path / "local", workers=1, progress=False)
        on_ray = llm_config(corpus, server.api_base, tmp_path / "lm1", baselines=names, chunk_size=2, executor="ray")
        try:
            ray.init(num_cpus=2, include_dashboard=False)
            evaluate(on_ray, tmp_path / "ray", workers=2, progress=False)
        finally:
            ray.shutdown()
    assert records(tmp_path / "ray").equals(records(tmp_path / "local"))
