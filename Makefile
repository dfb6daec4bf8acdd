# xds — build, demo, test, benchmark and fuzz.
# `make demo` and `make test` install what is missing (Debian: apt-get as root, else the
# exact command is printed; macOS: brew), so a fresh machine needs nothing by hand.

SWIFT      ?= swift
CONFIG     ?= release
BUILD_DIR  := .build
XDS        := $(BUILD_DIR)/$(CONFIG)/xds
UNAME      := $(shell uname -s)

# Debian packages: what building and testing need, then what benchmarks add.
APT_BUILD  := libplist-dev libplist-utils zlib1g-dev libdeflate-dev attr pngcheck python3 pkg-config
APT_BENCH  := imagemagick libvips-tools librsvg2-bin hyperfine python3-pip time
BREW_BUILD := libplist libdeflate zlib pkg-config
# Linux release builds link the Swift runtime statically: no dynamic linking of libswiftCore and
# Foundation at every start, a few ms of each `xds mask` (Benchmarks/RESULTS.md).
RELEASE_FLAGS ?= $(if $(filter Linux,$(UNAME)),--static-swift-stdlib,)

.PHONY: all build setup setup-bench demo test bench fuzz-plist fuzz-png clean

all: build

# Installs the system packages that are missing; idempotent and quiet when all are there.
setup:
	@sh scripts/setup.sh build $(APT_BUILD) -- $(BREW_BUILD)

setup-bench: setup
	@sh scripts/setup.sh bench $(APT_BENCH) --
	@python3 -c 'import PIL, numpy' 2>/dev/null || python3 -m pip install --quiet pillow numpy

build: setup
	$(SWIFT) build -c $(CONFIG) $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS),) --product xds

demo: build
	@sh scripts/demo.sh $(XDS)

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel

bench: setup-bench
	$(SWIFT) build -c release $(RELEASE_FLAGS) --product xds
	$(SWIFT) build -c release $(RELEASE_FLAGS) --product xds-bench
	@sh Benchmarks/run.sh

clean:
	rm -rf $(BUILD_DIR) Fuzz/bin

# libFuzzer targets: make fuzz-plist FUZZ_SECONDS=600 (see Fuzz/README.md).
FUZZ_SECONDS ?= 60
fuzz-plist fuzz-png: setup
	sh Fuzz/run.sh $(@:fuzz-%=%) $(FUZZ_SECONDS)
