# xds — build, demo, test, benchmark and fuzz.
# `make demo` and `make test` install what is missing (Debian: apt-get as root, else the
# exact command is printed; macOS: brew), so a fresh machine needs nothing by hand.

SWIFT      ?= swift
CONFIG     ?= release
BUILD_DIR  := .build
XDS        := $(BUILD_DIR)/$(CONFIG)/xds
UNAME      := $(shell uname -s)
# Linux: link the Swift runtime statically; loading its shared libraries is most of xds's start-up
# time (`xds show FILE` takes about half as long).
ifeq ($(UNAME),Linux)
RELEASE_FLAGS ?= --static-swift-stdlib
endif

# Debian packages: what building and testing need (samba and smbclient: the test against a real
# smbd with streams_xattr), then what benchmarks add.
APT_BUILD  := libplist-dev libplist-utils zlib1g-dev libdeflate-dev attr pngcheck python3 python3-pip pkg-config openssl libarchive-dev libarchive-tools tar samba smbclient
APT_BENCH  := imagemagick libvips-tools librsvg2-bin hyperfine time curl
BREW_BUILD := libplist libdeflate zlib pkg-config libarchive

.PHONY: all build setup setup-test setup-bench demo test bench fuzz-plist fuzz-png fuzz-appledouble fuzz-icns fuzz-archive clean

all: build

# Installs the system packages that are missing; idempotent and quiet when all are there.
setup:
	@sh scripts/setup.sh build $(APT_BUILD) -- $(BREW_BUILD)

# Tests also use Pillow and numpy (an independent PNG decoder, the float reference mask).
setup-test: setup
	@python3 -c 'import PIL, numpy' 2>/dev/null || python3 -m pip install --quiet pillow numpy || \
	  python3 -m pip install --quiet --break-system-packages pillow numpy

setup-bench: setup-test
	@sh scripts/setup.sh bench $(APT_BENCH) --

build: setup
	$(SWIFT) build -c $(CONFIG) --product xds $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS))

demo: build
	@sh scripts/demo.sh $(XDS)

test: setup-test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel

bench: setup-bench
	$(SWIFT) build -c release --product xds $(RELEASE_FLAGS)
	$(SWIFT) build -c release --product xds-bench $(RELEASE_FLAGS)
	@sh Benchmarks/run.sh

clean:
	rm -rf $(BUILD_DIR) Fuzz/bin

# libFuzzer targets: make fuzz-plist FUZZ_SECONDS=600 (see Fuzz/README.md).
FUZZ_SECONDS ?= 60
fuzz-plist fuzz-png fuzz-appledouble fuzz-icns fuzz-archive: setup
	sh Fuzz/run.sh $(@:fuzz-%=%) $(FUZZ_SECONDS)
