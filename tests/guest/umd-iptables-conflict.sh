#!/bin/bash
# With ip_tables loaded the iptables sockopts are taken: modprobe ebpfilter
# fails with -EBUSY and a dmesg line saying what to do; nothing is left.
# The same for IPv6 (issue 18), when the module has the ipv6 parameter:
# with ip6_tables loaded the default (ipv6=Y) and ipv6=1 are refused with
# their own dmesg line, ipv6=0 loads beside it and serves IPv4; with IPv6
# served, modprobe.d refuses ip6_tables.  The tc mechanism has no IPv6
# tables: loaded with it and no ipv6 parameter, IPv6 is not served (and
# ip6_tables may load beside it); with ipv6=1 too, the load is refused.
. tests/guest/ipt-lib.sh

# refused_beside CORE DMESG [PARAM]: with CORE loaded, modprobe ebpfilter
# [PARAM] fails with EBUSY, dmesg says DMESG, no helper is left
refused_beside() {
	modprobe "$1" || fail "cannot load $1"
	dmesg_mark
	if modprobe ebpfilter ${3:-} 2>/tmp/err; then
		fail "loaded ${3:+with $3 }beside $1"
	fi
	cat /tmp/err
	grep -q "Device or resource busy" /tmp/err || fail "${3:+$3 }beside $1: not EBUSY"
	dmesg_has "$2" || fail "no explanation in dmesg beside $1"
	sleep 0.5
	[ "$(helper_count)" = 0 ] || fail "helper left beside $1"
}

# refused_core CORE WHY: the other way round, packaging/modprobe.d refuses
# CORE while ebpfilter serves its family, before CORE could warn about the
# duplicate /proc entry (the harness fails on WARN); modprobe says WHY
refused_core() {
	if modprobe "$1" 2>/tmp/err; then
		fail "$1 loaded beside ebpfilter"
	fi
	cat /tmp/err
	grep -q "$2" /tmp/err || fail "no explanation from modprobe for $1"
}

ebpf_install
refused_beside ip_tables "the iptables sockopts are taken, most likely by ip_tables"
modprobe -r ip_tables
modprobe ebpfilter || fail "no load after ip_tables left"
[ "$(cat /proc/net/ip_tables_names)" = filter ] || fail "no /proc/net/ip_tables_names"
refused_core ip_tables "ebpfilter is loaded"
request_ok || fail "ebpfilter disturbed"
modprobe -r ebpfilter
assert_nothing_left
ebpf_has_ipv6 || { note "no ipv6 parameter: the IPv6 half not tested"; exit 0; }

refused_beside ip6_tables "the ip6tables sockopts are taken, most likely by ip6_tables"
refused_beside ip6_tables "the ip6tables sockopts are taken, most likely by ip6_tables" ipv6=1
modprobe ebpfilter ipv6=0 || fail "ipv6=0 refused beside ip6_tables"
[ "$(cat /sys/module/ebpfilter/parameters/ipv6)" = N ] || fail "ipv6=0 reads $(cat /sys/module/ebpfilter/parameters/ipv6)"
dmesg_has "ebpfilter: loaded.*IPv6 not served" ||
	fail "the load line does not say IPv6 is not served"
request_ok || fail "IPv4 not served with ipv6=0"
modprobe -r ebpfilter ip6_tables || fail "cannot unload ebpfilter and ip6_tables"
dmesg_mark
modprobe ebpfilter || fail "no load (ipv6 by default) after ip6_tables left"
dmesg_has "ebpfilter: loaded.*IPv6 served" || fail "the load line does not say IPv6 is served"
[ "$(cat /sys/module/ebpfilter/parameters/ipv6)" = Y ] || fail "the default reads $(cat /sys/module/ebpfilter/parameters/ipv6)"
refused_core ip6_tables "ebpfilter is loaded with ipv6=Y"
ip6tables-legacy -S >/dev/null || fail "ip6tables-legacy under ebpfilter's default"
modprobe -r ebpfilter
assert_nothing_left

# mechanism=tc: IPv4 only unless asked, and then refused
dmesg_mark
modprobe ebpfilter mechanism=tc || fail "mechanism=tc refused"
dmesg_has "ebpfilter: loaded.*IPv6 not served (mechanism has no IPv6 tables)" ||
	fail "the load line with mechanism=tc does not say IPv6 is not served"
[ "$(cat /sys/module/ebpfilter/parameters/ipv6)" = N ] || fail "ipv6 reads Y with mechanism=tc"
request_ok || fail "IPv4 not served with mechanism=tc"
# ip6_tables beside it, with its own built-in targets only: ebpfilter's
# IPv6 ones, registered at load, went when the handshake said no IPv6
ip6tables-legacy -A INPUT -s 2001:db8::1 -j ACCEPT || fail "ip6_tables beside mechanism=tc"
n=$(grep -c '^ERROR$' /proc/net/ip6_tables_targets)
[ "$n" = 1 ] || fail "$n IPv6 ERROR targets registered beside ip6_tables (ebpfilter's not dropped?)"
ip6tables-legacy -F INPUT && modprobe -r ip6table_filter ip6_tables ||
	fail "ip6_tables would not unload"
modprobe -r ebpfilter
assert_nothing_left
dmesg_mark
if modprobe ebpfilter mechanism=tc ipv6=1 2>/tmp/err; then
	fail "mechanism=tc ipv6=1 loaded"
fi
dmesg_has "ipv6=Y, but the helper does not serve IPv6 with mechanism tc" ||
	fail "no explanation in dmesg for mechanism=tc ipv6=1"
sleep 0.5
[ "$(helper_count)" = 0 ] || fail "helper left after mechanism=tc ipv6=1"
assert_nothing_left
