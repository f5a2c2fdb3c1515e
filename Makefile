# wblab build.  `make` builds build/wblab; `make check` builds and runs every
# test suite; `make asan` does the same with AddressSanitizer+UBSan in build-asan/.
# Every source directory is picked up by wildcard, so adding a model or a
# subcommand needs no edit here.  BUILD=dir keeps parallel builds apart.

BUILD   ?= build
CC      ?= cc
OPT     ?= -O2
SAN     ?=
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers \
           -MMD -MP $(SAN)
LDFLAGS += $(SAN)
LDLIBS  += -lm -lpthread

# trace-cmd .dat support through libtracecmd, when the -dev package is installed
TRACECMD_CFLAGS := $(shell pkg-config --cflags libtracecmd libtracefs libtraceevent 2>/dev/null)
TRACECMD_LIBS   := $(shell pkg-config --libs libtracecmd libtracefs libtraceevent 2>/dev/null)
ifneq ($(TRACECMD_LIBS),)
CFLAGS += -DWBLAB_HAVE_TRACECMD $(TRACECMD_CFLAGS)
LDLIBS += $(TRACECMD_LIBS)
endif

LIB_SRC  := $(filter-out src/cli/main.c, $(wildcard src/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

all: $(BUILD)/wblab

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libwblab.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/wblab: $(BUILD)/src/cli/main.o $(BUILD)/libwblab.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libwblab.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -o $@ $< $(BUILD)/libwblab.a $(LDFLAGS) $(LDLIBS) -lcmocka

tests: $(TEST_BIN) $(BUILD)/wblab

# Runs unit suites and end-to-end scripts; last line "N passed, N failed".
check: tests
	@BUILD=$(BUILD) tests/run-all.sh

asan:
	$(MAKE) BUILD=build-asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" tests

clean:
	rm -rf build build-asan build-fuzz

.PHONY: all tests check asan clean
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
