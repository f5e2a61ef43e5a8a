#!/bin/bash
# TEE's duplicate runs mangle OUTPUT again from inside the original's walk
# (nf_dup_ipv4() -> ip_local_out()), and on kmod the duplicate's walk must
# use the second half of the CPU's jump stack, as ipt_do_table() does
# (the per-CPU nf_skb_duplicated on 6.1 and 6.12, current->in_nf_duplicate
# on 7.3: kmod/compat).  The original stops at TEE two chains deep (OUTPUT -> X ->
# C); the duplicate (untracked, so it takes another path: OUTPUT -> D -> Y,
# down to a LOG the module walks, back to D's ACCEPT) pushes its own two
# entries.  With one shared half, the original's RETURN from C would pop
# D's entry: D's MARK would count 6 and X's none.  Under ip_tables, then ebpfilter, same boot:
# the mangle counters and the number of LOG lines, identical.
. tests/guest/lib-ebpfilter.sh
. tests/guest/ipt-lib.sh
set -u
modprobe xt_TEE 2>/dev/null || skip "no xt_TEE in this kernel"
modprobe -r xt_TEE

ip link add tee0 type dummy && ip link set tee0 up &&
	ip addr add 10.9.0.1/24 dev tee0 || fail "dummy interface"
ip neigh add 10.9.0.2 lladdr 02:00:00:00:00:02 dev tee0 nud permanent &&
	ip neigh add 10.9.0.3 lladdr 02:00:00:00:00:03 dev tee0 nud permanent &&
	ip route add 10.8.0.0/24 via 10.9.0.3 dev tee0 || fail "neighbours, route"

session() {	# prints the counters and the LOG lines
	local T="$IPT -w -t mangle" i
	$T -N X && $T -N C && $T -N D && $T -N Y &&
	$T -A OUTPUT -d 10.8.0.0/24 -m state --state UNTRACKED -j D &&
	$T -A OUTPUT -d 10.8.0.0/24 -j X &&
	$T -A OUTPUT -d 10.8.0.0/24 -j MARK --set-mark 7 &&
	$T -A X -j C &&
	$T -A X -p udp -j MARK --set-mark 5 &&
	$T -A C -m state ! --state UNTRACKED -j TEE --gateway 10.9.0.2 &&
	$T -A C -j RETURN &&
	$T -A D -j Y &&
	$T -A D -p udp -j MARK --set-mark 9 &&
	$T -A D -j ACCEPT &&
	$T -A Y -j LOG --log-prefix "tee-dup " &&
	$T -A Y -j RETURN || fail "rules"
	dmesg_mark
	for i in 1 2 3; do
		echo x >/dev/udp/10.8.0.5/9 || fail "send"
	done
	sleep 1
	$T -L -n -v -x | awk '{ $1 = $1; print }'
	echo "LOG lines: $(dmesg_since_mark | grep -c 'tee-dup ')"
	$T -F && $T -X && $T -Z || fail "flush"
}

use_ip_tables
session >/tmp/tee.ref || exit 1
cat /tmp/tee.ref
modprobe -r iptable_mangle xt_TEE 2>/dev/null
leave_ip_tables
use_ebpfilter
session >/tmp/tee.ebpf || exit 1
cat /tmp/tee.ebpf
grep -q '^3 90 MARK 17 .* MARK set 0x9$' /tmp/tee.ref &&
	grep -q '^3 90 MARK 17 .* MARK set 0x5$' /tmp/tee.ref ||
	fail "ip_tables reference: not the expected counters"
diff -u /tmp/tee.ref /tmp/tee.ebpf || fail "TEE: counters or LOG lines differ"
echo "PASS enforce-tee: the duplicate walked on its own half of the jump stack"
