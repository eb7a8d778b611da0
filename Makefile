# Entry points: `make demo` runs the matmul and ResNet-18 examples and ResNet-18's latency on
# every target (bench_targets, a few runs each), `make test` builds and runs
# every test (release, sanitizers, install). Both install missing packages first.
.PHONY: all deps configure build test demo bench bench-web asan install-check fuzz fuzz-build check-models clean

RELEASE := build/release
ASAN    := build/asan
# Parallel build and test jobs (the presets name none).
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
BENCH_ARGS ?=

# Sanitizer runs cover the unit, error and mutation tests (the correctness tests are long).
ASAN_FOLDERS := $(foreach d,unit error mutation,$(if $(wildcard test/$(d)/*.cpp),$(d)))
ASAN_TARGETS := $(foreach d,$(ASAN_FOLDERS),tensorir_$(d)_tests)
ASAN_LABELS  := ^($(subst $() ,|,$(strip $(ASAN_FOLDERS))))$$

all: build

deps:
	@scripts/install-deps.sh

# Configure again whenever build.ninja is missing: a configure that failed leaves a
# CMakeCache.txt behind but no build.ninja. Once it exists, ninja re-runs CMake itself.
configure: deps
	@test -f $(RELEASE)/build.ninja || cmake --preset release

build: configure
	cmake --build --preset release -j $(JOBS)

test: build
	ctest --preset release --output-on-failure -j$(JOBS)
	@if [ -f $(RELEASE)/mutation-reports/web.txt ]; then cat $(RELEASE)/mutation-reports/web.txt; fi
	$(MAKE) --no-print-directory asan
	$(MAKE) --no-print-directory install-check
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10

demo: build
	./$(RELEASE)/examples/matmul
	./$(RELEASE)/examples/resnet18
	./$(RELEASE)/bench/bench_targets --quick

# OpenBLAS 0.3.21 does not know this CPU family and falls back to a generic
# kernel; on AVX-512 machines point it at the SkylakeX kernels for benchmarks only.
bench: build
	@set -e; \
	if grep -q avx512f /proc/cpuinfo 2>/dev/null; then \
	  export OPENBLAS_CORETYPE=SkylakeX; unset OPENBLAS_L2_SIZE; \
	fi; \
	for b in $(RELEASE)/bench/*; do \
	  if [ -f "$$b" ] && [ -x "$$b" ]; then echo "== $$b"; "$$b" $(BENCH_ARGS); fi; \
	done

# ResNet-18 in headless Chromium: tensorir's web package next to TensorFlow.js and ONNX
# Runtime Web (bench/web/README.md); installs its npm packages on first use.
BENCH_WEB_ARGS ?=
bench-web: build
	node bench/web/run_bench.mjs $(BENCH_WEB_ARGS)

asan: deps
	@test -f $(ASAN)/build.ninja || cmake --preset asan
ifneq ($(ASAN_TARGETS),)
	cmake --build --preset asan -j $(JOBS) --target $(ASAN_TARGETS)
	ctest --preset asan --output-on-failure -j$(JOBS) -L '$(ASAN_LABELS)'
	@cat $(ASAN)/test/mutation-reports/*.txt
else
	@echo "asan: no unit or error tests yet"
endif

# libFuzzer targets (fuzz/) for the .npy reader and the saved-model loader, built with
# clang 19; each runs FUZZ_SECONDS (make test runs them briefly). Findings: build/fuzz/crashes.
FUZZ         := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= npy saved_model onnx_import
# ONNX's backend test models seed the importer's target.
ONNX_SEEDS   = $(wildcard $(addsuffix /model.onnx,$(addprefix /usr/share/libonnx-testdata/data/node/,\
  test_conv_with_strides_padding test_gemm_default_matrix_bias test_reshape_reordered_all_dims \
  test_slice test_concat_2d_axis_0 test_resize_downsample_scales_linear test_reduce_mean_keepdims_example \
  test_layer_normalization_4d_axis1 test_gather_0 test_split_equal_parts_1d test_maxpool_2d_pads \
  test_batchnorm_example test_softmax_axis_1 test_transpose_all_permutations_0 test_where_example)))

fuzz-build: build
	@command -v clang++-19 >/dev/null || { echo "make fuzz needs clang++-19 and libclang-rt-19-dev: run scripts/install-deps.sh" >&2; exit 1; }
	@cmake -S fuzz -B $(FUZZ) -G Ninja -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTENSORIR_BUILD_DIR=$(abspath $(RELEASE)) >/dev/null
	cmake --build $(FUZZ) -j $(JOBS)
	./$(RELEASE)/test/tensorir_fuzz_seeds $(FUZZ)/seeds
	@mkdir -p $(FUZZ)/seeds/onnx_import
	@for m in $(ONNX_SEEDS); do cp $$m $(FUZZ)/seeds/onnx_import/$$(basename $$(dirname $$m)).onnx; done

fuzz: fuzz-build
	scripts/fuzz.sh $(FUZZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Real networks exported from PyTorch (scripts/export_models.py, into MODELS_DIR) imported
# and run on "llvm" (and MODELS_TARGETS, separated by spaces or commas), each compared with
# PyTorch and ONNX Runtime. The native targets run in tensorir_onnx_tests; "wasm" and "webgl"
# are compiled into web packages and run under Node and in headless Chromium
# (test/web/real_models_test.mjs). Installs PyTorch and onnxruntime-node first
# (bench/install-peers.sh).
MODELS_DIR     ?= $(RELEASE)/models
MODELS         ?= resnet18,resnet50,mobilenet_v2,squeezenet1_1,efficientnet_b0,vit_b_16,lraspp_mobilenet_v3_large,bert,gpt
MODELS_OPSETS  ?= 13,17
MODELS_TARGETS ?=
comma := ,
MODELS_WEB     := $(filter wasm webgl,$(subst $(comma), ,$(MODELS_TARGETS)))
MODELS_NATIVE  := $(subst $() ,$(comma),$(strip $(filter-out llvm wasm webgl,$(subst $(comma), ,$(MODELS_TARGETS)))))
check-models: build
	bench/install-peers.sh
	/usr/bin/python3 scripts/export_models.py --out $(MODELS_DIR) --models $(MODELS) --opsets $(MODELS_OPSETS)
	NODE_PATH=bench/peers/node_modules node bench/peers/onnxruntime_run.cjs $(MODELS_DIR)
	TENSORIR_MODELS_DIR=$(abspath $(MODELS_DIR)) TENSORIR_MODELS_TARGETS=$(MODELS_NATIVE) \
	  ./$(RELEASE)/test/tensorir_onnx_tests "[.models]"
	$(if $(MODELS_WEB),node test/web/real_models_test.mjs $(MODELS_DIR) --tensorir $(RELEASE)/tensorir \
	  --targets $(subst $() ,$(comma),$(MODELS_WEB)))

install-check: build
	scripts/install-check.sh $(RELEASE)

clean:
	rm -rf build
