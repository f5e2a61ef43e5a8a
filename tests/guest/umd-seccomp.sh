#!/bin/bash
# The confined helper (umh/lib/confine.c): its status shows the seccomp
# filter and the reduced capability sets; a forbidden system call (the
# EBPF_TEST_SIGSYS build makes one on SIGUSR1) kills it with SIGSYS, the
# module reports that, the rules stay in force while it is dead, and the
# next request starts a new helper that serves the same state.
# run-all-tier: smoke
. tests/guest/lib-ebpfilter.sh
IPT=iptables-legacy

pings() {	# pings N: how many of N pings to 127.0.0.1 were answered
	busybox ping -c "$1" -W 1 -w "$(($1 + 1))" 127.0.0.1 2>/dev/null |
		sed -n 's/.* \([0-9]*\) packets received.*/\1/p'
}

# CAP_NET_ADMIN 12, CAP_PERFMON 38, CAP_BPF 39 (not CAP_SYS_ADMIN 21)
keep=$(printf %016x $(((1 << 12) | (1 << 38) | (1 << 39))))

# 1. The product's helper is confined.
ebpf_install
ip link set lo up
modprobe ebpfilter || fail "modprobe"
pid=$(helper_pids)
[ -n "$pid" ] || fail "no helper"
grep -E '^(Seccomp|NoNewPrivs|Cap(Inh|Prm|Eff|Bnd|Amb)):' "/proc/$pid/status"
assert_eq 2 "$(awk '/^Seccomp:/ { print $2 }' "/proc/$pid/status")" "Seccomp"
assert_eq 1 "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$pid/status")" "NoNewPrivs"
for s in CapPrm CapEff CapBnd; do
	assert_eq "$keep" \
		"$(awk -v s="$s:" '$1 == s { print $2 }' "/proc/$pid/status")" "$s"
done
for s in CapInh CapAmb; do
	assert_eq 0000000000000000 \
		"$(awk -v s="$s:" '$1 == s { print $2 }' "/proc/$pid/status")" "$s"
done
modprobe -r ebpfilter || fail "rmmod"

# 2. A forbidden call kills it; the module reports and recovers.
[ -f "$EBPF_KO_SIGSYS" ] || fail "no test module at $EBPF_KO_SIGSYS"
cp "$EBPF_KO_SIGSYS" "/lib/modules/$KVER/updates/ebpfilter.ko"
dmesg_mark
modprobe ebpfilter || fail "modprobe (EBPF_TEST_SIGSYS helper)"
[ "$(pings 2)" = 2 ] || fail "lo does not answer with the initial table"
$IPT -A INPUT -p icmp -m icmp --icmp-type echo-request -j DROP || fail "iptables -A"
$IPT -A INPUT -s 10.99.0.1 -m comment --comment seccomp -j ACCEPT || fail "iptables -A 2"
[ "$(pings 2)" = 0 ] || fail "echo requests not dropped"
$IPT -S >/tmp/before || fail "iptables -S"
pid=$(helper_pids)
[ -n "$pid" ] || fail "no helper"
kill -USR1 "$pid"
wait_for 5 dmesg_has "helper (pid $pid) died: killed by signal 31" ||
	fail "death by SIGSYS not reported: $(dmesg_since_mark | grep ebpfilter)"
dmesg_since_mark | grep -E 'audit: type=1326|audit\(.*\): .*syscall=79' ||
	note "(no audit line for the kill)"
[ "$(helper_count)" = 0 ] || fail "helper still there after SIGSYS"
[ "$(pings 2)" = 0 ] || fail "the rules lapsed while the helper was dead"
$IPT -S >/tmp/after || fail "iptables -S after the kill"
pid2=$(helper_pids)
[ -n "$pid2" ] && [ "$pid2" != "$pid" ] || fail "no new helper ($pid -> $pid2)"
dmesg_has "helper restarted (pid $pid2" || fail "restart not reported"
diff -u /tmp/before /tmp/after || fail "state lost in the restart"
assert_eq 2 "$(awk '/^Seccomp:/ { print $2 }' "/proc/$pid2/status")" "Seccomp after restart"
$IPT -D INPUT -p icmp -m icmp --icmp-type echo-request -j DROP || fail "iptables -D"
[ "$(pings 2)" = 2 ] || fail "lo does not answer after the DROP rule went"
$IPT -F || fail "iptables -F"
modprobe -r ebpfilter || fail "rmmod"
assert_nothing_left
note "dmesg of the sequence:"
dmesg_since_mark | grep -E "ebpfilter|audit"
echo "PASS umd-seccomp: confined (Seccomp 2, caps $keep); SIGSYS reported, rules kept, restarted"
