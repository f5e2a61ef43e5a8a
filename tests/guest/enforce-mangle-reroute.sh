#!/bin/bash
# mangle's OUTPUT routes a packet again when its rules changed its mark, as
# iptable_mangle's ipt_mangle_out() does (ip_route_me_harder()): a policy
# route (fwmark 7 -> table 77) sends marked packets for 10.0.9.9 to
# namespace b, which has that address, while the main table sends them to
# c, which does not (UDP: one datagram per probe, nothing retransmitted).
# Under ip_tables, then ebpfilter, same boot: no rule (timeout), a MARK 7
# rule (ok: re-routed), a MARK 8 rule (timeout), and the mangle table's
# counters; all identical.
# run-all-tier: smoke
. tests/guest/fw-lib.sh

verdict_tools
trap topo_teardown EXIT
topo_setup || fail "topology"
topo_servers "$VPROBE"
ip -n b addr add 10.0.9.9/32 dev lo || fail "address in b"
ip route add 10.0.9.0/24 via 10.0.1.2 || fail "main route"
ip route add 10.0.9.0/24 via 10.0.3.2 table 77 || fail "table 77"
ip rule add fwmark 7 lookup 77 || fail "fwmark rule"
# b answers 10.0.1.1 over fwb: no reverse-path check of the main table
sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.fwb.rp_filter=0

session() {	# ENGINE
	local o=$FW_OUT/reroute.$1
	{
		echo "no rule: $(fw_probe rr root udp 10.0.1.1 10.0.9.9 53)"
		iptables-legacy -t mangle -A OUTPUT -d 10.0.9.9 -p udp -j MARK --set-mark 7 ||
			echo "append failed"
		echo "mark 7: $(fw_probe rr root udp 10.0.1.1 10.0.9.9 53)"
		iptables-legacy -t mangle -R OUTPUT 1 -d 10.0.9.9 -p udp -j MARK --set-mark 8 ||
			echo "replace failed"
		echo "mark 8: $(fw_probe rr root udp 10.0.1.1 10.0.9.9 53)"
		iptables-legacy-save -c -t mangle | ipt_normalize
		iptables-legacy -t mangle -F OUTPUT || echo "flush failed"
	} >"$o" 2>&1
	cat "$o"
}

use_ip_tables
session ip_tables
fw_expect "no rule" "no rule: timeout" "$(sed -n 1p "$FW_OUT/reroute.ip_tables")"
fw_expect "mark 7" "mark 7: ok" "$(sed -n 2p "$FW_OUT/reroute.ip_tables")"
fw_expect "mark 8" "mark 8: timeout" "$(sed -n 3p "$FW_OUT/reroute.ip_tables")"
fw_second_engine
session ebpfilter
fw_compare "mangle OUTPUT re-route" "$FW_OUT/reroute" || fail "differs from ip_tables"
fw_finish
echo "PASS enforce-mangle-reroute: re-routed by the mark as under ip_tables"
