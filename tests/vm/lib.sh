# SPDX-License-Identifier: GPL-2.0
# Small helpers for guest test scripts (run as root inside a run-guest VM,
# cwd = repo root).  Source it:   . tests/vm/lib.sh
#
#   kver                      print the running kernel's version
#   in_guest                  true inside a run-guest VM (RUN_GUEST=1)
#   require_guest             fail unless in a run-guest VM (never touch the host kernel)
#   fail MSG...               print "FAIL: MSG" to stderr, exit 1
#   skip MSG...               print "SKIP: MSG", exit 77: the whole test does
#                             not apply here (counted as skipped, never passed)
#   skip_part WHAT MSG...     print "SKIP WHAT: MSG" and go on: one part of the
#                             test did not run (run-all counts each such line
#                             as one skipped check)
#   timing_fail MSG...        print "TIMING: MSG", exit 75: a failure the test
#                             itself knows is TCG timing (a retransmission, a
#                             stalled guest); the only status run-all reruns
#   note MSG...               print "--- MSG"
#   assert_eq WANT GOT [WHAT] fail unless the two strings are equal
#   assert_ok CMD...          fail unless CMD succeeds
#   assert_fail CMD...        fail unless CMD fails
#   load_module KO [PARAMS]   copy KO to /lib/modules/$(uname -r)/updates/,
#                             depmod, modprobe it (with PARAMS); the guest's
#                             root is a throwaway overlay, the host is untouched.
#                             depmod in the guest is SLOW (40 s on 6.1, minutes
#                             on 6.12): pass the module to run-guest with
#                             --module KO instead, which installs it and runs
#                             depmod on the host; load_module then finds the
#                             identical file in updates/ and only modprobes.
#   dmesg_mark                write a unique mark line to /dev/kmsg
#   dmesg_since_mark          print kernel log lines after the last mark
#   wait_for SECS CMD...      poll CMD every 0.1 s until it succeeds (1 on timeout)
#
# Exit codes seen by the test runner: 0 pass, 1 fail (fail/assert_*), 77
# skipped (skip), 75 timing failure (timing_fail; rerun once), any other
# nonzero = whatever the script returned (a failure); run-guest adds 123
# (kernel warnings in strict mode), 124 (timeout), 125 (guest died), which
# are failures and never rerun.

kver() { uname -r; }

# tier_reduced: true when tests/run-all runs this test in a tier other than
# "full" (EBPF_TIER: "core" on Debian 12's default kernel in `make check`,
# "reduced" on its other kernel, "smoke" on other suites' kernels): a test
# with sized parts (sets, sessions, rounds) runs its smaller, documented
# subset then, so `make check` runs every feature on every kernel within
# the CI budget (`make check-all`: every part everywhere).
tier_reduced() { [ "${EBPF_TIER:-full}" != full ]; }
# tier_core: the core tier (Debian 12's default kernel in `make check`),
# where a test whose subsets the other kernels run may run the rest, so
# that `make check` runs every part of it somewhere
tier_core() { [ "${EBPF_TIER:-full}" = core ]; }

in_guest() { [ "${RUN_GUEST:-}" = 1 ]; }

require_guest() {
	in_guest || fail "must run inside a run-guest VM (tests/vm/run-guest -- $0)"
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

skip_part() {
	echo "SKIP $*"
}

timing_fail() {
	echo "TIMING: $*"
	exit 75
}

note() { echo "--- $*"; }

assert_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: expected '$1', got '$2'"
}

assert_ok() {
	"$@" || fail "command failed (exit $?): $*"
}

assert_fail() {
	! "$@" || fail "command unexpectedly succeeded: $*"
}

load_module() {
	local ko=$1 name dir
	shift
	require_guest
	[ -f "$ko" ] || fail "load_module: no file $ko"
	name=$(basename "$ko")
	name=${name%%.ko*}
	dir=/lib/modules/$(uname -r)/updates
	if ! cmp -s "$ko" "$dir/$(basename "$ko")"; then
		echo "load_module: $ko not installed by run-guest --module; running depmod in the guest (slow)" >&2
		mkdir -p "$dir" || fail "load_module: mkdir $dir"
		cp "$ko" "$dir/" || fail "load_module: cp $ko"
		depmod -a || fail "load_module: depmod"
	fi
	modprobe "$name" "$@" || fail "load_module: modprobe $name $*"
}

dmesg_mark() {
	DMESG_MARK="run-guest-mark-$$-$RANDOM-$RANDOM"
	echo "$DMESG_MARK" >/dev/kmsg
}

dmesg_since_mark() {
	local log
	[ -n "${DMESG_MARK:-}" ] || fail "dmesg_since_mark without dmesg_mark"
	log=$(dmesg | sed -n "/$DMESG_MARK/,\$p")
	# a mark the ring buffer overwrote would read as "nothing since"
	[ -n "$log" ] || fail "the kernel log no longer holds the dmesg mark (its ring buffer wrapped)"
	echo "$log" | sed 1d
}

wait_for() {
	local limit=$(($1 * 10)) i=0
	shift
	until "$@"; do
		i=$((i + 1))
		[ $i -ge $limit ] && return 1
		sleep 0.1
	done
}

# skip_unless_kbuild_cc: skip (77) when the compiler the running kernel's
# kbuild calls (its headers' CONFIG_CC_VERSION_TEXT, e.g.
# x86_64-linux-gnu-gcc-14) is not in this userland: the kernels of other
# Debian suites (mk/kernels.conf: 7.3 with gcc-14) boot with the build
# machine's Debian 12 userland, where nothing (DKMS) can build for them.
skip_unless_kbuild_cc() {
	local k cc
	k=$(uname -r)
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ "]*\).*/\1/p' \
		"/lib/modules/$k/build/.config" 2>/dev/null)
	[ -n "$cc" ] || return 0
	command -v "$cc" >/dev/null ||
		skip "$k's kbuild calls $cc, which this userland lacks: nothing can build a module for it here (its module is built in its chroot, mk/kernel-chroot)"
}
