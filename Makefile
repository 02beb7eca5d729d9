# SPDX-License-Identifier: GPL-2.0
#
#   make            build rdmachan.ko, librdmachan, the demo and selftests
#   make demo       build, then list RDMA devices and make a connection in
#                   the test VM
#   make check      build, then run the whole test suite in the test VM
#                   (Debian 12), and a smoke run on Debian 11 and 13;
#                   KERNEL=bullseye|trixie|sid: the suite on that release
#   make check-all  the whole suite on Debian 11, 12, 13 and unstable
#   make check-stock the rdma-core API tests against the stock rdma-core
#                   stack in the test VM (validates the tests themselves)
#   make check-pyverbs rdma-core's Python suite in bypass mode, each test
#                   that passes on stock must pass on rdmachan
#   make bench      build, then compare rdmachan with the stock CM stack in
#                   the test VM
#   make check-siw  the CM tests and programs that apply to iWARP, on
#                   soft-iWARP in the debug-kernel VM, and over stock
#   make fuzz       the ioctl fuzzer for an hour in the debug-kernel VM
#                   (FUZZ_SECONDS, FUZZ_ARGS)
#   make setup      install build/VM packages, unpack the guest kernel
#   make install    install the module and the library (PREFIX, DESTDIR);
#                   install-module, install-userland: one of the two
#   make check-man  render the man pages with every warning an error
#   make deb        the Debian packages, in build/deb/ (lintian-clean)
#   make clean      remove everything the build made
#
# KDIR defaults to the running kernel's build directory when it exists,
# else to the Debian 6.1 headers that `make setup` unpacks for the VM.

CACHE ?= $(or $(RDMACHAN_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rdmachan)
-include $(CACHE)/env.mk

RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR),$(VM_KDIR))

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
UDEV_RULES_DIR ?= /etc/udev/rules.d
MANDIR ?= $(PREFIX)/share/man
MAN_PAGES := $(wildcard man/*.[0-9])
VERSION := 0.1.0
SOVERSION := 1

B := build
CC ?= gcc
CFLAGS ?= -O2 -g
USER_CFLAGS := $(CPPFLAGS) $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-Iuapi -Ilib/include -I$(B)/rdma-core
# -fexceptions: a thread cancelled in an rsocket call unwinds through the
# library's cleanups (lib/rsocket_cancel.c).
LIB_CFLAGS := $(USER_CFLAGS) -fPIC -fvisibility=hidden -fexceptions
LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:lib/%.c=$(B)/lib/obj/%.o)
LIB_SO := $(B)/lib/librdmachan.so.$(SOVERSION)
LIB_A := $(B)/lib/librdmachan.a
LIB_LINK := -L$(B)/lib -Wl,-rpath,'$$ORIGIN/../lib' -lrdmachan

SELFTEST_SRCS := $(wildcard selftests/*.c)
SELFTESTS := $(SELFTEST_SRCS:selftests/%.c=$(B)/selftests/%)
SELFTEST_CFLAGS := $(USER_CFLAGS) -I$(LINUX_SRC)/tools/testing/selftests \
	-Wno-unused-parameter -Wno-sign-compare
# Selftests written only against the rdma-core API: `make selftests-stock`
# builds them against the stock librdmacm/libibverbs into build/selftests-stock,
# to validate them on the stock stack (`make check-stock`).
API_SELFTESTS := cm_api_test cm_channel_test cm_connect_test cm_events_test cm_iwarp_test \
	cm_storm_test cm_sync_test cm_faults_test cm_qp_api_test rsocket_api_test \
	rsocket_dgram_test \
	$(patsubst selftests/%.c,%,$(wildcard selftests/verbs_*_test.c))
API_SELFTESTS := $(filter-out verbs_device_test verbs_modify_qp_test,$(API_SELFTESTS))
STOCK_SELFTESTS := $(API_SELFTESTS:%=$(B)/selftests-stock/%)
# The API tests run in both of librdmachan's modes, except these: they only
# exchange CM events (their QP numbers are made up), so the mode that owns
# the verbs cannot change what they test.
VERBS_FREE_SELFTESTS := cm_channel_test cm_connect_test cm_storm_test
DEMO := $(B)/bin/rdmachan-devinfo $(B)/bin/rdmachan-connect
BENCH := $(B)/bench/cm_bench-rdmachan $(B)/bench/cm_bench-stock \
	$(B)/bench/verbs_bench-rdmachan $(B)/bench/verbs_bench-stock \
	$(B)/bench/libsyscount.so
FUZZ := $(B)/bin/rdmachan-fuzz
RSOCKET_FUZZ := $(B)/bin/rdmachan-rsocket-fuzz
# Drop-in librdmacm.so.1/libibverbs.so.1 for unmodified rdma-core programs:
# one object (libibverbs.so.1, with librdmacm.so.1 a symlink to it) holding
# the whole library under rdma-core's version nodes
# (docs/compatibility.md: "How the drop-in libraries are made").
COMPAT := $(B)/compat
# Every rdma-core release's symbols (33: Debian 11, 44: 12, 56: 13, 65:
# unstable), merged with this system's own as the default versions.
RELEASE_SYMS := compat/rdma-core-33.syms compat/rdma-core-44.syms \
	compat/rdma-core-56.syms compat/rdma-core-65.syms
COMPAT_SYMS := $(B)/compat/rdma-core.syms
COMPAT_SRCS := $(wildcard compat/*.c)
COMPAT_OBJS := $(COMPAT_SRCS:compat/%.c=$(COMPAT)/obj/%.o) $(COMPAT)/obj/stubs.o
COMPAT_LIB_OBJS := $(filter-out $(B)/lib/obj/mode.o,$(LIB_OBJS))
COMPAT_SO := $(COMPAT)/libibverbs.so.1
COMPAT_LIBDIR ?= $(LIBDIR)/rdmachan
# Bypass mode's drop-in librdmacm.so.1, over the system's libibverbs.so.1:
# librdmachan's CM with the system's verbs (lib/system_verbs.c), none of
# librdmachan's own (their ibv_* would take the calls). Each drop-in is
# built for one mode (compat/mode.c, lib/bypass/mode.c); librdmachan
# chooses at run time (lib/mode.c).
BYPASS := $(B)/bypass
BYPASS_LIB_OBJS := $(filter $(B)/lib/obj/cm_% $(B)/lib/obj/rsocket_% \
	$(B)/lib/obj/addrinfo.o \
	$(B)/lib/obj/ioctl.o $(B)/lib/obj/ah_attr.o $(B)/lib/obj/strings.o \
	$(B)/lib/obj/system_verbs.o,$(LIB_OBJS))
BYPASS_OBJS := $(BYPASS_LIB_OBJS) $(BYPASS)/obj/mode.o \
	$(BYPASS)/obj/stubs.o
BYPASS_SO := $(BYPASS)/librdmacm.so.1
BYPASS_LIBDIR ?= $(LIBDIR)/rdmachan/bypass
RUN := $(B)/bin/rdmachan-run
MODE_TOOL := $(B)/bin/rdmachan-mode
STAT_TOOL := $(B)/bin/rdmachan-stat

.PHONY: all userland kselftest-install module lib compat selftests selftests-stock setup demo demo-vm check check-all clean install \
	install-module install-userland check-man deb \
	checkpatch bench FORCE check-debug check-siw check-stock check-pyverbs fuzz

all: module userland

# Everything but the module: what a release's root builds (vm/release-tree).
userland: lib compat $(STAT_TOOL) $(DEMO) $(BENCH) selftests $(FUZZ) $(RSOCKET_FUZZ) kselftest-install

# The tests as the kernel's selftest framework installs them
# (selftests/Makefile), for selftests/kselftest_install_test.sh.
kselftest-install: lib
	rm -rf $(B)/kselftest-install
	$(MAKE) -C selftests install INSTALL_PATH=$(CURDIR)/$(B)/kselftest-install

module:
	@test -n "$(KDIR)" || { echo "no kernel build directory: run 'make setup' or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

lib: $(LIB_SO) $(LIB_A) $(B)/lib/pkgconfig/librdmachan.pc

# What the system's rdma-core headers offer (lib/rdma_core_compat.h).
RDMA_CORE_PROBES := $(B)/rdma-core/rdma_core_probes.h
$(RDMA_CORE_PROBES): lib/probes/*.c $(wildcard /usr/include/infiniband/verbs.h)
	@mkdir -p $(dir $@)
	for p in lib/probes/*.c; do \
		n=$$(basename $$p .c); \
		if $(CC) $(USER_CFLAGS) -fsyntax-only $$p 2>/dev/null; \
		then echo "#define RDMACHAN_HAVE_$$n 1"; \
		else echo "/* RDMACHAN_HAVE_$$n: no */"; fi; \
	done >$@.tmp && mv $@.tmp $@

$(B)/lib/obj/%.o: lib/%.c lib/*.h uapi/rdmachan.h lib/include/rdmachan/rdmachan.h $(RDMA_CORE_PROBES)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(LIB_SO): $(LIB_OBJS) lib/librdmachan.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,librdmachan.so.$(SOVERSION) \
		-Wl,--version-script=lib/librdmachan.map -Wl,--no-undefined \
		-o $@ $(LIB_OBJS) -lpthread -ldl
	ln -sf librdmachan.so.$(SOVERSION) $(B)/lib/librdmachan.so

$(LIB_A): $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(B)/lib/pkgconfig/librdmachan.pc: lib/librdmachan.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< >$@

compat: $(COMPAT_SO) $(COMPAT)/librdmacm.so.1 $(BYPASS_SO) $(RUN) $(MODE_TOOL)

$(BYPASS)/compat.map $(BYPASS)/stubs.c &: compat/gen-compat $(COMPAT_SYMS)
	compat/gen-compat $(COMPAT_SYMS) $(BYPASS) librdmacm

$(BYPASS)/obj/stubs.o: $(BYPASS)/stubs.c $(RDMA_CORE_PROBES)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -fno-builtin -c -o $@ $<

$(BYPASS)/obj/mode.o: lib/bypass/mode.c lib/*.h $(RDMA_CORE_PROBES)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(BYPASS_SO): $(BYPASS_OBJS) $(BYPASS)/compat.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,librdmacm.so.1 \
		-Wl,--version-script=$(BYPASS)/compat.map -Wl,--no-undefined \
		-o $@ $(BYPASS_OBJS) -libverbs -lpthread -ldl

$(COMPAT_SYMS): compat/extract-symbols compat/merge-symbols $(RELEASE_SYMS)
	@mkdir -p $(dir $@)
	compat/extract-symbols >$@.native
	compat/merge-symbols $@.native $(RELEASE_SYMS) >$@.tmp
	mv $@.tmp $@

# One run writes both files (a grouped target, so make -j runs it once).
$(COMPAT)/compat.map $(COMPAT)/stubs.c &: compat/gen-compat $(COMPAT_SYMS)
	compat/gen-compat $(COMPAT_SYMS) $(COMPAT)

$(COMPAT)/obj/stubs.o: $(COMPAT)/stubs.c $(RDMA_CORE_PROBES)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -fno-builtin -c -o $@ $<

$(COMPAT)/obj/%.o: compat/%.c lib/*.h $(RDMA_CORE_PROBES)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(COMPAT_SO): $(COMPAT_LIB_OBJS) $(COMPAT_OBJS) $(COMPAT)/compat.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,libibverbs.so.1 \
		-Wl,--version-script=$(COMPAT)/compat.map -Wl,--no-undefined \
		-o $@ $(COMPAT_LIB_OBJS) $(COMPAT_OBJS) -lpthread -ldl

# A symlink, not a copy: the dynamic loader sees one object under both
# names, so a CM id's ibv_context is the one the ibv_* calls know.
$(COMPAT)/librdmacm.so.1: $(COMPAT_SO)
	ln -sf libibverbs.so.1 $@

# The system's libibverbs.so.1, whose presence bypass mode needs: where
# the compiler finds it (Debian's multiarch directory).
SYSTEM_VERBS := $(abspath $(shell $(CC) -print-file-name=libibverbs.so.1))

$(RUN): compat/rdmachan-run.in
	@mkdir -p $(dir $@)
	sed -e 's|@COMPATDIR@|$(CURDIR)/$(COMPAT)|' \
		-e 's|@BYPASSDIR@|$(CURDIR)/$(BYPASS)|' \
		-e 's|@MODETOOL@|$(CURDIR)/$(MODE_TOOL)|' \
		-e 's|@SYSTEMVERBS@|$(SYSTEM_VERBS)|' $< >$@
	chmod 755 $@

$(COMPAT)/rdmachan-run.install: compat/rdmachan-run.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@COMPATDIR@|$(COMPAT_LIBDIR)|' \
		-e 's|@BYPASSDIR@|$(BYPASS_LIBDIR)|' \
		-e 's|@MODETOOL@|$(COMPAT_LIBDIR)/rdmachan-mode|' \
		-e 's|@SYSTEMVERBS@|$(SYSTEM_VERBS)|' $< >$@

# librdmachan linked in, so that it runs from wherever it is installed.
$(MODE_TOOL): tools/rdmachan-mode.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) -lpthread -ldl

# Reads /proc only: no library.
$(STAT_TOOL): tools/rdmachan-stat.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) -o $@ $<

$(B)/bin/rdmachan-%: demo/%.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< $(LIB_LINK)

# The same benchmark sources against librdmachan and against rdma-core.
$(B)/bench/%-rdmachan: bench/%.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< $(LIB_LINK) -lpthread -ldl

$(B)/bench/%-stock: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< -lrdmacm -libverbs -lpthread -ldl

# The ioctl fuzzer: raw ioctls, no library (-lrt: timer_create before glibc
# 2.34, Debian 11).
$(FUZZ): $(wildcard fuzz/*.c fuzz/*.h) uapi/rdmachan.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $(filter %.c,$^) -lpthread -lrt

# The rsocket fuzzer: random rsocket(7) calls through librdmachan.
$(RSOCKET_FUZZ): fuzz/rsocket/rsocket_fuzz.c $(LIB_SO)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< $(LIB_LINK) -lpthread -ldl

$(B)/bench/libsyscount.so: bench/syscount.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl

selftests: $(SELFTESTS) $(B)/selftests/both-modes

# The rdma-core API tests run in both of librdmachan's modes (run-in-guest):
# bypass where the module offers it, and kernel-owned.
$(B)/selftests/both-modes: Makefile
	@mkdir -p $(dir $@)
	echo $(filter-out $(VERBS_FREE_SELFTESTS),$(API_SELFTESTS)) | tr ' ' '\n' >$@

$(B)/selftests/%: selftests/%.c selftests/*.h $(LIB_SO) uapi/rdmachan.h
	@test -r "$(LINUX_SRC)/tools/testing/selftests/kselftest_harness.h" || { echo "no kselftest_harness.h: run 'make setup'" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(LIB_LINK) -lpthread -ldl

# Exec'd as the user nobody from a descriptor (cm_qp_owner_test,
# qp_number_reuse_test), who may not reach the build tree's lib/:
# librdmachan is linked in.
$(B)/selftests/qp_owner_intruder $(B)/selftests/qp_reuse_victim: $(B)/selftests/%: selftests/%.c selftests/*.h $(LIB_A) uapi/rdmachan.h
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(LIB_A) -lpthread -ldl

# A plain socket program (compat_rsocket_programs_test.sh puts it on
# rsockets with librspreload): no RDMA library of its own.
$(B)/selftests/socket_echo: selftests/socket_echo.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $<

# Run as nobody by stat_test.sh from a copy outside the build tree.
$(B)/selftests/stat_holder: selftests/stat_holder.c selftests/*.h $(LIB_A) uapi/rdmachan.h
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(LIB_A) -lpthread -ldl

# Bypass mode's module side, and the module's rules beside uverbs': the
# system's libibverbs for the verbs, raw ioctls for the module; not
# librdmachan, whose ibv_* would take over.
UVERBS_SELFTESTS := $(B)/selftests/uapi_user_qp_test $(B)/selftests/uapi_qkey_test \
	$(B)/selftests/qp_number_reuse_test
$(UVERBS_SELFTESTS): $(B)/selftests/%: selftests/%.c selftests/*.h uapi/rdmachan.h
	@test -r "$(LINUX_SRC)/tools/testing/selftests/kselftest_harness.h" || { echo "no kselftest_harness.h: run 'make setup'" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< -libverbs -lpthread
$(B)/selftests/uapi_user_qp_test: $(B)/selftests/qp_owner_intruder
$(B)/selftests/qp_number_reuse_test: $(B)/selftests/qp_reuse_victim

# compat_*_test: built against rdma-core's librdmacm/libibverbs like the
# stock programs, run on the drop-in libraries through their run path.
$(B)/selftests/compat_%: selftests/compat_%.c selftests/*.h $(COMPAT_SO) $(COMPAT)/librdmacm.so.1
	@test -r "$(LINUX_SRC)/tools/testing/selftests/kselftest_harness.h" || { echo "no kselftest_harness.h: run 'make setup'" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/../compat' \
		-lrdmacm -libverbs -lpthread -ldl

selftests-stock: $(STOCK_SELFTESTS)

$(B)/selftests-stock/%: selftests/%.c selftests/*.h
	@test -r "$(LINUX_SRC)/tools/testing/selftests/kselftest_harness.h" || { echo "no kselftest_harness.h: run 'make setup'" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -DRDMACHAN_TEST_STOCK -o $@ $< -lrdmacm -libverbs -lpthread -ldl

setup:
	vm/setup

# Both run against the VM's kernel, whatever the host runs. The demo sets
# up and builds only what it runs: no release roots, no tests.
demo:
	vm/setup --host
	$(MAKE) demo-vm
	vm/run -- sh -c '$(B)/bin/rdmachan-devinfo && $(B)/bin/rdmachan-connect'

demo-vm:
	$(MAKE) KDIR=$(VM_KDIR) module $(DEMO)

bench: setup
	$(MAKE) all-vm $(BENCH)
	vm/run --timeout 7200 --mem 4096 --logdir $(B)/vm-bench -- bench/run

# selftests/check builds the module itself, to see every W=1 warning.
# KERNEL=bullseye|trixie|sid (or 11, 13, unstable): the whole suite on that
# Debian release's own kernel and userland instead (selftests/check-release).
check: setup
ifeq ($(filter-out bookworm 12 debian12,$(KERNEL)),)
	$(MAKE) -j2 KDIR=$(VM_KDIR) userland
	selftests/check
else
	selftests/check-release $(KERNEL)
endif

# The whole suite on Debian 12 (make check), then on 11, 13 and unstable.
check-all: setup
	$(MAKE) check
	selftests/check-release bullseye
	selftests/check-release trixie
	vm/setup-release sid
	selftests/check-release sid

# The rdma-core API tests on the stock stack (rdma_ucm, ib_uverbs, rxe
# provider), built against librdmacm/libibverbs: what rdmachan must match.
check-stock: setup
	$(MAKE) selftests-stock
	vm/run --no-module --logdir $(B)/vm-stock -- selftests/run-in-guest --stock

# rdma-core's Python suite (python3-pyverbs) in bypass mode against stock.
check-pyverbs: setup
	$(MAKE) KDIR=$(VM_KDIR) lib compat
	vm/run --timeout 1800 --logdir $(B)/vm-pyverbs -- selftests/pyverbs-bypass

# The suite under a KASAN/lockdep/kmemleak kernel, built once and cached.
check-debug: setup
	$(MAKE) KDIR=$(VM_KDIR) userland
	selftests/check-debug

# iWARP: soft-iWARP (siw0), which only the debug kernel builds.
check-siw: setup
	$(MAKE) KDIR=$(VM_KDIR) userland selftests-stock
	selftests/check-siw

# The fuzzer alone, long (FUZZ_SECONDS, default 3600), in the debug guest.
fuzz: setup
	$(MAKE) KDIR=$(VM_KDIR) $(FUZZ) $(RSOCKET_FUZZ)
	fuzz/run $(if $(FUZZ_SECONDS),-t $(FUZZ_SECONDS)) $(FUZZ_ARGS)

all-vm:
	$(MAKE) KDIR=$(VM_KDIR) all

checkpatch:
	perl $(LINUX_SRC)/scripts/checkpatch.pl --no-tree --strict --terse \
		-f kmod/*.c kmod/*.h kmod/compat/*.h kmod/compat/probes/*.c kmod/compat/private/*.h uapi/*.h

# install-module: the module, as modules_install does; install-userland:
# everything else (the Debian packages' build uses only that, DKMS builds
# the module).
install: install-module install-userland

install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install

install-userland: lib compat $(STAT_TOOL) $(COMPAT)/rdmachan-run.install
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/rdmachan
	install -m 644 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf librdmachan.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/librdmachan.so
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(B)/lib/pkgconfig/librdmachan.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 644 lib/include/rdmachan/rdmachan.h $(DESTDIR)$(INCLUDEDIR)/rdmachan/
	install -m 644 uapi/rdmachan.h $(DESTDIR)$(INCLUDEDIR)/rdmachan/uapi.h
	install -d $(DESTDIR)$(COMPAT_LIBDIR) $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(COMPAT_SO) $(DESTDIR)$(COMPAT_LIBDIR)/
	ln -sf libibverbs.so.1 $(DESTDIR)$(COMPAT_LIBDIR)/librdmacm.so.1
	install -d $(DESTDIR)$(BYPASS_LIBDIR)
	install -m 644 $(BYPASS_SO) $(DESTDIR)$(BYPASS_LIBDIR)/
	install -m 755 $(MODE_TOOL) $(DESTDIR)$(COMPAT_LIBDIR)/
	install -m 755 $(COMPAT)/rdmachan-run.install $(DESTDIR)$(PREFIX)/bin/rdmachan-run
	install -m 755 $(STAT_TOOL) $(DESTDIR)$(PREFIX)/bin/rdmachan-stat
	install -D -m 644 udev/90-rdmachan.rules $(DESTDIR)$(UDEV_RULES_DIR)/90-rdmachan.rules
	for page in $(MAN_PAGES); do \
		sec=$${page##*.}; \
		install -D -m 644 $$page $(DESTDIR)$(MANDIR)/man$$sec/$$(basename $$page); \
	done
	for fn in rdmachan_query_cq_events rdmachan_query_srq_events; do \
		ln -sf rdmachan_query_qp_events.3 $(DESTDIR)$(MANDIR)/man3/$$fn.3; \
	done

# The Debian packages (debian/), built from a copy of the tracked sources
# in build/deb/, where the .deb files land.
DEB_SRC := $(B)/deb/rdmachan-$(VERSION)
deb:
	rm -rf $(B)/deb
	mkdir -p $(DEB_SRC)
	if [ -d .git ]; then git ls-files -z | xargs -0 cp --parents -t $(DEB_SRC); \
	else tar -c --exclude=./build --exclude='*.o' --exclude='*.ko' . | tar -x -C $(DEB_SRC); fi
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b >../build.log 2>&1 || { tail -n 30 ../build.log; exit 1; }
	lintian --fail-on error,warning $(B)/deb/*.changes

# Each page rendered as man(1) would, with every groff warning an error.
check-man:
	for page in $(MAN_PAGES); do \
		out=$$(LC_ALL=C.UTF-8 MANWIDTH=80 groff -man -ww -z -Tutf8 $$page 2>&1; \
			mandoc -T lint -W warning $$page 2>&1); \
		[ -z "$$out" ] || { echo "$$page:"; echo "$$out"; exit 1; }; \
	done

clean:
	for w in $(wildcard $(B)/release-* $(B)/package-*); do vm/release-tree --umount $$w; done
	rm -rf $(B) kmod/compat/generated
	rm -f rdmachan.ko rdmachan.mod rdmachan.mod.c rdmachan.mod.o rdmachan.o \
		modules.order Module.symvers .*.cmd kmod/*.o kmod/.*.cmd
