# SPDX-License-Identifier: GPL-2.0
#
# ebpfilter: top-level build.
#
#   make                 helper (once) + ebpfilter.ko for KVER
#   make KVER=...        choose the kernel (default: newest installed headers)
#   make modules-all     ebpfilter.ko for every kernel with headers installed
#   make check           the whole test suite (host + QEMU guests, all kernels:
#                        6.12 reduced, the smoke tier on other suites' kernels)
#   make check-all       every test on every kernel (make check KERNELS=all)
#   make soak            the reliability soak (tests/soak/run; not in CI):
#                        SOAK_SCALE=small|full, SOAK_KERNELS, SOAK_PARTS;
#                        writes docs/reliability.md
#   make demo            build, boot a guest, show ebpfilter at work
#   make deps            install what the two above need (run by them)
#
# The helper (umh/) does not depend on the kernel: it is built once and
# every module build links the same image.  Modules are built out of tree
# in build/kmod/KVER/ so that several kernels can be served from one tree.

# The one version of everything (module, helper, DKMS, package): VERSION.
VERSION := $(shell cat VERSION)

# Kernels whose headers are installed, oldest first.
KVERS_INSTALLED := $(shell for d in /lib/modules/*/build; do \
	[ -e "$$d/Module.symvers" ] && basename "$$(dirname "$$d")"; done | sort -V)
KVER ?= $(lastword $(KVERS_INSTALLED))
KVERS ?= $(KVERS_INSTALLED)

include mk/quiet.mk

HELPER := umh/ebpfilter-umh
KMOD_SRCS := $(wildcard kmod/*.c kmod/*.h kmod/*.S) kmod/Kbuild \
	     $(wildcard kmod/compat/*)

all: module

helper:
	@$(MAKE) --no-print-directory -C umh

$(HELPER): helper

# build/kmod/KVER/: a directory of links to kmod/, built against KVER.
# EBPF_HELPER_IMAGE selects a different helper image (tests use this).
EBPF_HELPER_IMAGE ?= $(CURDIR)/$(HELPER)
KMOD_BUILD ?= build/kmod

module: helper
	@$(MAKE) --no-print-directory module-for KVER=$(KVER)

# A kernel of another Debian suite (mk/kernels.conf) is built in its chroot,
# with its own compiler (mk/kernel-chroot); every other one here.
module-for:
	@test -n "$(KVER)" || { echo "no kernel headers installed (linux-headers-*)" >&2; exit 1; }
	@if [ -z "$(EBPF_IN_CHROOT)" ] && mk/kernel-chroot listed $(KVER); then \
		mk/kernel-chroot dir $(KVER) >/dev/null || { echo "kernel $(KVER) is not set up: run mk/kernel-chroot setup $(KVER)" >&2; exit 1; }; \
		exec mk/kernel-chroot run $(KVER) $(MAKE) --no-print-directory module-for \
			KVER=$(KVER) KMOD_BUILD=$(KMOD_BUILD) EBPF_HELPER_IMAGE=$(EBPF_HELPER_IMAGE) \
			EBPF_IN_CHROOT=1 V=$(V); \
	fi; \
	test -e /lib/modules/$(KVER)/build/Module.symvers || \
		{ echo "no headers for kernel $(KVER): install linux-headers-$(KVER)" >&2; exit 1; }; \
	mkdir -p $(KMOD_BUILD)/$(KVER)/compat; \
	for f in $(KMOD_SRCS); do ln -sf $(CURDIR)/$$f $(KMOD_BUILD)/$(KVER)/$${f#kmod/}; done; \
	$(MAKE) -C /lib/modules/$(KVER)/build M=$(abspath $(KMOD_BUILD)/$(KVER)) \
		EBPF_ROOT=$(CURDIR) EBPF_HELPER=$(EBPF_HELPER_IMAGE) $(if $(filter 1,$(V)),V=1) modules && \
	echo "built $(KMOD_BUILD)/$(KVER)/ebpfilter.ko"

modules-all: helper
	@for k in $(KVERS); do $(MAKE) --no-print-directory module-for KVER=$$k || exit 1; done

# What a fresh machine lacks, installed once (.ci/install-deps, as root);
# run again only when that script changed since its last run.
DEPS_STAMP := /var/cache/ebpfilter/deps.stamp
deps:
	@want=$$(sha256sum <.ci/install-deps | cut -c1-16); \
	if [ "$$(cat $(DEPS_STAMP) 2>/dev/null)" != "$$want" ]; then \
		if [ "$$(id -u)" != 0 ]; then \
			echo "ebpfilter: this machine lacks build and test dependencies: run 'sudo make deps' once" >&2; \
			exit 1; \
		fi; \
		echo "== installing what this machine lacks (.ci/install-deps: apt, the kernels' chroots)"; \
		bash .ci/install-deps; \
	fi

# KERNELS=all: every guest test, every part, on every kernel (default:
# Debian 12's default kernel runs the core tier, its newer kernel the
# reduced tier, the kernels of other suites the smoke tier,
# mk/kernels.conf; tests/README.md)
check: deps
	@$(MAKE) --no-print-directory helper
	$(Q)KERNELS=$(KERNELS) tests/run-all

# every guest test on every kernel (what check runs on Debian 12's own)
check-all: deps
	@$(MAKE) --no-print-directory check KERNELS=all

demo: deps
	@$(MAKE) --no-print-directory helper
	$(Q)tests/demo

# the reliability soak: hours at SOAK_SCALE=full, minutes at small
soak: deps
	@$(MAKE) --no-print-directory helper
	$(Q)tests/soak/run

clean:
	$(MAKE) -C umh clean
	$(MAKE) -C tests clean
	rm -rf build/kmod build/kmod-faults build/tests build/soak
	rm -f kmod/*.o kmod/*.ko kmod/*.mod* kmod/.*.cmd kmod/Module.symvers kmod/modules.order
	rm -rf kmod/compat/generated

distclean: clean
	$(MAKE) -C umh distclean
	rm -rf build

.PHONY: all helper module module-for modules-all deps check check-all demo soak clean distclean
