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
# ... and one built with EBPF_TEST_FAULTS (dies at a named point,
# umh/lib/test_faults.c; also the soak's).
EBPF_KO_FAULTS=${EBPF_KO_FAULTS:-build/kmod-faults/$KVER/ebpfilter.ko}
SOCKOPT_REQ=${SOCKOPT_REQ:-build/tests/sockopt-req}

# Install the module under test where modprobe finds it (the guest's root
# is a throwaway overlay).
ebpf_install() {
	[ -f "$EBPF_KO" ] || fail "no module at $EBPF_KO (run make)"
	mkdir -p "/lib/modules/$KVER/updates"
	cp "$EBPF_KO" "/lib/modules/$KVER/updates/ebpfilter.ko"
	modindex_install || depmod -a "$KVER" || fail "depmod"
	cp packaging/modprobe.d/ebpfilter.conf /etc/modprobe.d/ebpfilter.conf
}

# The module index prepared on the host at build time
# (tests/tools/prepare-modindex: depmod over the whole tree takes a minute
# in a TCG guest), copied into the guest's overlay; 1 if there is none.
# Also what modprobe of in-tree modules should read: the host's own index
# is live, and a depmod there (a DKMS install on this shared machine) while
# a guest runs has given "Module ip_tables not found".
modindex_install() {
	[ -f "build/modindex/$KVER/modules.dep" ] || return 1
	cp build/modindex/"$KVER"/modules.* "/lib/modules/$KVER/"
}

# The helpers' pids (pgrep -x ebpfilter-umh), read with builtins: these
# run in every poll of many tests, and under TCG an exec costs 150-250 ms
# (2026-12-06, 6.12 guest: bash -c true 273 ms, printf | sed 246 ms).
helper_pids() {
	local f c
	for f in /proc/[0-9]*/comm; do
		{ read -r c <"$f"; } 2>/dev/null || continue
		[ "$c" = ebpfilter-umh ] || continue
		f=${f#/proc/}
		echo "${f%/comm}"
	done
}

helper_count() {
	local pids
	pids=$(helper_pids)
	set -- $pids
	echo $#
}

# assert_new_helper OLD: after a kill -9 of helper OLD and a request, one
# helper runs and it is a new one (else the request was served by nothing
# that restarted, and a "same state after the restart" check saw no restart)
assert_new_helper() {
	local new
	new=$(helper_pids)
	[ -n "$new" ] && [ "$new" != "$1" ] && [ "$(helper_count)" = 1 ] ||
		fail "no new helper after killing pid $1: now '$(echo $new)'"
}

# bpf_count prog|map|link REGEX: how many objects bpftool lists whose line
# matches REGEX; fails the test when bpftool itself fails, so a broken
# bpftool cannot read as "0 objects left".  In $(...), fail ends only the
# subshell: call it as n=$(bpf_count ...) || exit 1
bpf_count() {
	local out line n=0
	out=$(${BPFTOOL:-bpftool} "$1" show 2>&1) || fail "bpftool $1 show failed: $out"
	while IFS= read -r line; do
		[[ $line =~ $2 ]] && n=$((n + 1))
	done <<<"$out"
	echo $n
}

# AF_UNIX sockets system-wide (kernel-made ones included): a leaked
# channel or vault socket shows up here.
unix_sockets() {
	local lines
	mapfile -t lines </proc/net/unix
	echo $((${#lines[@]} - 1))
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
	out=$("$SOCKOPT_REQ" served) || return 1
	[ "$out" = "ok 0" ]
}

# Nothing of ebpfilter may remain: module, helper, mounts, open files.
# Read with builtins but for one find (bash cannot read a symlink): the
# soak's cycles call it a thousand times, and under TCG the four execs it
# made were 1.3-2 s of a 3.5-4.5 s load/unload cycle (2026-12-07).
assert_nothing_left() {
	local f l
	mapfile -t l </proc/modules
	# grep -w: "ebpfilter" as a word, in any column (a module using it too)
	[[ " ${l[*]} " =~ [^[:alnum:]_]ebpfilter[^[:alnum:]_] ]] && fail "module still loaded"
	[ "$(helper_count)" = 0 ] || fail "helper process left: $(helper_pids)"
	for f in /proc/[0-9]*/mountinfo; do
		{ mapfile -t l <"$f"; } 2>/dev/null || continue	# the process is gone
		[[ "${l[*]}" == *ebpfilter* ]] && fail "mount left: in $f"
	done
	[ -z "$(find /proc/[0-9]*/fd -lname '*ebpfilter-umh*' -print -quit 2>/dev/null)" ] ||
		fail "an open file of the helper image is left"
	return 0
}
