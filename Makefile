# flamepipe: GNU make. Declarative lists; rules below.
#
#   make            the programs into bin/ (no tests; fp-serve only with
#                   libmicrohttpd)
#   make deps       install the missing Debian packages (tools/install-deps.sh)
#   make check      fast tier: build, then unit + shell tests in parallel
#                   (cores + 1 at a time, FP_JOBS=N to choose); what a
#                   developer runs between commits
#   make test       everything, what CI runs: normal and ASan+UBSan builds,
#                   unit, shell, asan, browser and fuzz suites
#   make deps test  the same on a fresh machine (the README's command)
#   make demo       install missing packages, build, run the bundled demo
#   make bench      the benchmark (bench/run.sh)
#   make man        the man pages, from docs/ (tools/mkman.sh, go-md2man)
#   make install    PREFIX=/usr/local (programs, pipeline files, man pages)
#   make deb        build/flamepipe_VERSION_ARCH.deb (tools/mkdeb.sh)
#   make SAN=1 BUILD=build-asan BIN=bin-asan   sanitizer build

CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
BUILD   ?= build
BIN     ?= bin
# A call of an undeclared function, or an int taken for a pointer, is an
# error (gcc 12 only warns, and the program runs with a truncated pointer).
WARN     = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
           -Wno-missing-field-initializers -Werror=implicit-function-declaration \
           -Werror=int-conversion -Werror=incompatible-pointer-types
# The shared folders, lowest first (docs/ARCHITECTURE.md; tests/t0201 checks
# that each includes only the folders below it). ui/ is the page (its
# embedding's header for render/ and web/).
SHARED_DIRS := lib recording fifo fold perf/script perf/data ui render
INCLUDES = $(addprefix -I,$(SHARED_DIRS)) -I$(BUILD)/gen
DEPFLAGS = -MMD -MP
LDLIBS  ?= -lev -lz -lm -lprotobuf-c -lpcre2-8 -lxxhash
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# Shared code, one concern a folder (SHARED_DIRS); render/ is kept apart
# because it embeds generated scripts.
SHARED_SRCS := $(foreach d,$(filter-out render,$(SHARED_DIRS)),$(wildcard $(d)/*.c))
RENDER_SRCS := $(wildcard render/*.c)
# One program per file in stages/, or per folder stages/NAME/ (NAME.c and
# the modules only that stage uses); the runner and the web server are
# built from all .c files in their directories.
STAGE_SRCS  := $(wildcard stages/*.c)
STAGE_DIRS  := $(patsubst %/,%,$(dir $(wildcard stages/*/*.c)))
STAGE_DIRS  := $(sort $(STAGE_DIRS))
RUNNER_SRCS := $(wildcard runner/*.c)
WEB_SRCS    := $(wildcard web/*.c)
UNIT_SRCS   := $(wildcard tests/unit/u-*.c)
HELPER_SRCS := $(wildcard tests/helper/*.c)

# The renderers embed their scripts: render/NAME.js -> $(BUILD)/gen/NAME_js.inc
JS_SRCS  := $(wildcard render/*.js)
JS_INCS  := $(patsubst render/%.js,$(BUILD)/gen/%_js.inc,$(JS_SRCS)) $(BUILD)/gen/heatscale_js.inc

# ---- the package probe ----------------------------------------------------
# Each library: its pkg-config name, a header (for libraries without a .pc
# file, like Debian's libev) and the Debian package. A missing one stops the
# build with one line naming the package. The probe runs when a recipe is
# expanded, so `make deps all` probes after deps has installed.
HASH := \#
# (pcre2.h wants its code unit width before it is included)
have = $(shell { pkg-config --exists $(1) 2>/dev/null || \
	printf '$(HASH)define PCRE2_CODE_UNIT_WIDTH 8\n$(HASH)include <%s>\n' '$(2)' | \
	$(CC) -E -x c - >/dev/null 2>&1; } && echo yes)
require = $(if $(call have,$(1),$(2)),,$(error $(1) not found: apt-get install $(3), or run make deps))
# `make deps ...` installs every package first: assume them all there.
have_now = $(if $(filter deps,$(MAKECMDGOALS)),yes,$(call have,$(1),$(2)))
# Goals that build nothing need no probe (and must work on a bare machine).
DEPS_FIRST := $(filter deps,$(MAKECMDGOALS))

# fp-serve needs libmicrohttpd; without it `make` builds the rest.
HAVE_MHD := $(call have_now,libmicrohttpd,microhttpd.h)

STAGES   := $(patsubst stages/%.c,$(BIN)/%,$(STAGE_SRCS)) $(patsubst stages/%,$(BIN)/%,$(STAGE_DIRS))
RUNNER   := $(if $(RUNNER_SRCS),$(BIN)/flamepipe)
WEB      := $(if $(and $(WEB_SRCS),$(HAVE_MHD)),$(BIN)/fp-serve)
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
HELPERS  := $(patsubst tests/helper/%.c,$(BUILD)/tests/%,$(HELPER_SRCS))
LIBFP    := $(BUILD)/libfp.a

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))

# The programs only: what a user builds. Tests build under check and test.
all: $(STAGES) $(RUNNER) $(WEB)
	$(if $(WEB)$(if $(WEB_SRCS),,x),,@echo "Makefile: libmicrohttpd not found: fp-serve not built (apt-get install libmicrohttpd-dev, or run make deps)")

# Unit tests (cmocka) and the helper programs the shell tests run.
tests: all $(UNITS) $(HELPERS)

# Runs before anything is compiled (after deps, if that is a goal too).
probe: | $(DEPS_FIRST)
	$(call require,libev,ev.h,libev-dev)
	$(call require,zlib,zlib.h,zlib1g-dev)
	$(call require,libdeflate,libdeflate.h,libdeflate-dev)
	$(call require,libprotobuf-c,protobuf-c/protobuf-c.h,libprotobuf-c-dev)
	$(call require,jansson,jansson.h,libjansson-dev)
	$(call require,libcurl,curl/curl.h,libcurl4-openssl-dev)
	$(call require,libpcre2-8,pcre2.h,libpcre2-dev)
	$(call require,libdw,elfutils/libdw.h,libdw-dev)
	$(call require,libdebuginfod,elfutils/debuginfod.h,libdebuginfod-dev)
	$(call require,libelf,libelf.h,libelf-dev)
	$(call require,libiberty,libiberty/libiberty.h,libiberty-dev)
	$(call require,libzstd,zstd.h,libzstd-dev)
	$(call require,libxxhash,xxhash.h,libxxhash-dev)
	$(call require,ncursesw,curses.h,libncurses-dev)
	$(if $(shell command -v protoc-c),,$(error protoc-c not found: apt-get install protobuf-c-compiler, or run make deps))

probe-tests: | $(DEPS_FIRST)
	$(call require,cmocka,cmocka.h,libcmocka-dev)
	$(call require,libmicrohttpd,microhttpd.h,libmicrohttpd-dev)

$(BUILD)/%.o: %.c | probe
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(INCLUDES) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# pprof's profile.proto -> C with protoc-c (protobuf-c-compiler); the
# generated files live in $(BUILD)/gen and go into libfp.
PROTO_C := $(BUILD)/gen/profile.pb-c.c
PROTO_H := $(BUILD)/gen/profile.pb-c.h

$(PROTO_C) $(PROTO_H) &: render/profile.proto | probe
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=render --c_out=$(BUILD)/gen render/profile.proto

$(BUILD)/gen/profile.pb-c.o: $(PROTO_C) $(PROTO_H)
	$(CC) -std=c11 $(INCLUDES) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# whatever includes the generated header waits for it
$(call obj,$(RENDER_SRCS) $(STAGE_SRCS) $(wildcard stages/*/*.c) $(WEB_SRCS)): | $(PROTO_H)

$(BUILD)/gen/%_js.inc: render/%.js render/js2c.sh
	@mkdir -p $(dir $@)
	sh render/js2c.sh $< $*_js >$@.tmp && mv $@.tmp $@

# heatmap.svg's Enhanced scale is the page's (ui/heatscale.js, a module:
# its `export`s dropped for the SVG's plain script)
$(BUILD)/gen/heatscale_js.inc: ui/heatscale.js render/js2c.sh
	@mkdir -p $(dir $@)
	sed 's/^export //' $< >$@.js && sh render/js2c.sh $@.js heatscale_js >$@.tmp && mv $@.tmp $@ && rm -f $@.js

# the embedded scripts exist before any renderer compiles
$(call obj,$(RENDER_SRCS)): | $(JS_INCS)

$(LIBFP): $(call obj,$(SHARED_SRCS) $(RENDER_SRCS)) $(BUILD)/gen/profile.pb-c.o
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/%: $(BUILD)/stages/%.o $(LIBFP)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# a stage with private modules: every .c file of its folder
define stage_dir
$(BIN)/$(notdir $(1)): $(call obj,$(wildcard $(1)/*.c)) $(LIBFP)
	@mkdir -p $(BIN)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach d,$(STAGE_DIRS),$(eval $(call stage_dir,$(d))))

# stages with a library of their own
# fp-render embeds the page's files (ui/, render/views.h)
$(BIN)/fp-render: $(BUILD)/ui/ui_files.o
$(BIN)/fp-render: LDLIBS += -lpthread
$(BIN)/fp-read: LDLIBS += -lpthread
$(BIN)/fp-chrome: LDLIBS += -ljansson
$(BIN)/fp-push: LDLIBS += -lcurl -lpthread
# fp-perfdata alone reads ELF files and demangles: elfutils, libiberty.
PERFDATA_LIBS := -ldw -lelf -liberty -ldebuginfod -lpthread -lzstd
$(BIN)/fp-perfdata: LDLIBS += $(PERFDATA_LIBS)
$(BUILD)/tests/u-pdsymtab: LDLIBS += $(PERFDATA_LIBS)
$(BUILD)/tests/u-kcache: LDLIBS += $(PERFDATA_LIBS)
# fp-tui draws the terminal view with ncurses (libncurses-dev).
TUI_LIBS := $(or $(shell pkg-config --libs ncursesw 2>/dev/null),-lncursesw -ltinfo)
$(BIN)/fp-tui: LDLIBS += $(TUI_LIBS)
# fp-record compresses its recording's members with libdeflate (recording/fp_recenc.c).
$(BIN)/fp-record: LDLIBS += -ldeflate
$(BIN)/fp-serve: LDLIBS += -ldeflate

$(BIN)/flamepipe: $(call obj,$(RUNNER_SRCS)) $(LIBFP)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The page (ui/*), one for fp-serve and fp-render's report, is embedded
# into both by ui/embed.sh.
UI_FILES := $(shell find ui -type f ! -name '.*' ! -name '*.sh' ! -name '*.h' 2>/dev/null | LC_ALL=C sort)
# the list itself, rewritten only when it changes: a removed file re-embeds
UI_LIST  := $(BUILD)/ui/ui_files.list
$(shell mkdir -p $(BUILD)/ui && { echo '$(UI_FILES)' | cmp -s - $(UI_LIST) || echo '$(UI_FILES)' >$(UI_LIST); })

$(BUILD)/ui/ui_files.c: ui/embed.sh $(UI_FILES) $(UI_LIST)
	@mkdir -p $(dir $@)
	sh ui/embed.sh $(UI_FILES) >$@.tmp && mv $@.tmp $@

$(BUILD)/ui/ui_files.o: $(BUILD)/ui/ui_files.c ui/ui_files.h
	$(CC) $(WARN) -Iui $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BIN)/fp-serve: $(call obj,$(WEB_SRCS)) $(BUILD)/ui/ui_files.o $(LIBFP)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lmicrohttpd

$(call obj,$(UNIT_SRCS)): | probe-tests

$(BUILD)/tests/u-%: $(BUILD)/tests/unit/u-%.o $(LIBFP)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
$(BUILD)/tests/u-recording: LDLIBS += -ldeflate
$(BUILD)/tests/u-atomic: LDLIBS += -lpthread
$(BUILD)/tests/u-pdfetchpool: LDLIBS += -lpthread
$(BUILD)/tests/u-gate: LDLIBS += -lmicrohttpd -lpthread
# unit tests of a stage's private modules
$(BUILD)/tests/unit/u-tailtab.o: INCLUDES += -Istages/fp-range
$(BUILD)/tests/unit/u-pairing.o: INCLUDES += -Istages/fp-latency
$(BUILD)/tests/unit/u-baseline.o: INCLUDES += -Istages/fp-baseline
$(BUILD)/tests/u-tailtab: $(BUILD)/tests/unit/u-tailtab.o $(call obj,stages/fp-range/fp_tailtab.c) $(LIBFP)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
$(BUILD)/tests/u-pairing: $(BUILD)/tests/unit/u-pairing.o $(call obj,stages/fp-latency/fp_pairing.c) $(LIBFP)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
$(BUILD)/tests/u-baseline: $(BUILD)/tests/unit/u-baseline.o $(call obj,stages/fp-baseline/fp_basewin.c) $(LIBFP)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(BUILD)/tests/%: $(BUILD)/tests/helper/%.o $(LIBFP)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# ---- man pages ----------------------------------------------------------
# One page per program, made from its doc by tools/mkman.sh (go-md2man):
# PROG=DOC=SECTION ("-": the whole doc). A program without an entry stops
# `make man` (and `make install`).
MAN_SRC := flamepipe=docs/flamepipe.md=- fp-read=docs/fp-read.md=- \
	fp-bucket=docs/fp-bucket.md=- fp-range=docs/fp-range.md=- \
	fp-fold=docs/fp-fold.md=- fp-render=docs/fp-render.md=- \
	fp-flamegraph=docs/fp-flamegraph.md=- fp-serve=docs/fp-serve.md=- \
	fp-bpftrace=docs/fp-bpftrace.md=- fp-latency=docs/fp-latency.md=- \
	fp-chrome=docs/fp-chrome.md=- fp-push=docs/fp-push.md=- fp-record=docs/fp-record.md=- \
	fp-ssh=docs/fp-ssh.md=- fp-baseline=docs/fp-baseline.md=- \
	fp-perfdata=docs/fp-perfdata.md=- fp-tui=docs/fp-tui.md=-
FP_VERSION := $(shell sed -n 's/^$(HASH)define FP_VERSION "\(.*\)"/\1/p' runner/commands.h)
MAN_PROGS := $(notdir $(STAGES) $(RUNNER) $(WEB))
MANDIR    ?= $(BUILD)/man
MANPAGES  := $(patsubst %,$(MANDIR)/%.1,$(MAN_PROGS))
man_field = $(word $(2),$(subst =, ,$(filter $(1)=%,$(MAN_SRC))))

man: $(MANPAGES)

$(MANDIR)/%.1: $(BIN)/% tools/mkman.sh $(wildcard docs/*.md)
	$(if $(shell command -v go-md2man),,$(error go-md2man not found: apt-get install go-md2man, or run make deps))
	$(if $(call man_field,$*,2),,$(error no man page source for $*: add it to MAN_SRC in the Makefile))
	@mkdir -p $(dir $@)
	$(BIN)/$* --help >$@.usage 2>&1 || true
	sh tools/mkman.sh $* $(call man_field,$*,2) $(call man_field,$*,3) $(FP_VERSION) $@.usage >$@.tmp
	mv $@.tmp $@ && rm -f $@.usage

deps:
	@tools/install-deps.sh

demo: deps
	$(MAKE) all
	tools/demo.sh

# Parallel test jobs (tests/run-all.sh FP_JOBS), and build jobs for the
# builds below when make was not given -j itself.
FP_JOBS ?= 2
SUBJOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(FP_JOBS))

# Fast tier: unit and shell tests of the normal build, CHECK_JOBS at a
# time, without the scripts tagged slow (valgrind, and those that wait out
# real time: server deadlines, push intervals, live, ssh and bpftrace
# captures); make test runs them. FP_SKIP= (empty) make check runs them too.
# One test more than there are cores (3 on a 2-core machine): the fast
# tier's tests mostly wait (captures of a set length, timers, servers:
# about 100 s of CPU in 280 s of test time), so a third one fills the
# waits. FP_JOBS=N (environment or command line) sets it instead.
CHECK_JOBS = $(if $(filter environment command line,$(origin FP_JOBS)),$(FP_JOBS),$(shell echo $$(($$(nproc 2>/dev/null || echo 1) + 1))))
check: | $(DEPS_FIRST)
	$(MAKE) $(SUBJOBS) tests
	FP_JOBS=$(CHECK_JOBS) FP_SUITES=$${FP_SUITES:-unit,shell} FP_SKIP=$${FP_SKIP-slow} tests/run-all.sh

# Everything (what CI runs): normal build, again under ASan+UBSan, then
# every suite. Installs nothing: `make deps test` does (README, .ci/run).
# The builds are recursive so that they probe after deps has run.
test: | $(DEPS_FIRST)
	$(MAKE) $(SUBJOBS) tests
	$(MAKE) $(SUBJOBS) SAN=1 OPT=-O1 BUILD=build-asan BIN=bin-asan tests
	FP_JOBS=$(FP_JOBS) tests/run-all.sh

# The soak (bench/soak.sh: a live session's memory over 11 minutes) runs
# after the rows; BENCH_SOAK=0 leaves it out, `make soak` runs it alone.
# bench/ssh-remote.sh spins the test helper live-spin on the "remote" host.
bench: $(STAGES) $(RUNNER) $(WEB) $(BUILD)/tests/live-spin
	bench/run.sh
	[ "$${BENCH_SOAK:-1}" = 0 ] || bench/soak.sh

soak: $(STAGES) $(RUNNER) $(WEB)
	bench/soak.sh

# Programs into PREFIX/bin; pipeline files, the bpftrace program and the
# bundled captures into PREFIX/share/flamepipe, where `flamepipe` looks for
# its default pipeline (bpftrace/profile.bt: where `live --source bpftrace`
# looks for it).
PREFIX  ?= /usr/local
install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/flamepipe \
		$(DESTDIR)$(PREFIX)/share/flamepipe/bpftrace \
		$(DESTDIR)$(PREFIX)/share/flamepipe/examples $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0644 $(MANPAGES) $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(STAGES) $(RUNNER) $(WEB) $(DESTDIR)$(PREFIX)/bin
	install -m 0644 examples/*.pipeline $(DESTDIR)$(PREFIX)/share/flamepipe
	install -m 0644 examples/bpftrace/profile.bt $(DESTDIR)$(PREFIX)/share/flamepipe/bpftrace
	install -m 0644 examples/*.perf.gz $(DESTDIR)$(PREFIX)/share/flamepipe/examples

# The Debian package, $(BUILD)/flamepipe_VERSION_ARCH.deb (tools/mkdeb.sh:
# dpkg-deb under fakeroot, Depends from dpkg-shlibdeps: runtime libraries
# only). Install it with apt-get install ./flamepipe_VERSION_ARCH.deb.
DEB_ROOT := $(BUILD)/deb/root
deb: all man
	$(if $(shell command -v dpkg-deb),,$(error dpkg-deb not found: apt-get install dpkg-dev, or run make deps))
	$(if $(shell command -v fakeroot),,$(error fakeroot not found: apt-get install fakeroot, or run make deps))
	rm -rf $(DEB_ROOT)
	$(MAKE) install DESTDIR=$(abspath $(DEB_ROOT)) PREFIX=/usr
	tools/mkdeb.sh $(FP_VERSION) $(DEB_ROOT) $(BUILD)

clean:
	rm -rf build build-asan bin bin-asan

.PHONY: all man tests probe probe-tests deps demo test check bench soak install deb clean
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
