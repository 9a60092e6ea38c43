# egressd: plain GNU make + pkg-config.
#
#   make            build egressd and egressctl into $(B)/
#   make deps       install build and test dependencies (apt-get, idempotent)
#   make check      unit + golden + fuzz-corpus replay + integration (root)
#   make asan       the same suites under ASan+UBSan (build-asan/)
#   make fuzz       libFuzzer targets with clang (build-fuzz/)
#   make bench      benchmarks, printed as ratios against a direct baseline
#   make run        build, then run egressd in front of a demo sandbox

B        ?= build
CC       ?= cc
PKGS      = libevent libevent_openssl libssl libcrypto yaml-0.1 libnl-3.0 \
	    libnl-idiag-3.0
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN      = -Wall -Wextra -Wshadow -Wformat=2 -Wvla -Wstrict-prototypes \
	    -Wmissing-prototypes -Wpointer-arith -Wcast-qual -Wundef \
	    -Wno-unused-parameter -Werror
HARDEN    = -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIE
OPT      ?= -O2 -g
CFLAGS   ?=
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(HARDEN) \
	    -Ilib -Ipolicies -Iresolver -Iproxy $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS  ?=
ALL_LDFLAGS = -pie -Wl,-z,relro,-z,now $(LDFLAGS)
LIBS      = $(PKG_LIBS) -lpthread

# Everything except the two programs' main files goes into one archive that
# the programs, the unit tests and the fuzz replayer link against.
MAINS     = proxy/egressd.c proxy/egressctl.c
LIB_SRC   = $(filter-out $(MAINS),$(wildcard lib/*.c policies/*.c resolver/*.c proxy/*.c))
LIB_OBJ   = $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/default_policy.o
UNIT_SRC  = $(wildcard tests/unit/test_*.c)
UNIT_BIN  = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
FUZZ_SRC  = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES = $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
HELPER_SRC = $(wildcard tests/helpers/*.c)
HELPER_BIN = $(HELPER_SRC:tests/helpers/%.c=$(B)/tests/helpers/%)

.SECONDARY:

.PHONY: all deps check unit golden golden-update fuzz-replay integration asan \
	fuzz bench run format format-check install clean

all: $(B)/egressd $(B)/egressctl

# V=1 prints whole command lines.
Q = $(if $(V),,@)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(V),,echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The default policy is compiled into the binary so that `egressd` runs with
# no arguments on a fresh machine.
$(B)/gen/default_policy.c: policies/default.yaml lib/embed.sh
	@mkdir -p $(@D)
	sh lib/embed.sh default_policy_yaml < $< > $@

$(B)/gen/default_policy.o: $(B)/gen/default_policy.c
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/libegressd.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(B)/egressd: $(B)/proxy/egressd.o $(B)/libegressd.a
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(B)/egressctl: $(B)/proxy/egressctl.o $(B)/libegressd.a
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(B)/tests/test_%: $(B)/tests/unit/test_%.o $(B)/libegressd.a
	@mkdir -p $(@D)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(B)/tests/helpers/%: $(B)/tests/helpers/%.o $(B)/libegressd.a
	@mkdir -p $(@D)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# Fuzz targets built with the normal compiler and a replay main: every
# corpus file runs under `make check` (and under ASan in `make asan`).
$(B)/tests/replay_%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/fuzz/replay.o $(B)/libegressd.a
	@mkdir -p $(@D)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)



deps:
	sh tests/deps.sh

check: unit golden fuzz-replay integration

unit: $(UNIT_BIN)
	prove -f $(UNIT_BIN)

golden: $(B)/egressd $(B)/egressctl
	sh tests/golden/run.sh $(B)/egressd
	sh tests/golden/run_ctl.sh $(B)/egressctl $(B)/egressd

golden-update: $(B)/egressd $(B)/egressctl
	sh tests/golden/run.sh $(B)/egressd --update
	sh tests/golden/run_ctl.sh $(B)/egressctl $(B)/egressd --update

fuzz-replay: $(FUZZ_NAMES:%=$(B)/tests/replay_%)
	@set -e; for n in $(FUZZ_NAMES); do \
		$(B)/tests/replay_$$n tests/fuzz/corpus/$$n; done

integration: all $(HELPER_BIN)
	sh tests/integration/run.sh $(B)

asan:
	$(MAKE) B=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
		CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -U_FORTIFY_SOURCE" \
		LDFLAGS="-fsanitize=address,undefined" check

FUZZ_CC ?= clang
fuzz:
	@mkdir -p build-fuzz
	@set -e; for n in $(FUZZ_NAMES); do \
		$(MAKE) --no-print-directory B=build-fuzz CC=$(FUZZ_CC) \
		  OPT="-O1 -g" CFLAGS="-fsanitize=fuzzer-no-link,address,undefined" \
		  build-fuzz/libegressd.a; \
		$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE \
		  -Ilib -Ipolicies -Iresolver -Iproxy $(PKG_CFLAGS) \
		  -o build-fuzz/fuzz_$$n tests/fuzz/fuzz_$$n.c build-fuzz/libegressd.a $(LIBS); \
	done
	@echo "run: build-fuzz/fuzz_NAME tests/fuzz/corpus/NAME -max_total_time=60"

bench: all $(HELPER_BIN)
	sh tests/bench/run.sh $(B)

# The newcomer's tour: a sandbox namespace, egressd in front of it with the
# built-in default policy, a few allowed and denied commands, then egressd
# in the foreground until Ctrl-C (which removes everything).
run: all
	sh netns-scripts/egressd-demo $(B)/egressd

format:
	clang-format -i $(LIB_SRC) $(MAINS) $(wildcard */*.h tests/*/*.c tests/*/*.h)

format-check:
	clang-format --dry-run -Werror $(LIB_SRC) $(MAINS) $(wildcard */*.h tests/*/*.c tests/*/*.h)

PREFIX ?= /usr/local
install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/share/egressd
	install -m 0755 $(B)/egressd $(B)/egressctl $(DESTDIR)$(PREFIX)/sbin/
	install -m 0755 netns-scripts/egressd-netns $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 docs/egressd.8 docs/egressctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	cp -R policies/examples $(DESTDIR)$(PREFIX)/share/egressd/

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(B) -name '*.d' 2>/dev/null)
