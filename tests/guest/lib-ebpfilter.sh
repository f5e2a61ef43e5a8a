# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests of ebpfilter.ko; sourced by tests/guest/*.sh,
# which run as root inside a QEMU guest (tests/vm/run-guest), never on the
# build machine's own kernel.  fail, note, dmesg_mark, dmesg_since_mark
# and wait_for come from the harness's tests/vm/lib.sh.
set -u
. tests/vm/lib.sh

KVER=$(uname -r)
# The module under test: what `make` (and DKMS) built for this kernel.
EBPF_KO=${EBPF_KO:-build/kmod/$KVER/ebpfilter.ko}
# The same module carrying a helper built with EBPF_TEST_BAD_HELLO.
EBPF_KO_BADHELLO=${EBPF_KO_BADHELLO:-build/kmod-badhello/$KVER/ebpfilter.ko}
# ... and one built with EBPF_TEST_SIGSYS (a forbidden system call on SIGUSR1).
EBPF_KO_SIGSYS=${EBPF_KO_SIGSYS:-build/kmod-sigsys/$KVER/ebpfilter.ko}
SOCKOPT_REQ=${SOCKOPT_REQ:-build/tests/sockopt-req}

# Install the module under test where modprobe finds it (the guest's root
# is a throwaway overlay).
ebpf_install() {
	[ -f "$EBPF_KO" ] || fail "no module at $EBPF_KO (run make)"
	mkdir -p "/lib/modules/$KVER/updates"
	cp "$EBPF_KO" "/lib/modules/$KVER/updates/ebpfilter.ko"
	# The index was prepared on the host (tests/tools/prepare-modindex):
	# depmod over the whole tree takes a minute in a TCG guest.
	if [ -f "build/modindex/$KVER/modules.dep" ]; then
		cp build/modindex/"$KVER"/modules.* "/lib/modules/$KVER/"
	else
		depmod -a "$KVER" || fail "depmod"
	fi
	cp packaging/modprobe.d/ebpfilter.conf /etc/modprobe.d/ebpfilter.conf
}

helper_pids() {
	pgrep -x ebpfilter-umh || true
}

helper_count() {
	helper_pids | wc -l
}

# AF_UNIX sockets system-wide (kernel-made ones included): a leaked
# channel or vault socket shows up here.
unix_sockets() {
	tail -n +2 /proc/net/unix | wc -l
}

shmem_kb() {
	awk '/^Shmem:/ { print $2 }' /proc/meminfo
}

dmesg_has() {
	dmesg_since_mark | grep -q -- "$1"
}

# One iptables control request (a revision query) through the module.
request_ok() {
	local out
	out=$("$SOCKOPT_REQ" rev-match tcp) || return 1
	[ "$out" = "ok 0" ]
}

# Nothing of ebpfilter may remain: module, helper, mounts, open files.
assert_nothing_left() {
	! grep -qw ebpfilter /proc/modules || fail "module still loaded"
	[ "$(helper_count)" = 0 ] || fail "helper process left: $(helper_pids)"
	! grep -q ebpfilter /proc/*/mountinfo 2>/dev/null || fail "mount left"
	! ls -l /proc/[0-9]*/fd 2>/dev/null | grep -q ebpfilter-umh ||
		fail "an open file of the helper image is left"
}
