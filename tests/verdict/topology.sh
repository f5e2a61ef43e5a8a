# SPDX-License-Identifier: GPL-2.0
# The verdict suite's network (sourced by tests/guest/verdict-*.sh and
# bench/run; inside a QEMU guest only).  The guest's root namespace is the
# host for INPUT/OUTPUT and the router for FORWARD:
#
#   ns c  eth0 10.0.1.2, 10.0.1.130 ==== vethc 10.0.1.1  (root)
#   ns a  eth0 10.0.2.2             ==== fwa   10.0.2.1  (root, forwarding on)
#   ns b  eth0 10.0.3.2, 10.0.3.77  ==== fwb   10.0.3.1  (root)
#
# IPv6 is off everywhere (no stray packets in the counters).
#
# IPT_FAMILY=6 (the IPv6 suite, tests/guest/ip6-verdict.sh): the same
# network with IPv6 only on the links, fd00:N::/64 for 10.0.N.0/24 (c
# fd00:1::2 and fd00:1::130, the guest fd00:1::1, ...), forwarding on.  No
# stray packets there either: no link-local addresses (addr_gen_mode 1), no
# DAD, no router solicitations, every neighbour entry static (no neighbour
# discovery: ICMPv6 passes the filter chains); receivers accept segment
# routing headers with segments left 0 (the probes' "srh").

VERDICT_PORTS="22 80 443 53 1000 5000 8080 9999"

# sysctl settings of every new IPv6 interface in the current netns
topo_v6_defaults() {
	local c
	for c in all default; do
		sysctl -qw net.ipv6.conf.$c.disable_ipv6=0 net.ipv6.conf.$c.accept_dad=0 \
			net.ipv6.conf.$c.addr_gen_mode=1 net.ipv6.conf.$c.seg6_enabled=1 \
			net.ipv6.conf.$c.router_solicitations=0 net.ipv6.conf.$c.accept_ra=0 ||
			return 1
	done
}

# topo_neigh NETNS|root DEV ADDR MAC: a permanent neighbour entry
topo_neigh() {
	local n=
	[ "$1" = root ] || n="-n $1"
	ip $n -6 neigh replace "$3" lladdr "$4" dev "$2" nud permanent
}

topo_ns_link() {	# NS ROOTDEV ROOTADDR NSADDR...
	local ns=$1 dev=$2 raddr=$3 plen=24 v6=0 a
	shift 3
	[ "${IPT_FAMILY:-4}" = 6 ] && plen=64 v6=1
	ip netns add "$ns" || return 1
	if [ $v6 = 1 ]; then
		ip netns exec "$ns" bash -c "$(declare -f topo_v6_defaults); topo_v6_defaults" ||
			return 1
	else
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 || return 1
	fi
	ip link add "$dev" type veth peer name eth0 netns "$ns" || return 1
	ip addr add "$raddr/$plen" dev "$dev" && ip link set "$dev" up || return 1
	for a in "$@"; do
		ip -n "$ns" addr add "$a/$plen" dev eth0 || return 1
	done
	ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up &&
		ip -n "$ns" route add default via "$raddr" || return 1
	if [ $v6 = 1 ]; then
		topo_neigh "$ns" eth0 "$raddr" "$(cat /sys/class/net/$dev/address)" || return 1
		for a in "$@"; do
			topo_neigh root "$dev" "$a" \
				"$(ip netns exec "$ns" cat /sys/class/net/eth0/address)" || return 1
		done
		return 0
	fi
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
}

# topo_add_v6 NS ROOTDEV ROOTADDR NSADDR...: IPv6 beside IPv4 on one link
# of the IPv4 network (the fw-*.sh tests, whose front-ends configure both
# families): the IPv6 suite's per-interface settings on both ends (no
# link-local address, no DAD, no router solicitation), /64 addresses and
# static neighbours; ICMPv6 errors not rate limited (as in the IPv6
# network above: every REJECT answers, so the errors can be counted); IPv6
# stays off on every other interface.
topo_add_v6() {
	local ns=$1 dev=$2 raddr=$3 a k
	shift 3
	for k in conf.$dev.accept_dad=0 conf.$dev.addr_gen_mode=1 conf.$dev.router_solicitations=0 \
		conf.$dev.accept_ra=0 conf.$dev.disable_ipv6=0 icmp.ratelimit=0; do
		sysctl -qw "net.ipv6.$k" &&
			ip netns exec "$ns" sysctl -qw "net.ipv6.${k/conf.$dev./conf.eth0.}" || return 1
	done
	ip addr add "$raddr/64" dev "$dev" nodad || return 1
	for a in "$@"; do
		ip -n "$ns" addr add "$a/64" dev eth0 nodad &&
			topo_neigh root "$dev" "$a" \
				"$(ip netns exec "$ns" cat /sys/class/net/eth0/address)" || return 1
	done
	ip -n "$ns" -6 route add default via "$raddr" &&
		topo_neigh "$ns" eth0 "$raddr" "$(cat /sys/class/net/$dev/address)"
}

topo_setup() {
	if [ "${IPT_FAMILY:-4}" = 6 ]; then
		topo_v6_defaults || return 1
		ip link set lo up
		topo_ns_link c vethc fd00:1::1 fd00:1::2 fd00:1::130 &&
		topo_ns_link a fwa fd00:2::1 fd00:2::2 &&
		topo_ns_link b fwb fd00:3::1 fd00:3::2 fd00:3::77 || return 1
		sysctl -qw net.ipv6.conf.all.forwarding=1 || return 1
		for ns in c a b; do
			ip netns exec $ns sysctl -qw net.ipv6.ip6frag_time=1 \
				net.ipv6.icmp.ratelimit=0 || return 1
		done
		sysctl -qw net.ipv6.ip6frag_time=1 net.ipv6.icmp.ratelimit=0 || return 1
	else
		sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		ip link set lo up
		topo_ns_link c vethc 10.0.1.1 10.0.1.2 10.0.1.130 &&
		topo_ns_link a fwa 10.0.2.1 10.0.2.2 &&
		topo_ns_link b fwb 10.0.3.1 10.0.3.2 10.0.3.77 || return 1
		sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv4.ip_forward=1
	fi
	# no retransmitted SYN/ACKs after a probe gave up: fixed packet counts
	# ephemeral ports clear of the port ranges the rule sets match
	# (20000-49999), so only the probes meant to match them do
	# Fragment queues left half full (a rule dropped later fragments) time
	# out after 1 s, not 30, and their ICMP "reassembly time exceeded"
	# errors are never rate limited: with the defaults such an error came
	# 30 s later, in another rule set's run or the other backend's pass,
	# and was counted there, or not, by timing (counters off by one).
	for ns in c a b; do
		ip netns exec $ns sysctl -qw net.ipv4.tcp_synack_retries=0 \
			net.ipv4.tcp_syn_retries=1 \
			net.ipv4.ip_local_port_range="50000 60999" \
			net.ipv4.ipfrag_time=1 net.ipv4.icmp_ratelimit=0
	done
	sysctl -qw net.ipv4.tcp_synack_retries=0 net.ipv4.tcp_syn_retries=1 \
		net.ipv4.ip_local_port_range="50000 60999" \
		net.ipv4.ipfrag_time=1 net.ipv4.icmp_ratelimit=0
}

# Listeners (vprobe serve) in every namespace; pids in TOPO_SERVERS.
topo_servers() {
	local vp=$1 ns six=
	[ "${IPT_FAMILY:-4}" = 6 ] && six=-6
	TOPO_SERVERS=
	"$vp" serve $six $VERDICT_PORTS & TOPO_SERVERS="$TOPO_SERVERS $!"
	for ns in c a b; do
		ip netns exec $ns "$vp" serve $six $VERDICT_PORTS &
		TOPO_SERVERS="$TOPO_SERVERS $!"
	done
	sleep 0.5
}

topo_teardown() {
	[ -n "${TOPO_SERVERS:-}" ] && kill $TOPO_SERVERS 2>/dev/null
	wait 2>/dev/null
	for ns in c a b; do ip netns del $ns 2>/dev/null; done
	return 0
}
