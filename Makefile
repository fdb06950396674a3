# flamepipe: GNU make. Declarative lists; rules below.
#
#   make            build everything into bin/
#   make demo       install missing packages, build, run the bundled demo
#   make test       install missing packages, build, run every test
#                   (normal build, then the ASan+UBSan build)
#   make bench      the benchmark (bench/run.sh)
#   make install    PREFIX=/usr/local (programs, pipeline files)
#   make SAN=1 BUILD=build-asan BIN=bin-asan   sanitizer build

CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
BUILD   ?= build
BIN     ?= bin
WARN     = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
           -Wno-missing-field-initializers
INCLUDES = -Ififo -Irender -I$(BUILD)/gen
DEPFLAGS = -MMD -MP
LDLIBS  ?= -lev -lz -lm -lprotobuf-c
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# Shared code: fifo/ (I/O, protocol, FIFOs), render/ (SVG/HTML/JSON output).
FIFO_SRCS   := $(wildcard fifo/*.c)
RENDER_SRCS := $(wildcard render/*.c)
# One program per file in stages/; the runner and the web server are built
# from all .c files in their directories.
STAGE_SRCS  := $(wildcard stages/*.c)
RUNNER_SRCS := $(wildcard runner/*.c)
WEB_SRCS    := $(wildcard web/*.c)
UNIT_SRCS   := $(wildcard tests/unit/u-*.c)
HELPER_SRCS := $(wildcard tests/helper/*.c)

STAGES   := $(patsubst stages/%.c,$(BIN)/%,$(STAGE_SRCS))
RUNNER   := $(if $(RUNNER_SRCS),$(BIN)/flamepipe)
WEB      := $(if $(WEB_SRCS),$(BIN)/fp-serve)
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
HELPERS  := $(patsubst tests/helper/%.c,$(BUILD)/tests/%,$(HELPER_SRCS))
LIBFP    := $(BUILD)/libfp.a

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))

all: $(STAGES) $(RUNNER) $(WEB) $(UNITS) $(HELPERS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(INCLUDES) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# pprof's profile.proto -> C with protoc-c (protobuf-c-compiler); the
# generated files live in $(BUILD)/gen and go into libfp.
PROTO_C := $(BUILD)/gen/profile.pb-c.c
PROTO_H := $(BUILD)/gen/profile.pb-c.h

$(PROTO_C) $(PROTO_H) &: render/profile.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=render --c_out=$(BUILD)/gen render/profile.proto

$(BUILD)/gen/profile.pb-c.o: $(PROTO_C) $(PROTO_H)
	$(CC) -std=c11 $(INCLUDES) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# whatever includes the generated header waits for it
$(call obj,$(RENDER_SRCS) $(STAGE_SRCS) $(WEB_SRCS)): | $(PROTO_H)

$(LIBFP): $(call obj,$(FIFO_SRCS) $(RENDER_SRCS)) $(BUILD)/gen/profile.pb-c.o
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/%: $(BUILD)/stages/%.o $(LIBFP)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/flamepipe: $(call obj,$(RUNNER_SRCS)) $(LIBFP)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The web page (web/ui/*) is embedded into fp-serve by web/embed.sh.
UI_FILES := $(shell find web/ui -type f ! -name '.*' 2>/dev/null | LC_ALL=C sort)
# the list itself, rewritten only when it changes: a removed file re-embeds
UI_LIST  := $(BUILD)/web/ui_files.list
$(shell mkdir -p $(BUILD)/web && { echo '$(UI_FILES)' | cmp -s - $(UI_LIST) || echo '$(UI_FILES)' >$(UI_LIST); })

$(BUILD)/web/ui_files.c: web/embed.sh $(UI_FILES) $(UI_LIST)
	@mkdir -p $(dir $@)
	sh web/embed.sh $(UI_FILES) >$@.tmp && mv $@.tmp $@

$(BUILD)/web/ui_files.o: $(BUILD)/web/ui_files.c web/ui_files.h
	$(CC) $(WARN) -Iweb $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BIN)/fp-serve: $(call obj,$(WEB_SRCS)) $(BUILD)/web/ui_files.o $(LIBFP)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lmicrohttpd

$(BUILD)/tests/u-%: $(BUILD)/tests/unit/u-%.o $(LIBFP)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(BUILD)/tests/%: $(BUILD)/tests/helper/%.o $(LIBFP)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

deps:
	@tools/install-deps.sh

demo: deps
	$(MAKE) all
	tools/demo.sh

# The whole suite: normal build, then again under ASan+UBSan.
test: deps
	$(MAKE) all
	$(MAKE) SAN=1 OPT=-O1 BUILD=build-asan BIN=bin-asan all
	tests/run-all.sh

check: all
	FP_SUITES=$${FP_SUITES:-unit,shell} tests/run-all.sh

bench: $(STAGES) $(RUNNER)
	bench/run.sh

# Programs into PREFIX/bin; pipeline files and the bpftrace program into
# PREFIX/share/flamepipe, where `flamepipe` looks for its default pipeline.
PREFIX  ?= /usr/local
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/flamepipe
	install -m 0755 $(STAGES) $(RUNNER) $(WEB) $(DESTDIR)$(PREFIX)/bin
	install -m 0644 examples/*.pipeline $(DESTDIR)$(PREFIX)/share/flamepipe
	install -m 0644 examples/bpftrace/profile.bt $(DESTDIR)$(PREFIX)/share/flamepipe

clean:
	rm -rf build build-asan bin bin-asan

.PHONY: all deps demo test check bench install clean
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
