#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kill -9 of the helper while 100 network namespaces hold rules (issue 17):
# each namespace pings itself once under its rules (odd ones ACCEPT the
# echo request, even ones DROP it), the helper is killed, each pings again
# with no helper running (still enforced: the module runs the rules in
# force), then each namespace's listing from the restarted helper: its
# INPUT rule, and its OUTPUT counting rule at exactly the two pings'
# packets (request and, if accepted, reply: 4 or 2) -- every namespace's
# rules and counters adopted by a new helper.  ebpfilter only: under
# ip_tables nothing happens at a helper's death (netns-churn.sh compares
# the same with 20 namespaces against ip_tables in every tier).  330 s
# under TCG: the full tier only (make check-all); skipped in the others.
# run-all-cost: 330
# run-all-timeout: 1500
. tests/guest/ipt-lib.sh
[ "${EBPF_TIER:-full}" = full ] || skip "the full tier's (make check-all): 100 namespaces take minutes under TCG"
use_ebpfilter
N=100
pingit() { ip netns exec k$1 busybox ping -c 1 -W 1 127.0.0.1 >/dev/null 2>&1 && echo ok || echo timeout; }
for i in $(seq 1 $N); do
	ip netns add k$i && ip -n k$i link set lo up || fail "netns k$i"
	v=ACCEPT; [ $((i % 2)) = 0 ] && v=DROP
	printf '*filter\n-A INPUT -p icmp -m icmp --icmp-type 8 -j %s\n-A OUTPUT -p icmp\nCOMMIT\n' $v |
		ip netns exec k$i iptables-legacy-restore || fail "restore k$i"
done
bad=0
for i in $(seq 1 $N); do
	want=ok; [ $((i % 2)) = 0 ] && want=timeout
	[ "$(pingit $i)" = $want ] || { bad=$((bad + 1)); echo "k$i before: not $want"; }
done
pid0=$(pgrep -x ebpfilter-umh)
kill -9 $pid0
wait_for 10 sh -c '! pgrep -x ebpfilter-umh >/dev/null' || fail "the helper did not die"
for i in $(seq 1 $N); do
	want=ok; [ $((i % 2)) = 0 ] && want=timeout
	[ "$(pingit $i)" = $want ] || { bad=$((bad + 1)); echo "k$i without a helper: not $want"; }
done
for i in $(seq 1 $N); do
	c=$(ip netns exec k$i iptables-legacy -L OUTPUT -n -v -x | awk 'NR == 3 { print $1 }')
	# two pings: the request and (ACCEPT) the reply leave through OUTPUT
	want=4; [ $((i % 2)) = 0 ] && want=2
	[ "$c" = $want ] || { bad=$((bad + 1)); echo "k$i: OUTPUT counter '$c', want $want"; }
	r=$(ip netns exec k$i iptables-legacy -S INPUT | grep -c -- '-j')
	[ "$r" = 1 ] || { bad=$((bad + 1)); echo "k$i: INPUT rules $r"; }
done
new=$(pgrep -x ebpfilter-umh)
[ -n "$new" ] && [ "$new" != "$pid0" ] || fail "no new helper ($pid0 -> '$new')"
dmesg | grep -i "adopt\|restor" | tail -3
for i in $(seq 1 $N); do ip netns del k$i; done
echo "netns-kill-restart: $N namespaces, helper $pid0 -> $new, $bad differences"
[ $bad = 0 ] || fail "$bad differences"
