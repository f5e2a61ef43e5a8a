# SPDX-License-Identifier: GPL-2.0
# Issue 18, helper side: umd-fault-counters' sequences 1 and 4 on an IPv6
# table (the faults build, ipv6=1): the helper dies at commit-live (the
# change live, never answered) and the next one restores the state before
# it with the replaced rules' parked counts (issue 21); then it dies at
# commit (nothing live).  A counted rule shows exactly the packets sent;
# the failed changes are absent, the IPv4 rule kept.  Not a run-all test;
# by hand in a guest (after tests/run-all built build/kmod-faults):
#   tests/vm/run-guest --kver KVER --timeout 800 -- bash tests/adhoc/ip6-helper-faults.sh
. tests/guest/ipt-lib.sh
EBPF_KO=$EBPF_KO_FAULTS
EBPF_MODPARAMS=ipv6=1
FAULT=/run/ebpfilter-fault
IP6=ip6tables-legacy
use_ebpfilter
ip link set lo up
$IP6 -w -A OUTPUT -o lo -p udp --dport 9998 -j ACCEPT || fail rule
$IP6 -w -A INPUT -s 2001:db8::1 -j ACCEPT || fail rule
iptables-legacy -w -A INPUT -s 10.77.0.1 -j ACCEPT || fail rule4
sent=0
send() { local i; for i in $(seq "$1"); do echo x 2>/dev/null >/dev/udp/::1/9998; done; sent=$((sent + $1)); }
check() {
	local c
	c=$($IP6 -w -L OUTPUT -n -v -x | awk '$3 == "ACCEPT" && /dpt:9998/ { print $1 }')
	note "$1: counted ${c:-none} of $sent"
	[ "$c" = "$sent" ] || fail "$1: counted ${c:-none} packets of $sent sent"
}
arm() {
	local pid
	echo "$1" >"$FAULT"
	pid=$(helper_pids)
	kill -9 "$pid"
	wait_for 10 dmesg_has "helper (pid $pid) died" || fail "death of $pid not noticed"
}
faults_at() { [ "$(dmesg_since_mark | grep -c "test build: fault at $1")" = "$2" ]; }
died_at() { wait_for 10 faults_at "$1" "${2:-1}" || fail "no fault at $1"; }
settle() { sleep 10.5; }
send 40
check "before the faults"
dmesg_mark
settle
arm commit-live
send 30
$IP6 -w -A INPUT -s 2001:db8::77 -j ACCEPT 2>/dev/null && fail "change succeeded although its helper died"
died_at commit-live
rm -f "$FAULT"
send 5
check "after commit-live"
$IP6 -w -S INPUT | grep -q 2001:db8::77 && fail "the failed change is in force"
$IP6 -w -S INPUT | grep -q 2001:db8::1 || fail "the acknowledged rule is gone"
iptables-legacy -w -S INPUT | grep -q 10.77.0.1 || fail "the IPv4 rule is gone"
dmesg_since_mark | grep -i 'parked\|counts of the rules a change replaced' | head -3
settle
dmesg_mark
arm commit
send 7
$IP6 -w -A INPUT -s 2001:db8::78 -j ACCEPT 2>/dev/null && fail "change 2 succeeded"
died_at commit
rm -f "$FAULT"
send 3
check "after commit"
$IP6 -w -S INPUT | grep -q 2001:db8::78 && fail "the failed change 2 is in force"
$IP6 -w -A INPUT -s 2001:db8::79 -j ACCEPT || fail "a change after the faults"
send 2
check "at the end"
$IP6 -w -F; iptables-legacy -w -F
modprobe -r ebpfilter || fail rmmod
dmesg_since_mark | grep -iE 'WARNING|BUG|Oops|call trace' && fail "dmesg"
echo "PASS ip6 fault counters ($sent packets)"
