#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Docker's embedded DNS inside a container's network namespace (issue 17),
# under ip_tables, then ebpfilter, in the same boot (tests/guest/netns-lib.sh).
#
# The iptables calls are moby's (github.com/moby/moby at b985e23, 2026-08,
# daemon/libnetwork/resolver_unix.go, setupIptablesNAT(); iptables.raw()
# prepends --wait; ExistsNative() is "-t TABLE -C CHAIN RULE..."), run in
# the container's namespace as the daemon does (ExecFunc): the resolver
# listens on 127.0.0.11 with kernel-chosen UDP and TCP ports, and
#   -t nat -C OUTPUT -d 127.0.0.11 -j DOCKER_OUTPUT   else -N and -I OUTPUT
#   -t nat -C POSTROUTING -d 127.0.0.11 -j DOCKER_POSTROUTING   else -N, -I
#   -t nat -I DOCKER_OUTPUT -d 127.0.0.11 -p udp --dport 53 -j DNAT --to-destination 127.0.0.11:UDPPORT
#   -t nat -I DOCKER_POSTROUTING -s 127.0.0.11 -p udp --sport UDPPORT -j SNAT --to-source :53
#   the same two for tcp with TCPPORT
# (when the -C finds the jump, the chain is flushed instead: the second
# setup below, as when the sandbox's resolver is set up again).
#
# Network: bridge br-dns 172.18.0.1/16 in the guest's root namespace (the
# "host"), namespace ctr (eth0 172.18.0.2 on the bridge, lo up, default
# route via the bridge); tests/fw/dns-stub.py serves on 127.0.0.11 in ctr.
# Compared per engine: ctr's /proc/net/ip_tables_names before and after;
# each iptables call's output and status (ports written UDPPORT/TCPPORT);
# queries to 127.0.0.11:53 over UDP and TCP before the rules (refused),
# after them (answered, the reply from 127.0.0.11:53) and after the second
# setup; the peers the resolver saw; ctr's nat save and -L -n -v -x; the
# host's tables: /proc/net/ip_tables_names and a save with counters of a
# host nat table holding one counting rule for 127.0.0.11 (0 packets: the
# host's nat never sees ctr's packets).  The host's nat table is made
# before ctr exists, so a second run sees the same.
# run-all-cost: 150
. tests/guest/netns-lib.sh

STUB=tests/fw/dns-stub.py
DNS_SPORT=33000		# query source ports, fresh for each query of both runs

IPTW="iptables-legacy --wait"

# moby's setupIptablesNAT() in ctr, as transcript part "setup"
docker_setup() {
	local ua=127.0.0.11:$1 ta=127.0.0.11:$2 up=$1 tp=$2 x="ip netns exec ctr"
	if ns_run setup $x $IPTW -t nat -C OUTPUT -d 127.0.0.11 -j DOCKER_OUTPUT; then
		ns_run setup $x $IPTW -t nat -F DOCKER_OUTPUT
	else
		ns_run setup $x $IPTW -t nat -N DOCKER_OUTPUT
		ns_run setup $x $IPTW -t nat -I OUTPUT -d 127.0.0.11 -j DOCKER_OUTPUT
	fi
	if ns_run setup $x $IPTW -t nat -C POSTROUTING -d 127.0.0.11 -j DOCKER_POSTROUTING; then
		ns_run setup $x $IPTW -t nat -F DOCKER_POSTROUTING
	else
		ns_run setup $x $IPTW -t nat -N DOCKER_POSTROUTING
		ns_run setup $x $IPTW -t nat -I POSTROUTING -d 127.0.0.11 -j DOCKER_POSTROUTING
	fi
	ns_run setup $x $IPTW -t nat -I DOCKER_OUTPUT -d 127.0.0.11 -p udp --dport 53 -j DNAT --to-destination "$ua"
	ns_run setup $x $IPTW -t nat -I DOCKER_POSTROUTING -s 127.0.0.11 -p udp --sport "$up" -j SNAT --to-source :53
	ns_run setup $x $IPTW -t nat -I DOCKER_OUTPUT -d 127.0.0.11 -p tcp --dport 53 -j DNAT --to-destination "$ta"
	ns_run setup $x $IPTW -t nat -I DOCKER_POSTROUTING -s 127.0.0.11 -p tcp --sport "$tp" -j SNAT --to-source :53
}

# query PART PROTO: one query from ctr to 127.0.0.11:53 from a fresh
# source port, the answer logged and left in r
query() {
	DNS_SPORT=$((DNS_SPORT + 1))
	r=$(ip netns exec ctr python3 "$STUB" query "$2" 127.0.0.11 53 $DNS_SPORT app.example)
	ns_log "$1" "$2 $r"
}

run() {
	local up tp r stub
	rm -f "$NS_OUT"/*."$ENGINE"
	# the host: its filter table (ip_tables makes it on first use, in the
	# initial namespace too), and a nat table with a counting rule
	iptables-legacy -S >/dev/null &&
	iptables-legacy -t nat -A OUTPUT -d 127.0.0.11 -j RETURN ||
		fail "host nat table under $ENGINE"
	ns_log host "names before: $(ns_names)"
	ns_run host iptables-legacy-save -c -t nat

	ip link add br-dns type bridge && ip addr add 172.18.0.1/16 dev br-dns &&
		ip link set br-dns up || fail "bridge"
	ip netns add ctr && ip link add veth-ctr type veth peer name eth0 netns ctr &&
		ip link set veth-ctr master br-dns && ip link set veth-ctr up &&
		ip -n ctr addr add 172.18.0.2/16 dev eth0 && ip -n ctr link set eth0 up &&
		ip -n ctr link set lo up && ip -n ctr route add default via 172.18.0.1 &&
		ip netns exec ctr sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || fail "namespace ctr"
	ip netns exec ctr busybox ping -c 1 -W 2 172.18.0.1 >/dev/null ||
		fail "ctr does not reach the bridge"
	ns_log ctr-names "fresh: $(ns_names ctr)"
	ns_expect "ctr's tables when fresh" "(none)" "$(ns_names ctr)"

	rm -f "$NS_OUT/ports" "$NS_OUT/peers.$ENGINE"
	ip netns exec ctr python3 "$STUB" serve 127.0.0.11 "$NS_OUT/ports" "$NS_OUT/peers.$ENGINE" &
	stub=$!
	wait_for 20 test -s "$NS_OUT/ports" || fail "no resolver stub"
	read -r up tp <"$NS_OUT/ports"
	note "resolver stub on 127.0.0.11 udp $up tcp $tp"

	query queries udp
	ns_expect "UDP query before the rules" refused "$r"
	query queries tcp
	ns_expect "TCP query before the rules" refused "$r"

	docker_setup "$up" "$tp"
	ns_log ctr-names "after setup: $(ns_names ctr)"
	ns_expect "ctr's tables after setup" nat "$(ns_names ctr)"
	query queries udp
	ns_expect "UDP query" "answer 10.11.12.13 from 127.0.0.11:53" "$r"
	query queries tcp
	ns_expect "TCP query" "answer 10.11.12.13 from 127.0.0.11:53" "$r"

	# the resolver set up again: -C finds the jumps, the chains are flushed
	docker_setup "$up" "$tp"
	query queries udp
	ns_expect "UDP query after the second setup" "answer 10.11.12.13 from 127.0.0.11:53" "$r"
	query queries tcp
	ns_expect "TCP query after the second setup" "answer 10.11.12.13 from 127.0.0.11:53" "$r"
	ns_expect "setup's status lines" "$(printf '[exit %s]\n' 2 0 0 2 0 0 0 0 0 0  0 0 0 0 0 0 0 0)" \
		"$(grep '^\[exit' "$(ns_file setup)")"

	ns_run ctr-tables ip netns exec ctr iptables-legacy-save -t nat
	ns_run ctr-tables ip netns exec ctr iptables-legacy -t nat -L -n -v -x
	# the queries since the second setup's flush: one connection each
	ns_expect "ctr's DNAT counters (tcp, udp)" "1 1" \
		"$(ip netns exec ctr iptables-legacy -t nat -L DOCKER_OUTPUT -n -v -x | awk '$3 == "DNAT" { print $1 }' | xargs)"
	ns_expect "ctr's OUTPUT jump counter" 4 \
		"$(ip netns exec ctr iptables-legacy -t nat -L OUTPUT -n -v -x | awk '$3 == "DOCKER_OUTPUT" { print $1 }')"
	ns_log ctr-names "at the end: $(ns_names ctr)"

	kill "$stub"
	wait "$stub" 2>/dev/null
	ns_expect "peers the resolver saw" "$(printf '%s peer 127.0.0.1\n' udp tcp udp tcp)" \
		"$(cat "$NS_OUT/peers.$ENGINE")"

	ns_log host "names after: $(ns_names)"
	ns_run host iptables-legacy-save -c -t nat
	ns_expect "the host's nat counting rule" 1 \
		"$(iptables-legacy-save -c -t nat | grep -c -- '^\[0:0\] -A OUTPUT -d 127.0.0.11/32 -j RETURN$')"
	ns_expect "the host's tables" "filter nat" "$(ns_names | tr ' ' '\n' | sort | xargs)"

	ip netns del ctr
	ip link del br-dns
	# the ports differ between the runs: written as the resolver's names
	sed -i -e "s/127\.0\.0\.11:$up\b/127.0.0.11:UDPPORT/g; s/--sport $up\b/--sport UDPPORT/g; s/spt:$up\b/spt:UDPPORT/g; s/to:127\.0\.0\.11:$up\b/to:127.0.0.11:UDPPORT/g" \
		-e "s/127\.0\.0\.11:$tp\b/127.0.0.11:TCPPORT/g; s/--sport $tp\b/--sport TCPPORT/g; s/spt:$tp\b/spt:TCPPORT/g; s/to:127\.0\.0\.11:$tp\b/to:127.0.0.11:TCPPORT/g" \
		"$NS_OUT"/*."$ENGINE"
}

verdict_tools
dmesg_mark
ns_first_engine
run
for p in host ctr-names queries setup ctr-tables peers; do ns_show $p; done
ns_second_engine
dmesg_mark
run
for p in ctr-names setup queries peers ctr-tables host; do ns_compare $p; done
if ns_real_ebpfilter; then
	dmesg_since_mark | grep ebpfilter | grep -i -E 'namespace|netns' | head -n 6 | sed 's/^/    dmesg: /'
	! dmesg_since_mark | grep -q "request from a network namespace other than the initial one refused"
	ns_check dmesg "ebpfilter refused a request from ctr's namespace" $?
	modprobe -r ebpfilter
	ns_check unload "ebpfilter does not unload after the namespace is gone" $?
fi
ns_finish
