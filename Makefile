# wblab build.  `make` builds build/wblab; `make check` builds and runs every
# test suite; `make asan` does the same with AddressSanitizer+UBSan in build-asan/.
# Every source directory is picked up by wildcard, so adding a model or a
# subcommand needs no edit here (the models' list is generated, below).
# BUILD=dir keeps parallel builds apart.

BUILD   ?= build
CC      ?= cc
OPT     ?= -O2
SAN     ?=
# CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS belong to the user (`make CFLAGS=-O0`):
# the flags wblab needs live in ALL_* and are always added to them, as git does.
# The user's flags come last, so one of ours can still be turned off
# (e.g. CFLAGS='-O0 -g -Wno-error=unused-variable').
CFLAGS  ?= $(OPT) -g
BASIC_CFLAGS  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers \
                 -MMD -MP
BASIC_LDLIBS  := -lzstd -lm -lpthread -ldl

# GSL (Debian libgsl-dev): compare's Welch t-test and confidence intervals
GSL_CFLAGS := $(shell pkg-config --cflags gsl 2>/dev/null)
GSL_LIBS   := $(shell pkg-config --libs gsl 2>/dev/null || echo -lgsl -lgslcblas)
BASIC_CFLAGS += $(GSL_CFLAGS)
BASIC_LDLIBS := $(GSL_LIBS) $(BASIC_LDLIBS)

# jansson (Debian libjansson-dev): compare's JSON output
JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JANSSON_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
BASIC_CFLAGS += $(JANSSON_CFLAGS)
BASIC_LDLIBS := $(JANSSON_LIBS) $(BASIC_LDLIBS)

# trace-cmd .dat support through libtracecmd, when the -dev package is installed
TRACECMD_CFLAGS := $(shell pkg-config --cflags libtracecmd libtracefs libtraceevent 2>/dev/null)
TRACECMD_LIBS   := $(shell pkg-config --libs libtracecmd libtracefs libtraceevent 2>/dev/null)
ifneq ($(TRACECMD_LIBS),)
BASIC_CFLAGS += -DWBLAB_HAVE_TRACECMD $(TRACECMD_CFLAGS)
BASIC_LDLIBS += $(TRACECMD_LIBS)
endif

ALL_CFLAGS  = $(BASIC_CFLAGS) -I$(BUILD)/gen $(SAN) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)
ALL_LDLIBS  = $(BASIC_LDLIBS) $(LDLIBS)

LIB_SRC  := $(filter-out src/cli/main.c, $(wildcard src/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

all: $(BUILD)/wblab

# Everything is rebuilt when the flags change (make CFLAGS=-O0 after make).
$(BUILD)/FLAGS: FORCE
	@mkdir -p $(dir $@)
	@echo '$(ALL_CFLAGS) | $(ALL_LDFLAGS) | $(ALL_LDLIBS)' | cmp -s - $@ || \
	 echo '$(ALL_CFLAGS) | $(ALL_LDFLAGS) | $(ALL_LDLIBS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/FLAGS
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The throttling models register themselves: every line starting with
# THROTTLE_MODEL(sym) in a src/throttle/ file becomes X(sym) in the list that
# registry.c includes.  The file is only rewritten when the list changes.
MODEL_SRC := $(sort $(wildcard src/throttle/*.c))
$(BUILD)/gen/throttle_models.inc: $(MODEL_SRC) FORCE
	@mkdir -p $(dir $@)
	@sed -n 's/^THROTTLE_MODEL(\([A-Za-z_][A-Za-z0-9_]*\)).*/X(\1)/p' $(MODEL_SRC) | cmp -s - $@ || \
	 sed -n 's/^THROTTLE_MODEL(\([A-Za-z_][A-Za-z0-9_]*\)).*/X(\1)/p' $(MODEL_SRC) > $@

$(BUILD)/src/throttle/registry.o: $(BUILD)/gen/throttle_models.inc
$(BUILD)/src/throttle/registry.o: ALL_CFLAGS += -I$(BUILD)/gen

# The subcommands register themselves the same way: a line starting
# WB_COMMAND(name, ORDER) in src/cli/cmd_*.c becomes X(name) in the list that
# main.c includes, sorted by ORDER (their place in `wblab help`).
CMD_SRC := $(sort $(wildcard src/cli/cmd_*.c))
CMD_LIST = sed -n 's/^WB_COMMAND(\([a-z_][a-z0-9_]*\), *\([0-9][0-9]*\)).*/\2 X(\1)/p' $(CMD_SRC) | \
	   sort -n -s -k1,1 | sed 's/^[0-9]* //'
$(BUILD)/gen/commands.inc: $(CMD_SRC) FORCE
	@mkdir -p $(dir $@)
	@$(CMD_LIST) | cmp -s - $@ || $(CMD_LIST) > $@

$(BUILD)/src/cli/main.o: $(BUILD)/gen/commands.inc
$(BUILD)/src/cli/main.o: private ALL_CFLAGS += -I$(BUILD)/gen

# The metric table is written where each metric is computed: every line
# starting WBLAB_METRIC( in a src/ file begins a row, collected (path order,
# then file order) into the list src/result/metrics.h includes.  Adding a
# metric touches the file that computes it (and docs/stats.md).
METRIC_SRC := $(sort $(wildcard src/*/*.c))
$(BUILD)/gen/metric_rows.h: $(METRIC_SRC) scripts/gen-metric-rows.awk FORCE
	@mkdir -p $(dir $@)
	@awk -f scripts/gen-metric-rows.awk $(METRIC_SRC) > $@.tmp || { rm -f $@.tmp; exit 1; }
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(LIB_OBJ) $(BUILD)/src/cli/main.o $(TEST_BIN): $(BUILD)/gen/metric_rows.h

$(BUILD)/libwblab.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/wblab: $(BUILD)/src/cli/main.o $(BUILD)/libwblab.a $(BUILD)/FLAGS
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter-out $(BUILD)/FLAGS,$^) $(ALL_LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libwblab.a $(BUILD)/FLAGS
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc -o $@ $< $(BUILD)/libwblab.a $(ALL_LDFLAGS) $(ALL_LDLIBS) -lcmocka

tests: $(TEST_BIN) $(BUILD)/wblab

# Runs unit suites and end-to-end scripts; last line "N passed, N failed".
check: tests
	@BUILD=$(BUILD) tests/run-all.sh

asan:
	$(MAKE) BUILD=build-asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" tests

# `make install PREFIX=dir`: the binary, the policy plug-in header and its
# pkg-config file (docs/policies.md).  A plug-in links against nothing of
# wblab: the API reaches it as a function table, so no library is installed.
PREFIX  ?= /usr/local
DESTDIR ?=
install: $(BUILD)/wblab install-headers
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/wblab $(DESTDIR)$(PREFIX)/bin/wblab

# The example policy plug-ins, built against the header as installed (into
# $(BUILD)/stage unless EXAMPLES_PREFIX names an installed wblab).
EXAMPLES_PREFIX ?= $(abspath $(BUILD)/stage)
EXAMPLE_SRC := $(wildcard examples/policies/*.c)
EXAMPLE_SO  := $(EXAMPLE_SRC:.c=.so)
$(EXAMPLES_PREFIX)/lib/pkgconfig/wblab-policy.pc: include/wblab/policy.h wblab-policy.pc.in
	$(MAKE) --no-print-directory install-headers PREFIX=$(EXAMPLES_PREFIX)
install-headers:
	install -d $(DESTDIR)$(PREFIX)/include/wblab $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/wblab/policy.h $(DESTDIR)$(PREFIX)/include/wblab/policy.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(shell sed -n 's/.*WBLAB_VERSION "\(.*\)".*/\1/p' src/util/util.h)|' \
	    wblab-policy.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/wblab-policy.pc
examples/policies/%.so: examples/policies/%.c $(EXAMPLES_PREFIX)/lib/pkgconfig/wblab-policy.pc
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -fvisibility=hidden \
	    $$(PKG_CONFIG_PATH=$(EXAMPLES_PREFIX)/lib/pkgconfig pkg-config --cflags wblab-policy) -o $@ $<
examples: $(EXAMPLE_SO)

clean:
	rm -rf build build-asan build-fuzz
	rm -f $(EXAMPLE_SO)

.PHONY: all tests check asan clean install install-headers examples FORCE
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
