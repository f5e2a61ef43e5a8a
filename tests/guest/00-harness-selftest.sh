#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Proves the run-guest harness itself: writable overlay root that leaves the
# host alone, fresh pseudo filesystems, in-tree module loading, network
# namespaces, dmesg marks.  Host-side checks (exit codes, crash, timeout)
# are in tests/vm/selftest.
set -eu
. tests/vm/lib.sh
require_guest

note "kernel $(kver), cwd $PWD"
assert_eq "$RUN_GUEST_REPO" "$PWD" "cwd"
assert_eq 0 "$(id -u)" "uid"
[ -d tests/vm ] || fail "repo not visible in the guest"

note "root overlay is writable, in-guest only"
probe=/usr/share/run-guest-selftest.$$
[ ! -e "$probe" ] || fail "$probe already exists"
echo hello >"$probe" || fail "cannot write $probe"
assert_eq hello "$(cat "$probe")" "overlay file"
rm "$probe"
echo x >"$RUN_GUEST_REPO/build/vm/.guest-write-probe" || fail "cannot write inside the repo"
rm "$RUN_GUEST_REPO/build/vm/.guest-write-probe"
# The host-side check that nothing leaked is in tests/vm/selftest.
if [ -n "${SELFTEST_HOST_PROBE:-}" ]; then
	echo leaked >"$SELFTEST_HOST_PROBE"
fi

note "fresh pseudo filesystems"
[ -e /proc/self/status ] || fail "/proc/self missing"
assert_eq "$$" "$(awk '/^Pid:/ { print $2 }' /proc/$$/status)" "/proc/\$\$/status"
[ "$(readlink /proc/self/exe)" = "$(command -v readlink)" ] || fail "/proc/self/exe"
[ -d /sys/class/net/lo ] || fail "/sys missing"
[ -c /dev/null ] && [ -c /dev/kmsg ] || fail "/dev missing"
for m in /proc /sys /dev /tmp /run /sys/fs/bpf; do
	mountpoint -q "$m" || fail "$m not mounted"
done
assert_eq bpf "$(findmnt -n -o FSTYPE /sys/fs/bpf)" "/sys/fs/bpf type"
assert_eq "$(uname -r)" "$RUN_GUEST_KVER" "kernel version"
ip -o link show lo | grep -q 'UP' || fail "lo not up"

note "modprobe of in-tree modules"
modprobe dummy || fail "modprobe dummy"
modprobe veth || fail "modprobe veth"
grep -q '^veth ' /proc/modules || fail "veth not loaded"
ip link add rgd0 type dummy || fail "ip link add dummy"
ip link del rgd0

note "network namespaces and veth"
ip netns add rgns || fail "ip netns add"
ip link add rgv0 type veth peer name rgv1 || fail "veth pair"
ip link set rgv1 netns rgns
ip addr add 10.99.0.1/24 dev rgv0 && ip link set rgv0 up
ip -n rgns addr add 10.99.0.2/24 dev rgv1 && ip -n rgns link set rgv1 up
ip -n rgns link set lo up
ping=ping; command -v ping >/dev/null || ping="busybox ping"
wait_for 10 $ping -c1 -W1 10.99.0.2 >/dev/null 2>&1 || fail "no ping across veth"
ip netns del rgns

note "load_module (module prepared by run-guest --module)"
if [ -n "${SELFTEST_DUMMY_KO:-}" ]; then
	# A copy of the in-tree dummy.ko: updates/ must win over kernel/.
	rmmod dummy
	load_module "$SELFTEST_DUMMY_KO"
	assert_eq "/lib/modules/$(uname -r)/updates/dummy.ko" "$(modinfo -n dummy)" "modinfo -n"
	grep -q '^dummy ' /proc/modules || fail "dummy not loaded"
else
	skip_part harness/load_module: "no SELFTEST_DUMMY_KO (run by tests/host.d/harness, which passes one)"
fi

note "dmesg marks"
dmesg_mark
echo "run-guest selftest line" >/dev/kmsg
dmesg_since_mark | grep -q "run-guest selftest line" || fail "dmesg_since_mark"
assert_eq 1 "$(dmesg_since_mark | wc -l)" "lines since mark"
# room for a long run's log (run-guest's log_buf_len): a wrapped buffer
# loses the marks
n=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).klogctl(10, None, 0))')	# SYSLOG_ACTION_SIZE_BUFFER
assert_eq 8388608 "$n" "kernel log buffer bytes"

note "environment passing"
if [ -n "${SELFTEST_ENV:-}" ]; then
	assert_eq 'a b$c"d' "$SELFTEST_ENV" "SELFTEST_ENV"
else
	skip_part harness/env: "no SELFTEST_ENV (run by tests/host.d/harness, which passes one)"
fi

echo "harness selftest: OK"
