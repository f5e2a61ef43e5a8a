#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every network namespace has its own tables, as under ip_tables (issue
# 17; the cheap check of tests/guest/netns-*.sh, which see the rest): the
# same commands under ip_tables, then ebpfilter, in the same boot, with
# identical outputs and statuses (tests/guest/netns-lib.sh):
# - `unshare -n`: /proc/net/ip_tables_names empty and a save empty in a
#   fresh namespace; the first -S makes filter (ACCEPT policies) and the
#   names list it; -A, -S, -F; every other table made by its first -S,
#   the names newest first; an unknown table's error;
# - `unshare -U -n -r`: a policy set and listed in its own namespace;
# - `unshare -U -r`: no capability over the initial namespace: EPERM;
# - revision queries from another namespace answered;
# and the initial namespace's rules unchanged.  With the module's ipv6
# parameter (issue 18; ip6_tables beside ip_tables in the reference,
# ebpfilter loaded with ipv6=1), part basic6: a fresh namespace's
# ip6_tables_names empty, its own IPv6 filter table made and used, and
# the initial namespace's IPv6 rules unchanged.  Then ebpfilter unloads
# and leaves nothing.
# run-all-tier: smoke
. tests/guest/netns-lib.sh

run() {
	local before
	rm -f "$NS_OUT"/*."$ENGINE"
	iptables-legacy -A INPUT -s 192.0.2.1 -j DROP || fail "rule in the initial namespace"
	before=$(iptables-legacy -S)
	ns_run basic unshare -n cat /proc/net/ip_tables_names
	ns_run basic unshare -n iptables-legacy-save
	ns_run basic unshare -n sh -c 'iptables-legacy -S && cat /proc/net/ip_tables_names'
	ns_run basic unshare -n sh -c 'iptables-legacy -A INPUT -p tcp --dport 22 -j ACCEPT &&
		iptables-legacy -S && iptables-legacy -F && iptables-legacy -S INPUT'
	ns_run basic unshare -n sh -c 'for t in nat mangle raw security; do
		iptables-legacy -t $t -S || exit; done; cat /proc/net/ip_tables_names'
	ns_run basic unshare -n iptables-legacy -t nosuchtable -S
	ns_run basic unshare -U -n -r sh -c 'iptables-legacy -P INPUT DROP && iptables-legacy -S INPUT'
	ns_run basic unshare -U -r iptables-legacy -S
	ns_run basic unshare -U -r iptables-legacy -P INPUT DROP
	# revision queries describe extensions, not tables
	ns_run basic unshare -n "$SOCKOPT_REQ" rev-match tcp
	ns_run basic unshare -U -n -r "$SOCKOPT_REQ" rev-target DNAT
	ns_expect "statuses" "$(printf '[exit %s]\n' 0 0 0 0 0 3 0 3 3 0 0)" \
		"$(grep '^\[exit' "$(ns_file basic)")"
	ns_expect "the first -S" "$(printf '%s\n' '-P INPUT ACCEPT' '-P FORWARD ACCEPT' '-P OUTPUT ACCEPT' filter)" \
		"$(unshare -n sh -c 'iptables-legacy -S && cat /proc/net/ip_tables_names')"
	ns_expect "every table, newest first" "security raw mangle nat" \
		"$(unshare -n sh -c 'for t in nat mangle raw security; do iptables-legacy -t $t -S >/dev/null; done; cat /proc/net/ip_tables_names' | xargs)"
	ns_expect "the initial namespace's rules" "$before" "$(iptables-legacy -S)"
	iptables-legacy -F
}

# basic6: the same for IPv6, when the module serves it
run6() {
	local before
	rm -f "$NS_OUT"/basic6."$ENGINE"
	ip6tables-legacy -A INPUT -s 2001:db8::1 -j DROP || fail "IPv6 rule in the initial namespace"
	before=$(ip6tables-legacy -S)
	ns_run basic6 unshare -n cat /proc/net/ip6_tables_names
	ns_run basic6 unshare -n sh -c 'ip6tables-legacy -A INPUT -p tcp --dport 22 -j DROP &&
		ip6tables-legacy -S && cat /proc/net/ip6_tables_names'
	ns_expect "IPv6: the initial namespace's rules" "$before" "$(ip6tables-legacy -S)"
	ns_expect "IPv6: a fresh namespace's own table" "-P INPUT ACCEPT" \
		"$(unshare -n ip6tables-legacy -S INPUT)"
	ip6tables-legacy -F
}
six=0
ebpf_has_ipv6 && six=1 && EBPF_MODPARAMS="${EBPF_MODPARAMS:-} ipv6=1"

ns_first_engine
run
ns_show basic
if [ $six = 1 ]; then
	(ipt_family 6 && use_ip_tables) || exit 1
	run6
	(ipt_family 6 && leave_ip_tables) || exit 1
fi
ns_second_engine
dmesg_mark
run
ns_compare basic
[ $six = 1 ] && { run6; ns_compare basic6; }
if ns_real_ebpfilter; then
	dmesg_since_mark | grep ebpfilter | grep -i -E 'namespace|netns' | head -n 6 | sed 's/^/    dmesg: /'
	! dmesg_since_mark | grep -q "request from a network namespace other than the initial one refused"
	ns_check dmesg "ebpfilter refused requests from other namespaces" $?
	modprobe -r ebpfilter || fail rmmod
	assert_nothing_left
fi
ns_finish
