"""The llama.cpp build tag (trace_crs.lm.build): the two system-info lines are copied from this
machine's portable (GGML_NATIVE=OFF) and native (GGML_NATIVE=ON) builds of llama-cpp-python 0.3.36."""
from __future__ import annotations

from trace_crs.lm import backend, build
from trace_crs.lm.config import resolve_lm_config
from trace_crs.lm.weights import get_weights
from trace_crs.stats.cost import price_of

PORTABLE_INFO = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | LLAMAFILE = 1 | "
    "OPENMP = 1 | REPACK = 1 | "
)
NATIVE_INFO = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | AVX512 = 1 | "
    "AVX512_VBMI = 1 | AVX512_VNNI = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)


def test_features_are_the_flags_set_to_one():
    assert build.features("CPU : AVX = 1 | AVX2 = 0 | OPENMP = 1 | ") == ("AVX", "OPENMP")


def test_portable_build_has_no_tag_and_native_lists_its_extra_instruction_sets():
    assert build.build_tag(PORTABLE_INFO) == ""
    assert build.build_tag(NATIVE_INFO) == "+avx512-avx512_vbmi-avx512_vnni"
    assert build.build_tag("") == ""  # llama-cpp-python not installed


def test_native_build_gets_its_own_model_id_and_cache_key(monkeypatch):
    cfg = resolve_lm_config({})
    monkeypatch.setattr(build, "installed_system_info", lambda: PORTABLE_INFO)
    portable = backend.model_id(cfg)
    monkeypatch.setattr(build, "installed_system_info", lambda: NATIVE_INFO)
    native = backend.model_id(cfg)
    assert portable == get_weights(cfg.weights).model_id  # the portable build's id (and cache) unchanged
    assert native == portable + "+avx512-avx512_vbmi-avx512_vnni"
    assert backend.local_alias(cfg) == native.removeprefix("openai/")


def test_a_native_build_is_priced_as_the_local_model():
    prices = {"source": "prices.yaml", "models": {"local": {"input_per_mtok": 0.0, "output_per_mtok": 0.0}}}
    tagged = get_weights(resolve_lm_config({}).weights).model_id + build.build_tag(NATIVE_INFO)
    assert price_of(tagged, prices) == (0.0, 0.0)
