# SPDX-License-Identifier: GPL-2.0
#
# ddsm top-level build.  `make` builds the module against Debian's kernel
# headers, libddsm, the tools and the test programs; `make demo` and
# `make check` are the README's two commands.
#
# Variables (all overridable):
#   KVER       Debian kernel version (default: newest linux-headers-*-amd64)
#   KDIR       kernel build tree (default: /usr/src/linux-headers-$(KVER))
#   BUILD_DIR  where every generated artefact goes (default: ./build)
#   W, C       passed to Kbuild (W=1 extra warnings, C=1 sparse)
#   PREFIX     `make install` prefix (default /usr/local), DESTDIR honoured;
#              SYSCONFDIR (default /etc), MANDIR (default $(PREFIX)/share/man)
#              and the directories of userlib/Makefile, tools/Makefile,
#              tools/packaging/Makefile

ifneq ($(KERNELRELEASE),)
include $(src)/Kbuild
else

SRC        := $(CURDIR)
BUILD_DIR  ?= $(SRC)/build
KVER       ?= $(shell $(SRC)/tools/kver.sh 2>/dev/null)
KDIR       ?= /usr/src/linux-headers-$(KVER)
STAGE      := $(BUILD_DIR)/stage
PREFIX     ?= /usr/local
MANDIR     ?= $(PREFIX)/share/man
export BUILD_DIR KVER KDIR STAGE PREFIX

.PHONY: all module module-selftest userlib tools testprogs stage setup demo \
	check kunit layout-check docs-img \
	vmtests clean distclean checkpatch soak check-debug check-plants bench bench-pmem bench-tx bench-tx-ab bench-tx-pairs install deb

all: module userlib tools testprogs

# The production module: what DKMS builds and users load.
module:
	@test -n "$(KVER)" || { echo "no kernel headers: run tools/setup-host.sh"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(SRC) modules

# The self-test build (DDSM_SELFTEST=y: test-only knobs, the transport's
# self-test, the pmem crash files; Kbuild), out of a copy of the sources:
# one out-of-tree directory builds one configuration.  Rebuilt only when
# a source changed.
SELFTEST_DIR := $(BUILD_DIR)/selftest
KSRCS = Kbuild $(shell find kernel include -type f -name '*.[ch]')

module-selftest: $(SELFTEST_DIR)/ddsm.ko

$(SELFTEST_DIR)/ddsm.ko: $(KSRCS)
	@test -n "$(KVER)" || { echo "no kernel headers: run tools/setup-host.sh"; exit 1; }
	bash tools/mirror-src.sh $(SRC) $(SELFTEST_DIR)
	$(MAKE) -C $(KDIR) M=$(SELFTEST_DIR) DDSM_SELFTEST=y modules

# kernel/'s shape (docs/design.md, "Layers"): in both module builds no
# circle of files calling each other but the allowed one, no file over
# 800 lines, no function over 80 without a reason, no #include out of
# kernel/ and include/ (tools/layout-check.py; the packaging component of
# make check runs it on make deb's copy of the tree).
layout-check: module module-selftest
	python3 tools/layout-check.py --build $(SRC) --build $(SELFTEST_DIR)

# The picture docs/design.md opens with, from its graphviz source
# (apt-get install graphviz; tools/setup-host.sh installs it).
DOCS_IMG := docs/img/layers.svg docs/img/layers.png

docs-img: $(DOCS_IMG)

docs/img/%.svg: docs/img/%.dot
	dot -Tsvg -o $@ $<

docs/img/%.png: docs/img/%.dot
	dot -Tpng -Gdpi=96 -o $@ $<

userlib:
	$(MAKE) -C userlib

tools: userlib
	$(MAKE) -C tools
	$(MAKE) -C tools/workloads

testprogs: userlib
	$(MAKE) -C tests/vm
	$(MAKE) -C tests/workloads_host

# What goes into the guests' initramfs: /ddsm/{ddsm.ko,bin,lib,tests,bench}, the
# self-test build as /ddsm/ddsm.ko (the tests that need its knobs load it)
# and the production one as /ddsm/production/ddsm.ko (packaging, deploy
# and demo load what users get).
stage: all module-selftest
	rm -rf $(STAGE)
	mkdir -p $(STAGE)/ddsm/bin $(STAGE)/ddsm/lib $(STAGE)/ddsm/tests \
		$(STAGE)/ddsm/production
	cp $(SELFTEST_DIR)/ddsm.ko $(STAGE)/ddsm/
	cp ddsm.ko $(STAGE)/ddsm/production/
	$(MAKE) -C userlib stage
	$(MAKE) -C tools stage
	$(MAKE) -C tools/workloads stage
	$(MAKE) -C tests/vm stage
	$(MAKE) -C tools/bench stage

setup:
	bash tools/setup-host.sh

# libddsm, ddsmctl, man pages, udev rule, systemd unit, sysusers.d file
# (the group ddsm), bash completion, examples; the module itself is
# installed by DKMS (ddsm-dkms, tools/packaging/).  The configuration is
# read from $(SYSCONFDIR)/ddsm/cluster.conf, /etc by default whatever
# PREFIX is, as the packages do.  `man ddsm_open` and the like lead to
# libddsm(3): one link page per function libddsm.h declares.
SYSCONFDIR ?= /etc
export SYSCONFDIR
LIBDDSM_FUNC_RE := s/^[a-z][^(]*[ *]\(ddsm_[a-z_]*\)(.*/\1/p
LIBDDSM_FUNCS = $(shell sed -n '$(LIBDDSM_FUNC_RE)' userlib/ddsm/libddsm.h)

install:
	$(MAKE) -C userlib install
	$(MAKE) -C tools install
	$(MAKE) -C tools/packaging install
	install -d $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man4 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 docs/man/libddsm.3 $(DESTDIR)$(MANDIR)/man3/
	for f in $(LIBDDSM_FUNCS); do \
		echo '.so man3/libddsm.3' > $(DESTDIR)$(MANDIR)/man3/$$f.3 || exit 1; \
	done
	install -m 0644 docs/man/ddsm.4 $(DESTDIR)$(MANDIR)/man4/
	install -m 0644 docs/man/ddsm-cluster.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 docs/man/ddsmctl.8 $(DESTDIR)$(MANDIR)/man8/

# ddsm-dkms, libddsm1, libddsm-dev, ddsm-tools in $(BUILD_DIR)/deb.
deb:
	bash tools/packaging/mkdeb.sh

demo: setup
	$(MAKE) stage
	bash qemu/demo.sh

check: setup
	$(MAKE) stage
	bash tests/run.sh

# The load test for 30 minutes, a busy loop beside the traffic on every
# guest, then coherence, evict, litmus, txbench (HADES SmallBank: 100,000
# transactions) and fuzz with more work than
# make check gives them, the model checker's full set (about 20 minutes
# more on the 2-core host), and startup with 20 load cycles per cluster.
soak: setup
	$(MAKE) stage
	DDSM_TESTS="load coherence evict litmus txbench fuzz model startup" LOAD_NODES=$${LOAD_NODES:-4} \
		MODEL_CHECK=check-full STARTUP_CYCLES=$${STARTUP_CYCLES:-20} \
		LOAD_SECONDS=$${LOAD_SECONDS:-1800} LOAD_HOG=$${LOAD_HOG:-1} \
		COUNTER_ROUNDS=$${COUNTER_ROUNDS:-10000} \
		EVICT_UNITS=$${EVICT_UNITS:-4096} \
		LITMUS_ITERS=$${LITMUS_ITERS:-5000} \
		TX_OPS=$${TX_OPS:-2000} TX_SB_TOTAL=$${TX_SB_TOTAL:-100000} \
		FUZZ_OPS=$${FUZZ_OPS:-100000} \
		bash tests/run.sh

# tools/workloads on 1-4 nodes, with plots (tools/bench/workloads/host.sh).
bench: setup
	$(MAKE) stage
	bash tools/bench/workloads/host.sh

# Each persistency model's cost on 3 nodes with NVDIMMs, against Eventual
# and DRAM only (docs/benchmarks.md, "Persistency models"); about 5 min.
bench-pmem: setup
	$(MAKE) stage
	bash tools/bench/pmem/host.sh

# HADES transactions against the software OCC baseline, 3 nodes, both
# backends in one boot (tools/bench/tx/host.sh, about 13 minutes: loading the
# HADES tables is one transaction per record).
bench-tx: setup
	$(MAKE) stage
	bash tools/bench/tx/host.sh

# A change to the transactions judged paired: HEAD's module against the
# working tree's, one after the other, 3 rounds (tools/bench/tx-ab/host.sh,
# BASE=rev to compare with another; about 10 minutes).
bench-tx-ab: setup
	bash tools/bench/tx-ab/host.sh $(BASE)

# HADES / OCC on one workload over many alternating pairs in one boot,
# with a 95% interval (tools/bench/tx-pairs/host.sh, TXB_PAIRS=10: about 16
# minutes).
bench-tx-pairs: setup
	$(MAKE) stage
	bash tools/bench/tx-pairs/host.sh

# The VM suites on a lockdep+KASAN guest kernel built once from Debian's
# linux-source and cached outside the checkout (tests/run-debug.sh).
check-debug: setup
	bash tests/run-debug.sh

# Issue 33's fixes undone one at a time in copies of the committed tree,
# each caught by the component that tests it (tests/plants/plants.md).
check-plants: setup
	bash tests/plants/run.sh

kunit: setup
	bash tests/kunit/host.sh

checkpatch:
	bash tools/checkpatch.sh

clean:
	$(MAKE) -C $(KDIR) M=$(SRC) clean 2>/dev/null || true
	rm -rf $(SELFTEST_DIR)
	$(MAKE) -C userlib clean
	$(MAKE) -C tools clean
	$(MAKE) -C tools/workloads clean
	$(MAKE) -C tests/vm clean
	$(MAKE) -C tests/workloads_host clean

distclean: clean
	rm -rf $(BUILD_DIR)

endif
