# xds — build, demo, test, benchmark and fuzz.
# `make demo` and `make test` install what is missing (Debian: apt-get as root, else the
# exact command is printed; macOS: brew), so a fresh machine needs nothing by hand.

SWIFT      ?= swift
CONFIG     ?= release
BUILD_DIR  := .build
XDS        := $(BUILD_DIR)/$(CONFIG)/xds
UNAME      := $(shell uname -s)
# Release code generation, all platforms: specialise the libraries' generic code where xds
# calls it (cross-module optimisation; unspecialised, every call looks types up at run time),
# and reach concrete generic type metadata through direct accessors rather than mangled names
# (which the runtime demangles and checks conformances for, the first time each is used).
# Together they take `xds show FILE` from 3.13 M to 2.60 M instructions (Benchmarks/RESULTS.md).
CODEGEN_FLAGS := -Xswiftc -cross-module-optimization \
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
RELEASE_FLAGS ?= $(CODEGEN_FLAGS)
ifeq ($(UNAME),Linux)
# glibc 2.36+ (Debian 12): link with lld and pack the relative relocations (DT_RELR), which
# keeps position independence (address randomisation) and makes the binary 1 MB smaller.
GLIBC_MINOR := $(shell ldd --version 2>/dev/null | sed -n '1s/.* 2\.\([0-9][0-9]*\)$$/\1/p')
RELR_FLAGS := $(if $(shell [ "$(GLIBC_MINOR)" -ge 36 ] 2>/dev/null && echo yes),-Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
# Linux: link the Swift runtime statically; loading its shared libraries is most of xds's start-up
# time (`xds show FILE` takes about half as long). No $ORIGIN runpath: xds ships no library of its
# own, and the loader would look for libc and the rest next to the binary first, on every run.
# No exported symbols: the toolchain's static-stdlib link exports every symbol of the program
# (-export-dynamic), which nothing loaded into xds looks up; the runtime's one dladdr at start-up
# then scanned 4 500 of them (xds show FILE: 2.93 M → 2.79 M instructions; 420 KB less, stripped).
RELEASE_FLAGS := --static-swift-stdlib --disable-local-rpath $(RELR_FLAGS) -Xlinker --no-export-dynamic $(RELEASE_FLAGS)
endif

# Debian packages: what building and testing need (samba and smbclient: the test against a real
# smbd with streams_xattr; binutils: make deb reads the binary with strings and readelf; the
# compressors, zip, unzip and zipalign make and check the archives of the archive tests), what
# tests add (curl and wget: `--xattr` downloads from a loopback server; ntfs-3g: an NTFS image
# mounted through FUSE, for the real writers of download marks; p7zip-full: 7z writes the LZMA
# and Deflate64 zips whose ._ entries a clean copy cannot read; acl: setfacl and getfacl give a
# rewritten sidecar a POSIX ACL to keep; pre-commit: the xds-check hook run by try-repo; python3-nautilus and gir1.2-nautilus-4.0: the
# GNOME Files extension's unit tests, NautilusExtensionTests), what
# make test-deb's checks add (lintian; man-db renders the man page), then what benchmarks add.
APT_BUILD  := libcurl4-openssl-dev libplist-dev libplist-utils zlib1g-dev libdeflate-dev attr pngcheck python3 python3-pip pkg-config openssl libarchive-dev libarchive-tools tar samba smbclient binutils \
  bzip2 xz-utils zstd lz4 lzip ncompress zip unzip zipalign
APT_TEST   := curl wget ntfs-3g p7zip-full acl pre-commit python3-nautilus gir1.2-nautilus-4.0
APT_DEB    := lintian man-db
# make test-desktop: GNOME Files in a virtual X server, read back through the accessibility bus.
APT_DESKTOP := nautilus python3-nautilus gir1.2-nautilus-4.0 xvfb dbus-x11 at-spi2-core python3-pyatspi dconf-service imagemagick
APT_BENCH  := imagemagick libvips-tools librsvg2-bin hyperfine time curl bindfs
BREW_BUILD := libplist libdeflate zlib pkg-config libarchive

.PHONY: all build build-info docs examples man completions install uninstall deb test-deb setup setup-test setup-deb setup-bench setup-desktop test-desktop demo test test-release bench fuzz $(addprefix fuzz-,$(FUZZ_TARGETS)) clean

all: build

# Installs the system packages that are missing; idempotent and quiet when all are there.
setup:
	@sh scripts/setup.sh build $(APT_BUILD) -- $(BREW_BUILD)

# Tests also use Pillow and numpy (an independent PNG decoder, the float reference mask).
setup-test: setup
	@sh scripts/setup.sh test $(APT_TEST) --
	@python3 -c 'import PIL, numpy' 2>/dev/null || python3 -m pip install --quiet pillow numpy || \
	  python3 -m pip install --quiet --break-system-packages pillow numpy

# What make test-deb's checks need (make test-deb runs it).
setup-deb: setup
	@sh scripts/setup.sh deb $(APT_DEB) --

setup-bench: setup-test
	@sh scripts/setup.sh bench $(APT_BENCH) --

build: setup build-info
	$(SWIFT) build -c $(CONFIG) --product xds $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS))

# The commit `xds --version` names (Sources/CBuildInfo/commit.h, rewritten only when it changes).
build-info:
	@sh scripts/build-info.sh

# The man page, generated from the command-line parser by swift-argument-parser's generate-manual
# plugin. The date is fixed (the version's release date) so the page is reproducible; the plugin
# builds the package in debug mode (the text does not depend on the build).
MAN_DATE   ?= 2026-11-24
MAN_DIR    := $(BUILD_DIR)/man
man: setup build-info
	$(SWIFT) package plugin generate-manual --configuration debug --date $(MAN_DATE) --section 1 \
	  --authors 'the xds authors' >/dev/null
	@mkdir -p $(MAN_DIR)
	cp $(BUILD_DIR)/plugins/GenerateManual/outputs/xds/xds.1 $(MAN_DIR)/xds.1
	@echo "man: $(MAN_DIR)/xds.1"

# Shell completions, written by the built binary itself (ArgumentParser generates them).
COMPLETIONS_DIR := $(BUILD_DIR)/completions
completions: build
	@mkdir -p $(COMPLETIONS_DIR)
	$(XDS) --generate-completion-script bash > $(COMPLETIONS_DIR)/xds.bash
	$(XDS) --generate-completion-script zsh > $(COMPLETIONS_DIR)/_xds
	$(XDS) --generate-completion-script fish > $(COMPLETIONS_DIR)/xds.fish

# DocC for the three libraries into .build/docs/MODULE.doccarchive; a warning (a broken symbol
# link, an undocumented topic) fails the build, so `make test` runs it too.
DOCC_TARGETS := XDSWalk XDocSource XDocSourceFetch XDocSourceArchive IconMask XDSPublish XDSProvenance
docs: setup
	@mkdir -p $(BUILD_DIR)/docs; for t in $(DOCC_TARGETS); do rm -rf $(BUILD_DIR)/docs/$$t.doccarchive; \
	  $(SWIFT) package --disable-sandbox generate-documentation --target $$t --warnings-as-errors \
	    --output-path $(BUILD_DIR)/docs/$$t.doccarchive > $(BUILD_DIR)/docs/$$t.log 2>&1 || { grep -E "warning|error" $(BUILD_DIR)/docs/$$t.log; exit 1; }; \
	  echo "docs: $(BUILD_DIR)/docs/$$t.doccarchive"; done

# make install PREFIX=/usr/local DESTDIR=…: the stripped binary, the man page and the bash, zsh
# and fish completions where each shell looks for them; make uninstall removes exactly those.
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     := $(PREFIX)/bin
MAN1DIR    := $(PREFIX)/share/man/man1
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
# Debian's zsh reads vendor completions under /usr and site functions under /usr/local.
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
# The GNOME Files extension (nautilus-python 4 reads $XDG_DATA_DIRS/nautilus-python/extensions),
# with the installed binary's absolute path written into it (SPEC §6b).
NAUTILUSDIR := $(PREFIX)/share/nautilus-python/extensions
INSTALLED  := $(BINDIR)/xds $(MAN1DIR)/xds.1 $(BASHCOMPDIR)/xds $(ZSHCOMPDIR)/_xds $(FISHCOMPDIR)/xds.fish \
  $(NAUTILUSDIR)/xds_nautilus.py

install: build man completions
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MAN1DIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 -s $(XDS) $(DESTDIR)$(BINDIR)/xds
	install -m 644 $(MAN_DIR)/xds.1 $(DESTDIR)$(MAN1DIR)/xds.1
	install -m 644 $(COMPLETIONS_DIR)/xds.bash $(DESTDIR)$(BASHCOMPDIR)/xds
	install -m 644 $(COMPLETIONS_DIR)/_xds $(DESTDIR)$(ZSHCOMPDIR)/_xds
	install -m 644 $(COMPLETIONS_DIR)/xds.fish $(DESTDIR)$(FISHCOMPDIR)/xds.fish
	install -d $(DESTDIR)$(NAUTILUSDIR)
	sed 's|^INSTALLED_XDS = .*|INSTALLED_XDS = "$(BINDIR)/xds"|' desktop/nautilus/xds_nautilus.py > $(DESTDIR)$(NAUTILUSDIR)/xds_nautilus.py
	chmod 644 $(DESTDIR)$(NAUTILUSDIR)/xds_nautilus.py

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# make deb: .build/deb/xds_VERSION_ARCH.deb, built with dpkg-deb from a `make install` into a
# staging folder (PREFIX=/usr). See scripts/make-deb.sh for the control file, the dependencies
# (the packages of the libraries installed here) and the changelog (packaging/changelog).
# DEB_MAINTAINER='Name <address>' names the maintainer (else a placeholder).
DEB_STAGE  := $(BUILD_DIR)/deb/root
deb: build man completions
	rm -rf $(DEB_STAGE)
	@$(MAKE) --no-print-directory install DESTDIR=$(DEB_STAGE) PREFIX=/usr >/dev/null
	@sh scripts/make-deb.sh $(DEB_STAGE) $(BUILD_DIR)/deb

# Checks the package: lintian reports nothing, the man page renders without a warning, the
# files are those of `make install PREFIX=/usr`; then (root) installs it on this machine,
# checks what a user gets and removes it (scripts/test-deb.sh).
DEB_INSTALL := $(BUILD_DIR)/deb/install
test-deb: setup-deb deb
	rm -rf $(DEB_INSTALL)
	@$(MAKE) --no-print-directory install DESTDIR=$(DEB_INSTALL) PREFIX=/usr >/dev/null
	@sh scripts/test-deb.sh $(DEB_INSTALL)

# GNOME Files with the extension, in a virtual X server (scripts/test-desktop.sh): the columns
# read back through the accessibility API. DESKTOP_SCREENSHOT=FILE.png keeps a screenshot.
setup-desktop: setup
	@sh scripts/setup.sh desktop $(APT_DESKTOP) --

test-desktop: setup-desktop build-info
	$(SWIFT) build --product xds
	@sh scripts/test-desktop.sh $(BUILD_DIR)/debug/xds

demo: build
	@sh scripts/demo.sh $(XDS)

# The suite runs the examples of README.md and docs/ (docs/doc-examples.md), which pipe into
# file and jq: installed with the rest by `make setup`.
APT_BUILD  += file jq
BREW_BUILD += jq

# The suite last, so its summary closes the output; before it, the DocC build (a broken symbol
# link fails) and the example package against a loopback server.
test: setup-test build-info docs examples
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel

# The command-line suite (xdsTests) against the release binary `make build` makes, whose code
# generation differs (RELEASE_FLAGS); not part of `make test`, which stays within CI's time.
test-release: build
	$(SWIFT) build --build-tests
	XDS_BINARY=$(CURDIR)/$(XDS) $(SWIFT) test --skip-build --parallel --filter xdsTests

# Examples/: a small package that uses the libraries, built and run (scripts/run-example.sh).
examples: setup
	@sh scripts/run-example.sh

bench: setup-bench
	$(SWIFT) build -c release --product xds $(RELEASE_FLAGS)
	$(SWIFT) build -c release --product xds-bench $(RELEASE_FLAGS)
	@sh Benchmarks/run.sh

clean:
	rm -rf $(BUILD_DIR) Fuzz/bin

# libFuzzer targets, address sanitizer on: make fuzz-plist FUZZ_SECONDS=600, or make fuzz for
# every target in turn (FUZZ_SECONDS each; see Fuzz/README.md).
FUZZ_SECONDS ?= 60
# Every folder of Fuzz/ with an entry (*.swift) is a target; Fuzz/build.py builds it from Package.swift.
FUZZ_TARGETS := $(patsubst Fuzz/%/,%,$(sort $(dir $(wildcard Fuzz/*/*.swift))))
fuzz: setup
	@for t in $(FUZZ_TARGETS); do echo "== fuzz $$t ($(FUZZ_SECONDS) s)"; \
	  sh Fuzz/run.sh $$t $(FUZZ_SECONDS) > .build/fuzz-$$t.log 2>&1 || { tail -40 .build/fuzz-$$t.log; exit 1; }; \
	  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov:" .build/fuzz-$$t.log | tail -3; done
$(addprefix fuzz-,$(FUZZ_TARGETS)): setup
	sh Fuzz/run.sh $(@:fuzz-%=%) $(FUZZ_SECONDS)
