# Two entry points, each doing its own set-up in .venv:
#   make demo   train the plain LSTM on the built-in dates, translate, score, export, reload
#   make test   run the test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e . || $(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# The explorer page's browser test drives Debian's chromium through its driver (no browser is
# downloaded: only Debian's packages are reachable). Installed as root where apt-get exists (CI
# runs as root); elsewhere the note says how, and that test skips.
CHROMEDRIVER := /usr/bin/chromedriver
$(CHROMEDRIVER):
	@if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			chromium chromium-driver >/dev/null; \
	else \
		echo "note: no chromium-driver; as root: apt-get install chromium chromium-driver" \
			"(the explorer page's browser test skips without it)"; \
	fi

# The JavaScript client test runs npm's `libretranslate` under Debian's node (installed into a
# folder of the test's own). Installed as root where apt-get exists; elsewhere that test skips.
NPM := /usr/bin/npm
$(NPM):
	@if command -v npm >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			nodejs npm >/dev/null; \
	else \
		echo "note: no npm; as root: apt-get install nodejs npm" \
			"(the npm client's test skips without it)"; \
	fi

.PHONY: setup demo test lint
setup: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/keras-nmt demo

# The second run keeps the claim true that layers, models, decoding and losses run under JAX: the
# tests marked `jax` (tests/conftest.py): every layer and decoding test, the losses, and of the
# models the twin parity of each architecture, the Transformer's cached step and the recurrent
# parts (the subclassed twins' eager build and dropout training); the models' other tests are
# backend-neutral Keras and run under TensorFlow only, for time. (tests/benchmarks runs `keras-nmt
# benchmark --backend jax` in a JAX subprocess.)
# Less XLA optimization: compilation dominates these tiny tests (about half the CPU time). XLA's
# older loop emitters (`--xla_cpu_use_fusion_emitters=false`) compile each small program in about
# a third of the time of its fusion emitters (the JAX run's CPU time with and without them:
# docs/decisions.md).
JAX_XLA_FLAGS := --xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true \
	--xla_cpu_use_fusion_emitters=false
# Two pytest workers (pytest-xdist; a module's tests stay on one worker, so its fixtures are built
# once): one TensorFlow process leaves much of the second core idle (tracing, Python, subprocesses).
# Modules are handed out in the order tests/conftest.py gives them (those with slow tests first),
# not xdist's (most tests first), which left a one-test module of 80 s to the end of the run.
XDIST := -n 2 --dist loadscope --no-loadscope-reorder
# JAX's compilation cache, on disk for this run only (removed after): the twins, the twin-parity
# checks and the decoding tests build the same programs again and again from fresh objects, which
# JAX's in-memory cache (keyed by function object) misses; the on-disk one is keyed by the
# program itself and shared by both workers (its saving: docs/decisions.md). No size limit: a
# limit turns on a lock and a scan of the whole folder at every write (it cost more system time
# than the cache saved). An entry read while the other worker writes it is compiled again, with a
# warning (JAX's own handling).
JAX_CACHE := JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
test: $(STAMP) $(CHROMEDRIVER) $(NPM)
	$(PY) -m pytest -q -ra $(XDIST) --durations=15
	cache=$$(mktemp -d) && trap 'rm -rf "$$cache"' EXIT && \
		KERAS_BACKEND=jax XLA_FLAGS="$(JAX_XLA_FLAGS)" JAX_COMPILATION_CACHE_DIR="$$cache" $(JAX_CACHE) \
		$(PY) -m pytest -q -ra $(XDIST) -m "jax and not slow" --durations=10

lint: $(STAMP)
	$(VENV)/bin/ruff check keras_nmt apps tests
