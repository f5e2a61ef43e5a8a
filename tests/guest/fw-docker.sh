#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test with a Docker-shaped rule set: the iptables calls a
# Docker daemon (moby v28.5.2, the iptables firewaller) makes for its default
# bridge network docker0 (172.17.0.0/16) and one container 172.17.0.2
# publishing -p 8080:80/tcp, under the kernel's ip_tables, then under
# ebpfilter, in this guest.  It needs the nat and raw tables (DNAT,
# MASQUERADE, addrtype, conntrack, a raw PREROUTING DROP): ebpfilter fails
# it until it serves them.
#
# The calls are written from moby's sources (tag v28.5.2, github.com/moby/moby):
#   libnetwork/iptables/iptables.go            Raw (--wait), NewChain (-n -L,
#       then -N), Rule.Append/Insert (-C, then -A/-I), EnsureJumpRule
#       (-C [-D], then -I), SetDefaultPolicy, ChainInfo.Remove
#   libnetwork/firewall_linux.go               setupUserChain: DOCKER-USER
#   libnetwork/drivers/bridge/internal/iptabler/iptabler.go
#       removeIPChains is in network.go; setupIPChains: the DOCKER chains of
#       nat and filter, DOCKER-FORWARD/-BRIDGE/-CT, DOCKER-ISOLATION-STAGE-1/2,
#       the jumps; FilterForwardDrop (FORWARD policy DROP: the daemon turned
#       ip_forward on itself)
#   libnetwork/drivers/bridge/internal/iptabler/network.go
#       addNATJumpRules (PREROUTING/OUTPUT -m addrtype --dst-type LOCAL,
#       OUTPUT's ! --dst 127.0.0.0/8 since hairpin is off: userland-proxy),
#       setupNonInternalNetworkRules (MASQUERADE of the bridge subnet, the
#       DOCKER -i docker0 -j RETURN, icc), deleteLegacyFilterRules,
#       setDefaultForwardRule, the DOCKER-CT conntrack RELATED,ESTABLISHED
#       rule, DOCKER-BRIDGE, setINC (isolation)
#   libnetwork/drivers/bridge/internal/iptabler/endpoint.go
#       filterDirectAccess: raw PREROUTING -d 172.17.0.2 ! -i docker0 -j DROP
#   libnetwork/drivers/bridge/internal/iptabler/port.go
#       dropLegacyFilterDirectAccess, setPerPortNAT (the DNAT of 8080),
#       setPerPortForwarding (the DOCKER ACCEPT of the published port)
# The resulting tables are those of moby's golden file
# .../iptabler/testdata/TestIptabler_hairpin=false,internal=false,icc=true,
# masq=true,snat=false,gwm=nat,bindlh=false__iptables.golden, plus
# DOCKER-USER and the FORWARD DROP policy.  On a fresh guest every -C,
# -n -L, -D, -F, -X call fails and every other one succeeds: the sequence
# is the one Docker runs, written out (IPv4 only: ip6tables goes to
# ip6_tables under both engines; the ipset-matching legacy checks of
# setupIPChains are left out: they would need ipset).
#
# Topology (the guest's root namespace is the Docker host):
#   ns ctr  eth0 172.17.0.2/16 === veth-ctr -- bridge docker0 172.17.0.1/16
#   ns ext  eth0 192.168.77.2  === veth-ext 192.168.77.1 (root)
#   ext routes 172.17.0.0/16 via 192.168.77.1 (so direct access is tried)
# Listeners (tests/fw/peer-listen.py, each reports the peer address it
# saw): ctr :80 (the container's published port), ext :9000.
#
# Per engine: the commands (output and exit status of each), the
# iptables-legacy-save of filter, nat and raw (no counters), then the
# probes, each a vprobe TCP connect with a source port never used before
# (no conntrack tuple of an earlier probe or engine is reused), with the
# peer the listener saw:
#   published  ext -> 192.168.77.1:8080: ok, ctr sees 192.168.77.2 (DNAT)
#   outbound   ctr -> 192.168.77.2:9000: ok, ext sees 192.168.77.1 (MASQUERADE)
#   direct     ext -> 172.17.0.2:80: timeout, nothing reaches ctr (raw DROP)
#   hairpin    root -> 192.168.77.1:8080: ok, ctr sees 192.168.77.1
#              (nat OUTPUT addrtype LOCAL -> DNAT)
# then the counters of nat, raw and filter (-L -n -v -x, zeroed before the
# probes).  The ip_tables run must itself show all of this (else the test
# fails as a broken reference), then every part must be identical under
# ebpfilter.  Ends with "N passed, N failed" over the parts.
# run-all-cost: 130
. tests/guest/fw-lib.sh
fw_tier docker

PEER_LISTEN=${PEER_LISTEN:-tests/fw/peer-listen.py}
verdict_tools
# Docker runs the `iptables` on its PATH: Debian's alternative, pointed at
# iptables-legacy here
fw_legacy_alternatives

DOCKER_CMDS='# daemon start, removeIPChains (iptabler/network.go): nothing to remove yet
iptables --wait -t filter -C FORWARD -j DOCKER-ISOLATION
iptables --wait -t nat -D PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
iptables --wait -t nat -D OUTPUT -m addrtype --dst-type LOCAL ! --dst 127.0.0.0/8 -j DOCKER
iptables --wait -t nat -D OUTPUT -m addrtype --dst-type LOCAL -j DOCKER
iptables --wait -t nat -D PREROUTING
iptables --wait -t nat -D OUTPUT
iptables --wait -t nat -F DOCKER
iptables --wait -t nat -X DOCKER
iptables --wait -t filter -F DOCKER
iptables --wait -t filter -X DOCKER
iptables --wait -t filter -F DOCKER-FORWARD
iptables --wait -t filter -X DOCKER-FORWARD
# FilterForwardDrop (iptabler.go): the daemon enabled ip_forward
iptables --wait -t filter -P FORWARD DROP
# setupIPChains (iptabler.go): NewChain is -n -L, then -N
iptables --wait -t nat -n -L DOCKER
iptables --wait -t nat -N DOCKER
iptables --wait -t filter -n -L DOCKER
iptables --wait -t filter -N DOCKER
iptables --wait -t filter -n -L DOCKER-FORWARD
iptables --wait -t filter -N DOCKER-FORWARD
iptables --wait -t filter -n -L DOCKER-BRIDGE
iptables --wait -t filter -N DOCKER-BRIDGE
iptables --wait -t filter -n -L DOCKER-CT
iptables --wait -t filter -N DOCKER-CT
iptables --wait -t filter -n -L DOCKER-ISOLATION-STAGE-1
iptables --wait -t filter -N DOCKER-ISOLATION-STAGE-1
iptables --wait -t filter -n -L DOCKER-ISOLATION-STAGE-2
iptables --wait -t filter -N DOCKER-ISOLATION-STAGE-2
# addNATJumpRules (network.go): Rule.Append is -C, then -A
iptables --wait -t nat -C PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
iptables --wait -t nat -A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
iptables --wait -t nat -C OUTPUT -m addrtype --dst-type LOCAL -j DOCKER ! --dst 127.0.0.0/8
iptables --wait -t nat -A OUTPUT -m addrtype --dst-type LOCAL -j DOCKER ! --dst 127.0.0.0/8
# EnsureJumpRule (iptables.go): -C (and -D) then -I
iptables --wait -t filter -C FORWARD -j DOCKER-FORWARD
iptables --wait -I FORWARD -j DOCKER-FORWARD
iptables --wait -t filter -C DOCKER-FORWARD -j DOCKER-BRIDGE
iptables --wait -I DOCKER-FORWARD -j DOCKER-BRIDGE
iptables --wait -t filter -C DOCKER-FORWARD -j DOCKER-ISOLATION-STAGE-1
iptables --wait -I DOCKER-FORWARD -j DOCKER-ISOLATION-STAGE-1
iptables --wait -t filter -C DOCKER-FORWARD -j DOCKER-CT
iptables --wait -I DOCKER-FORWARD -j DOCKER-CT
iptables --wait -t filter -C FORWARD -j DOCKER-ISOLATION-STAGE-1
# network docker0, setupNonInternalNetworkRules (network.go): Rule.Insert is -C, then -I
iptables --wait -t nat -C POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE
iptables --wait -t nat -I POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE
iptables --wait -t nat -C DOCKER -i docker0 -j RETURN
iptables --wait -t nat -I DOCKER -i docker0 -j RETURN
iptables --wait -t nat -C POSTROUTING -m addrtype --src-type LOCAL -o docker0 -j MASQUERADE
# setIcc (icc=true): the legacy rules are not there
iptables --wait -t filter -C DOCKER-FORWARD -i docker0 -o docker0 -j ACCEPT
iptables --wait -t filter -C DOCKER-FORWARD -i docker0 -o docker0 -j DROP
iptables --wait -t filter -C FORWARD -i docker0 -o docker0 -j ACCEPT
iptables --wait -t filter -C FORWARD -i docker0 -o docker0 -j DROP
iptables --wait -t filter -C FORWARD -i docker0 ! -o docker0 -j ACCEPT
iptables --wait -t filter -C DOCKER-FORWARD -i docker0 -j ACCEPT
iptables --wait -t filter -A DOCKER-FORWARD -i docker0 -j ACCEPT
iptables --wait -t filter -C FORWARD -i docker0 -j ACCEPT
# deleteLegacyFilterRules, setDefaultForwardRule, the DOCKER-CT and DOCKER-BRIDGE rules
iptables --wait -t filter -C FORWARD -o docker0 -j DOCKER
iptables --wait -t filter -C FORWARD -o docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
iptables --wait -t filter -C DOCKER ! -i docker0 -o docker0 -j DROP
iptables --wait -t filter -A DOCKER ! -i docker0 -o docker0 -j DROP
iptables --wait -t filter -C DOCKER-CT -o docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
iptables --wait -t filter -A DOCKER-CT -o docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
iptables --wait -t filter -C DOCKER-BRIDGE -o docker0 -j DOCKER
iptables --wait -t filter -A DOCKER-BRIDGE -o docker0 -j DOCKER
# setINC: ProgramRule (-C, then -A / -I)
iptables --wait -t filter -C DOCKER-ISOLATION-STAGE-1 -i docker0 ! -o docker0 -j DOCKER-ISOLATION-STAGE-2
iptables --wait -t filter -A DOCKER-ISOLATION-STAGE-1 -i docker0 ! -o docker0 -j DOCKER-ISOLATION-STAGE-2
iptables --wait -t filter -C DOCKER-ISOLATION-STAGE-2 -o docker0 -j DROP
iptables --wait -t filter -I DOCKER-ISOLATION-STAGE-2 -o docker0 -j DROP
# setupUserChain (firewall_linux.go)
iptables --wait -t filter -n -L DOCKER-USER
iptables --wait -t filter -N DOCKER-USER
iptables --wait -t filter -C FORWARD -j DOCKER-USER
iptables --wait -I FORWARD -j DOCKER-USER
# container 172.17.0.2, filterDirectAccess (endpoint.go)
iptables --wait -t raw -C PREROUTING -d 172.17.0.2 ! -i docker0 -j DROP
iptables --wait -t raw -A PREROUTING -d 172.17.0.2 ! -i docker0 -j DROP
# -p 8080:80/tcp (port.go): dropLegacyFilterDirectAccess, setPerPortNAT, setPerPortForwarding
iptables --wait -t raw -C PREROUTING -p tcp -d 172.17.0.2 --dport 80 ! -i docker0 -j DROP
iptables --wait -t nat -C DOCKER -p tcp -d 0/0 --dport 8080 -j DNAT --to-destination 172.17.0.2:80 ! -i docker0
iptables --wait -t nat -A DOCKER -p tcp -d 0/0 --dport 8080 -j DNAT --to-destination 172.17.0.2:80 ! -i docker0
iptables --wait -t nat -C POSTROUTING -p tcp -s 172.17.0.2 -d 172.17.0.2 --dport 80 -j MASQUERADE
iptables --wait -t filter -C DOCKER ! -i docker0 -o docker0 -p tcp -d 172.17.0.2 --dport 80 -j ACCEPT
iptables --wait -t filter -I DOCKER ! -i docker0 -o docker0 -p tcp -d 172.17.0.2 --dport 80 -j ACCEPT'

# The exit statuses the reference must give: on a fresh guest every
# check/list/delete/flush fails (nothing to find), every other call succeeds.
dock_expected_exits() {
	echo "$DOCKER_CMDS" | grep -v '^#' | while IFS= read -r l; do
		case " $l " in
		*" -C "* | *" -n -L "* | *" -D "* | *" -F "* | *" -X "*) echo fail ;;
		*) echo 0 ;;
		esac
	done
}

DOCK_NS="ctr ext"

dock_topo_setup() {
	local ns
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip link set lo up
	ip link add docker0 type bridge stp_state 0 &&
		ip addr add 172.17.0.1/16 dev docker0 && ip link set docker0 up || return 1
	for ns in $DOCK_NS; do
		ip netns add $ns && ip -n $ns link set lo up &&
			ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
				net.ipv6.conf.default.disable_ipv6=1 || return 1
	done
	ip link add veth-ctr type veth peer name eth0 netns ctr &&
		ip link set veth-ctr master docker0 && ip link set veth-ctr up &&
		ip -n ctr addr add 172.17.0.2/16 dev eth0 && ip -n ctr link set eth0 up &&
		ip -n ctr route add default via 172.17.0.1 || return 1
	ip link add veth-ext type veth peer name eth0 netns ext &&
		ip addr add 192.168.77.1/24 dev veth-ext && ip link set veth-ext up &&
		ip -n ext addr add 192.168.77.2/24 dev eth0 && ip -n ext link set eth0 up &&
		ip -n ext route add 172.17.0.0/16 via 192.168.77.1 || return 1
	sysctl -qw net.ipv4.ip_forward=1 || return 1
	# as tests/verdict/topology.sh: one SYN per dropped connect, no SYN/ACK
	# resent after a probe gave up, ephemeral ports clear of the probes'
	for ns in root $DOCK_NS; do
		if [ $ns = root ]; then set --; else set -- ip netns exec $ns; fi
		"$@" sysctl -qw net.ipv4.tcp_synack_retries=0 net.ipv4.tcp_syn_retries=1 \
			net.ipv4.ip_local_port_range="50000 60999" || return 1
	done
}

dock_topo_teardown() {
	[ -n "${DOCK_SERVERS:-}" ] && kill $DOCK_SERVERS 2>/dev/null
	wait 2>/dev/null
	for ns in $DOCK_NS; do ip netns del $ns 2>/dev/null; done
	ip link del docker0 2>/dev/null
	ip link del veth-ext 2>/dev/null
	return 0
}

# peers LOG N: the peer addresses LOG got after its first N lines, or none
peers() {
	local p
	p=$(tail -n +$(($2 + 1)) "$1" | sed -n 's/^peer //p' | paste -sd,)
	echo "${p:-none}"
}

# dock_probe NAME LOG NETNS SRC DST DPORT: a fw_probe and the peers the
# listener writing LOG saw
dock_probe() {
	local n r
	n=$(wc -l <"$2")
	r=$(fw_probe "$1" "$3" tcp "$4" "$5" "$6") || exit 1
	sleep 0.3	# the listener's line
	echo "$1 $r peer $(peers "$2" "$n")"
}

# The tables Docker wrote, without counters (the policy counters are
# printed even without -c); a table ebpfilter does not serve shows as
# iptables-legacy-save's error and exit status.
dock_save() {
	local t
	for t in filter nat raw; do fw_save $t; done
}

dock_counters() {
	local t
	for t in nat raw filter; do
		echo "*$t"
		iptables-legacy -w -t $t -L -n -v -x 2>&1
		echo "[list $t exit $?]"
	done
}

# counter TABLE CHAIN TARGET: the packet count of the first rule of CHAIN
# whose target is TARGET
counter() {
	iptables-legacy -w -t "$1" -L "$2" -n -v -x 2>/dev/null | awk -v t="$3" '$3 == t { print $1; exit }'
}

trap 'dock_topo_teardown' EXIT
dock_topo_setup || fail "topology"
o=$FW_OUT/docker
: >"$o.ctr80" && : >"$o.ext9000" || fail "listener logs"
ip netns exec ctr "$PEER_LISTEN" 80 "$o.ctr80" &
DOCK_SERVERS=$!
ip netns exec ext "$PEER_LISTEN" 9000 "$o.ext9000" &
DOCK_SERVERS="$DOCK_SERVERS $!"
wait_for 20 grep -q listening "$o.ctr80" && wait_for 20 grep -q listening "$o.ext9000" ||
	fail "the peer listeners did not start"
# every neighbour resolved before the reference run (ext -> ctr directly
# passes root both ways; ctr -> ext the other way round)
fw_warmup ext 192.168.77.2 172.17.0.2 80
fw_warmup ctr 172.17.0.2 192.168.77.2 9000

run_docker() {	# BACKEND
	local b=$1 t r0
	echo "$DOCKER_CMDS" >"$o.cmds"
	dmesg_mark
	run_session "$o.cmds" >"$o.commands.$b"
	dock_save >"$o.save.$b"
	for t in nat raw filter; do iptables-legacy -w -t $t -Z 2>/dev/null; done
	r0=$(fw_tcp_retrans root $DOCK_NS)
	{
		dock_probe published "$o.ctr80" ext 192.168.77.2 192.168.77.1 8080
		dock_probe outbound "$o.ext9000" ctr 172.17.0.2 192.168.77.2 9000
		dock_probe direct "$o.ctr80" ext 192.168.77.2 172.17.0.2 80
		dock_probe hairpin "$o.ctr80" root - 192.168.77.1 8080
	} >"$o.probes.$b"
	echo $(($(fw_tcp_retrans root $DOCK_NS) - r0)) >"$o.retrans.$b"
	dock_counters >"$o.counters.$b"
	# the counters of the key rules, for the reference check and the report
	echo "nat DOCKER DNAT $(counter nat DOCKER DNAT)" \
		"POSTROUTING MASQUERADE $(counter nat POSTROUTING MASQUERADE)" \
		"PREROUTING->DOCKER $(counter nat PREROUTING DOCKER)" \
		"OUTPUT->DOCKER $(counter nat OUTPUT DOCKER)" \
		"raw PREROUTING DROP $(counter raw PREROUTING DROP)" \
		"filter DOCKER ACCEPT $(counter filter DOCKER ACCEPT)" \
		"DOCKER-CT ACCEPT $(counter filter DOCKER-CT ACCEPT)" >"$o.key.$b"
	dmesg_since_mark | grep -i -e ebpfilter -e 'x_tables' >"$o.dmesg.$b" || :
	note "docker on $b: $(grep -c '^\[exit 0\]' "$o.commands.$b") commands exited 0; $(paste -sd';' "$o.probes.$b")"
	note "docker on $b, counters: $(cat "$o.key.$b")"
}

use_ip_tables
run_docker ip_tables
# The reference must be Docker's documented behaviour.
grep '^\[exit ' "$o.commands.ip_tables" | sed 's/^\[exit 0\]$/0/; s/^\[exit [1-9][0-9]*\]$/fail/' >"$o.exits.ip_tables"
dock_expected_exits >"$o.exits.want"
cmp -s "$o.exits.want" "$o.exits.ip_tables" ||
	{ cat "$o.commands.ip_tables"; fail "under ip_tables, the Docker calls did not exit as on a fresh host"; }
p=$o.probes.ip_tables
fw_expect "published 8080 -> ctr:80" "published ok peer 192.168.77.2" "$(sed -n 1p "$p")"
fw_expect "outbound from ctr, masqueraded" "outbound ok peer 192.168.77.1" "$(sed -n 2p "$p")"
fw_expect "direct access to 172.17.0.2:80 (raw DROP)" "direct timeout peer none" "$(sed -n 3p "$p")"
fw_expect "hairpin from the host to 8080" "hairpin ok peer 192.168.77.1" "$(sed -n 4p "$p")"
fw_expect "nat DOCKER DNAT packets (published, hairpin)" 2 "$(counter nat DOCKER DNAT)"
fw_expect "nat POSTROUTING MASQUERADE packets" 1 "$(counter nat POSTROUTING MASQUERADE)"
fw_expect "raw PREROUTING DROP packets" 1 "$(counter raw PREROUTING DROP)"
grep -q '^-A DOCKER ! -i docker0 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 172.17.0.2:80$' "$o.save.ip_tables" ||
	{ cat "$o.save.ip_tables"; fail "under ip_tables, no DNAT rule in the nat save"; }

fw_second_run run_docker

fw_compare "fw-docker/commands (outputs and exit statuses)" "$o.commands"
fw_compare "fw-docker/save filter nat raw" "$o.save"
fw_compare "fw-docker/probes published outbound direct hairpin (with the peers seen)" "$o.probes"
fw_compare "fw-docker/key counters" "$o.key"
# A SYN resent after a stall (its SYN/ACK later than the 1 s RTO) adds a
# packet to raw's and filter's counters, not nat's (the same connection):
# the whole listing is compared only when neither run retransmitted.
retr="$(cat "$o.retrans.ip_tables") $(cat "$o.retrans.ebpfilter")"
if [ "$retr" = "0 0" ]; then
	fw_compare "fw-docker/counters nat raw filter (-L -n -v -x)" "$o.counters"
else
	skip_part fw-docker/counters-all "not compared: TCP retransmissions $retr (a resent SYN is counted again)"
fi
[ -s "$o.dmesg.ebpfilter" ] && note "kernel log under ebpfilter: $(head -n 5 "$o.dmesg.ebpfilter" | paste -sd'|')"
fw_finish
echo "$fw_passed passed, $fw_failed failed"
[ $fw_failed = 0 ]
