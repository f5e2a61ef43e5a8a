#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test with a kube-proxy-shaped rule set: what kube-proxy's
# iptables mode (kubernetes/kubernetes pkg/proxy/iptables/proxier.go, a
# recent version) writes for three ClusterIP services with two endpoints
# each and one without endpoints, run under the kernel's ip_tables, then
# under ebpfilter, in this guest.  The commands are the ones kube-proxy
# runs, in its order (no kube-proxy binary: the rules are written here as
# its code writes them, see kp_sync_cmds and kp_rules):
#   - NewProxier() starts ipt.Monitor(), whose first act is EnsureChain()
#     of KUBE-PROXY-CANARY in mangle, nat and filter;
#   - syncProxyRules(), full sync: for iptablesJumpChains and
#     iptablesKubeletJumpChains EnsureChain() (-N, exit 1 "exists" is fine)
#     and EnsureRule(Prepend) (-C, else -I); SaveInto(nat) (the stale-chain
#     scan); then one RestoreAll() of "*filter ... COMMIT *nat ... COMMIT"
#     with NoFlushTables and RestoreCounters: iptables-restore -w 5
#     -W 100000 --noflush --counters;
#   - the input: filter KUBE-SERVICES/EXTERNAL-SERVICES/FORWARD/NODEPORTS/
#     PROXY-FIREWALL and kubelet's KUBE-FIREWALL (localhostNodePorts, the
#     default), the REJECT of the endpoint-less service, KUBE-FORWARD's
#     conntrack INVALID drop (nf_conntrack_tcp_be_liberal unset; no nfacct:
#     the guest has no nfacct counters, as when nfacct.New() fails), mark
#     and conntrack accepts; nat KUBE-SERVICES, KUBE-NODEPORTS,
#     KUBE-POSTROUTING (RETURN unless marked, MARK --xor-mark, MASQUERADE
#     --random-fully: HasRandomFully()), KUBE-MARK-MASQ (MARK --or-mark),
#     per service a KUBE-SVC-* chain (the LocalTrafficDetector's
#     "! -s clusterCIDR -j KUBE-MARK-MASQ", then writeServiceToEndpointRules'
#     statistic --probability 0.5000000000 rule and the final jump) and per
#     endpoint a KUBE-SEP-* chain (hairpin "-s EP -j KUBE-MARK-MASQ", DNAT
#     --to-destination EP:80); KUBE-SERVICES ends with the addrtype LOCAL
#     jump to KUBE-NODEPORTS.  Chain names are portProtoHash()/
#     servicePortEndpointChainName()'s, the mark is fmt.Sprintf("%#08x",
#     1<<14) = 0x004000, as kube-proxy writes it;
#   - the periodic sync loop: a partial sync (no service changed, so no
#     KUBE-SVC-*/KUBE-SEP-* lines: --noflush leaves those chains as they
#     are) after the Monitor's ChainExists() (-S KUBE-PROXY-CANARY) checks,
#     then a full sync again (the first input, restored once more).
#
# Network (guest root namespace = the node, ip_forward=1):
#   ns c   eth0 10.244.0.2 (a pod: inside clusterCIDR 10.244.0.0/16) and
#               10.0.9.2 (off-cluster)          ==== kpc 10.244.0.1, 10.0.9.1
#   ns kbJ eth0 10.244.J.2 (J = 1..6: the endpoints, a "pod" each, which
#               answers every line with its own address and the source it
#               saw: tests/fw/kp-net.py)           ==== kbJ 10.244.J.1
#   ns gw  eth0 10.0.100.2: the node's route to 10.96.0.0/12 (the cluster
#               IPs are routed off-node, as on a real node) ==== kgw 10.0.100.1
#   services: kp/web1:p80 10.96.0.10 -> 10.244.1.2, 10.244.2.2;
#             kp/web2:p80 10.96.0.11 -> .3.2, .4.2;  kp/web3:p80 10.96.0.12
#             -> .5.2, .6.2;  kp/nobody:p80 10.96.0.13 without endpoints.
#
# Per engine (the same boot; each connection from a source port of its
# own, none reused across engines):
#   1. the first sync: each command's output and exit status;
#   2. iptables-legacy-save -t filter and -t nat (no counters), and
#      iptables-legacy -t nat -L -n;
#   3. connections to each cluster IP:80: 16 from the pod address (both
#      endpoints must answer: statistic spreads them; the source they see is
#      the pod's: no masquerade), 4 from the off-cluster address and 2 from
#      the node itself (nat OUTPUT) (the source they see is the node's
#      address on the endpoint's link, 10.244.J.1: marked by KUBE-SVC's
#      "! -s 10.244.0.0/16" rule, masqueraded by KUBE-POSTROUTING); counts
#      and endpoints are summarized, not compared one by one (random);
#   4. the endpoint-less cluster IP from both client addresses: "refused"
#      (REJECT's ICMP port unreachable), not a timeout;
#   5. two connections held open (pod -> web1, off-cluster -> web2), a line
#      answered before, then the partial and the full re-sync (commands and
#      statuses recorded), then a line on the same connections: answered by
#      the same endpoint, with the same source seen;
#   6. after the re-syncs: 4 new connections per service from the pod, the
#      endpoint-less service refused again, and both saves unchanged.
# Each part must be identical under both engines; the ip_tables run must
# itself show the behaviour above, or the test fails as a broken reference.
# Ends with "N passed, N failed" over the parts.
# run-all-timeout: 900
# run-all-cost: 150
. tests/guest/fw-lib.sh
fw_tier kube-proxy

KP_NET="python3 tests/fw/kp-net.py"
KP_OUT=$FW_OUT/kp
KP_MARK=0x004000		# fmt.Sprintf("%#08x", 1<<masqueradeBit), masqueradeBit 14
KP_CLUSTER_CIDR=10.244.0.0/16	# the LocalTrafficDetector's cluster CIDR
KP_W="-w 5 -W 100000"		# utiliptables' wait flags (iptables >= 1.6.1)
# NAME VIP ENDPOINT ENDPOINT (namespace kp, port name p80, TCP 80 -> 80)
KP_SVCS="web1 10.96.0.10 10.244.1.2 10.244.2.2
web2 10.96.0.11 10.244.3.2 10.244.4.2
web3 10.96.0.12 10.244.5.2 10.244.6.2"
KP_NOEP_VIP=10.96.0.13		# kp/nobody:p80, no endpoints
KP_POD=10.244.0.2 KP_EXT=10.0.9.2 KP_NODE=10.0.100.1

command -v python3 >/dev/null || fail "no python3 in the guest"

# portProtoHash() and servicePortEndpointChainName(): base32(sha256(...))[:16]
declare -A KP_CHAIN
while read -r key chain; do
	KP_CHAIN[$key]=$chain
done < <(echo "$KP_SVCS" | python3 -c '
import base64, hashlib, sys
h = lambda s: base64.b32encode(hashlib.sha256(s.encode()).digest()).decode()[:16]
for line in sys.stdin:
    name, vip, *eps = line.split()
    spn = "kp/%s:p80" % name
    print(name, "KUBE-SVC-" + h(spn + "tcp"))
    for ep in eps:
        print(ep, "KUBE-SEP-" + h(spn + "tcp" + ep + ":80"))
')
[ ${#KP_CHAIN[@]} = 9 ] || fail "chain names: ${!KP_CHAIN[*]}"

# kp_rules full|partial: the iptables-restore input of syncProxyRules()
# (a partial sync writes no KUBE-SVC-*/KUBE-SEP-* chain of an unchanged
# service).  Services in sorted order (kube-proxy: its map's order).
kp_rules() {
	local mode=$1 c name vip e1 e2 ep n
	echo '*filter'
	for c in KUBE-SERVICES KUBE-EXTERNAL-SERVICES KUBE-FORWARD KUBE-NODEPORTS KUBE-PROXY-FIREWALL KUBE-FIREWALL; do
		echo ":$c - [0:0]"
	done
	echo '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP'
	echo "-A KUBE-SERVICES -m comment --comment \"kp/nobody:p80 has no endpoints\" -m tcp -p tcp -d $KP_NOEP_VIP --dport 80 -j REJECT"
	echo '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP'
	echo "-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding rules\" -m mark --mark $KP_MARK/$KP_MARK -j ACCEPT"
	echo '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT'
	echo COMMIT
	echo '*nat'
	for c in KUBE-SERVICES KUBE-NODEPORTS KUBE-POSTROUTING KUBE-MARK-MASQ; do
		echo ":$c - [0:0]"
	done
	if [ "$mode" = full ]; then
		while read -r name vip e1 e2; do
			echo ":${KP_CHAIN[$name]} - [0:0]"
			echo ":${KP_CHAIN[$e1]} - [0:0]"
			echo ":${KP_CHAIN[$e2]} - [0:0]"
		done <<<"$KP_SVCS"
	fi
	echo "-A KUBE-POSTROUTING -m mark ! --mark $KP_MARK/$KP_MARK -j RETURN"
	echo "-A KUBE-POSTROUTING -j MARK --xor-mark $KP_MARK"
	echo '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully'
	echo "-A KUBE-MARK-MASQ -j MARK --or-mark $KP_MARK"
	while read -r name vip e1 e2; do
		c=${KP_CHAIN[$name]}
		echo "-A KUBE-SERVICES -m comment --comment \"kp/$name:p80 cluster IP\" -m tcp -p tcp -d $vip --dport 80 -j $c"
		[ "$mode" = full ] || continue
		echo "-A $c -m comment --comment \"kp/$name:p80 cluster IP\" -m tcp -p tcp -d $vip --dport 80 ! -s $KP_CLUSTER_CIDR -j KUBE-MARK-MASQ"
		echo "-A $c -m comment --comment \"kp/$name:p80 -> $e1:80\" -m statistic --mode random --probability 0.5000000000 -j ${KP_CHAIN[$e1]}"
		echo "-A $c -m comment --comment \"kp/$name:p80 -> $e2:80\" -j ${KP_CHAIN[$e2]}"
		for ep in $e1 $e2; do
			echo "-A ${KP_CHAIN[$ep]} -m comment --comment kp/$name:p80 -s $ep -j KUBE-MARK-MASQ"
			echo "-A ${KP_CHAIN[$ep]} -m comment --comment kp/$name:p80 -m tcp -p tcp -j DNAT --to-destination $ep:80"
		done
	done <<<"$KP_SVCS"
	echo '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS'
	echo COMMIT
}

# kp_sync_cmds start|full|partial: one sync's commands, one line each
# (run_session); "start" is NewProxier()'s Monitor start plus the first
# full sync; "partial" the Monitor's canary check plus a partial sync.
kp_sync_cmds() {
	local mode=$1 t table dst src comment extra args
	case $mode in
	start) for t in mangle nat filter; do echo "iptables-legacy $KP_W -N KUBE-PROXY-CANARY -t $t"; done ;;
	partial) for t in mangle nat filter; do echo "iptables-legacy $KP_W -S KUBE-PROXY-CANARY -t $t"; done ;;
	esac
	if [ "$mode" != partial ]; then
		# iptablesJumpChains, then iptablesKubeletJumpChains (no comment)
		while IFS='|' read -r table dst src comment extra; do
			echo "iptables-legacy $KP_W -N $dst -t $table"
			args="${extra:+$extra }${comment:+-m comment --comment \"$comment\" }-j $dst"
			echo "iptables-legacy $KP_W -C $src -t $table $args || iptables-legacy $KP_W -I $src -t $table $args"
		done <<-'EOF'
		filter|KUBE-EXTERNAL-SERVICES|INPUT|kubernetes externally-visible service portals|-m conntrack --ctstate NEW
		filter|KUBE-EXTERNAL-SERVICES|FORWARD|kubernetes externally-visible service portals|-m conntrack --ctstate NEW
		filter|KUBE-NODEPORTS|INPUT|kubernetes health check service ports|
		filter|KUBE-SERVICES|FORWARD|kubernetes service portals|-m conntrack --ctstate NEW
		filter|KUBE-SERVICES|OUTPUT|kubernetes service portals|-m conntrack --ctstate NEW
		filter|KUBE-FORWARD|FORWARD|kubernetes forwarding rules|
		filter|KUBE-PROXY-FIREWALL|INPUT|kubernetes load balancer firewall|-m conntrack --ctstate NEW
		filter|KUBE-PROXY-FIREWALL|OUTPUT|kubernetes load balancer firewall|-m conntrack --ctstate NEW
		filter|KUBE-PROXY-FIREWALL|FORWARD|kubernetes load balancer firewall|-m conntrack --ctstate NEW
		nat|KUBE-SERVICES|OUTPUT|kubernetes service portals|
		nat|KUBE-SERVICES|PREROUTING|kubernetes service portals|
		nat|KUBE-POSTROUTING|POSTROUTING|kubernetes postrouting rules|
		filter|KUBE-FIREWALL|INPUT||
		filter|KUBE-FIREWALL|OUTPUT||
		EOF
	fi
	echo "iptables-legacy-save -t nat >/dev/null"
	echo "iptables-legacy-restore $KP_W --noflush --counters <$KP_OUT.rules.${mode/start/full}"
}

# kp_sync_bad TRANSCRIPT: the commands that failed as kube-proxy sees a
# failure (an EnsureChain -N that exits 1 found the chain: not a failure)
kp_sync_bad() {
	awk '/^\$ / { cmd = $0; next }
	/^\[exit [0-9]+\]$/ { rc = $2 + 0
		if (rc != 0 && !(rc == 1 && cmd ~ / -N / && cmd !~ /\|\|/)) print cmd " -> exit " rc }' "$1"
}

# kp_summary RAW: per probe series (label NAME-SRCKIND) the outcomes and,
# for the pod series, the endpoints reached; the source each endpoint saw
# as "client" (the connecting address), "node" (the node's address on
# that endpoint's link, 10.244.J.1), or as it is.
kp_summary() {
	awk -v pod=$KP_POD -v ext=$KP_EXT -v node=$KP_NODE '
	{ label = $1; r = $3; if (!(label in seen)) { seen[label] = 1; order[++n] = label }
	  cnt[label, r]++; outs[label] = outs[label] (index(" " outs[label] " ", " " r " ") ? "" : " " r)
	  if (r != "ok") next
	  src = label ~ /-pod/ ? pod : label ~ /-ext/ ? ext : node
	  ep = $4; split(ep, o, "."); nodeaddr = o[1] "." o[2] "." o[3] ".1"
	  kind = $5 == src ? "client" : $5 == nodeaddr ? "node" : $5
	  if (!index(" " peers[label] " ", " " kind " ")) peers[label] = peers[label] " " kind
	  if (label ~ /-pod$/ && !index(" " eps[label] " ", " " ep " ")) eps[label] = eps[label] " " ep }
	END { for (i = 1; i <= n; i++) { l = order[i]; s = l ":"
		split(substr(outs[l], 2), rs, " ")
		for (k in rs) s = s " " cnt[l, rs[k]] " " rs[k]
		if (peers[l] != "") s = s "; source seen:" peers[l]
		if (eps[l] != "") { m = split(substr(eps[l], 2), e, " ")
			# endpoints in sorted order
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (e[b] < e[a]) { t = e[a]; e[a] = e[b]; e[b] = t }
			s = s "; endpoints:"; for (a = 1; a <= m; a++) s = s " " e[a] }
		print s } }' "$1"
}

# kp_hold_summary RAW: the held connections: before (the source seen),
# after (answered by the same endpoint with the same source seen?)
kp_hold_summary() {
	awk -v pod=$KP_POD -v ext=$KP_EXT '
	$1 == "ready" { next }
	{ what = $1; label = $2
	  if (NF < 4) { print what " " label " " $3; next }
	  src = label ~ /-pod/ ? pod : ext; split($3, o, "."); nodeaddr = o[1] "." o[2] "." o[3] ".1"
	  kind = $4 == src ? "client" : $4 == nodeaddr ? "node" : $4
	  if (what == "before") { b[label] = $3 " " $4; print "before " label " ok; source seen: " kind }
	  else print "after " label " ok; " (b[label] == $3 " " $4 ? "same endpoint, same source seen" : "now " $3 " " $4 " (before " b[label] ")") }' "$1"
}

kp_topo() {
	local j
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip link set lo up
	topo_ns_link c kpc 10.244.0.1 $KP_POD $KP_EXT &&
		ip addr add 10.0.9.1/24 dev kpc || return 1
	for j in 1 2 3 4 5 6; do
		topo_ns_link kb$j kb$j 10.244.$j.1 10.244.$j.2 || return 1
	done
	topo_ns_link gw kgw $KP_NODE 10.0.100.2 &&
		ip route add 10.96.0.0/12 via 10.0.100.2 || return 1
	# NewProxier(): route_localnet=1 for NodePorts on localhost
	sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.route_localnet=1 \
		net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
}

KP_SERVERS=
kp_teardown() {
	local ns
	[ -n "$KP_SERVERS" ] && kill $KP_SERVERS 2>/dev/null
	wait 2>/dev/null
	for ns in c kb1 kb2 kb3 kb4 kb5 kb6 gw; do ip netns del $ns 2>/dev/null; done
	return 0
}

# kp_probes SPORT SUFFIX COUNT-POD COUNT-EXT COUNT-NODE: the connection
# series of one phase (source ports from SPORT on), raw results on stdout
kp_probes() {
	local sp=$1 sfx=$2 np=$3 ne=$4 nn=$5 name vip e1 e2 cargs=() rargs=()
	while read -r name vip e1 e2; do
		cargs+=("$name-pod$sfx" $KP_POD $vip 80 $np $sp); sp=$((sp + np))
		[ "$ne" = 0 ] || { cargs+=("$name-ext$sfx" $KP_EXT $vip 80 $ne $sp); sp=$((sp + ne)); }
		[ "$nn" = 0 ] || { rargs+=("$name-node$sfx" $KP_NODE $vip 80 $nn $sp); sp=$((sp + nn)); }
	done <<<"$KP_SVCS"
	cargs+=("nobody-pod$sfx" $KP_POD $KP_NOEP_VIP 80 1 $sp "nobody-ext$sfx" $KP_EXT $KP_NOEP_VIP 80 1 $((sp + 1)))
	ip netns exec c $KP_NET probe "${cargs[@]}"
	[ ${#rargs[@]} = 0 ] || $KP_NET probe "${rargs[@]}"
}

run_kube() {	# BACKEND: ip_tables (source ports from 21000) or ebpfilter (26000)
	local b=$1 sp=21000 o=$KP_OUT pid
	if [ "$b" = ebpfilter ]; then
		sp=26000
		# what serves the tables must not be ip_tables' modules (nat included)
		[ "${FW_BOTH_IP_TABLES:-}" = 1 ] || ! lsmod | grep -E '^(ip_tables|iptable_[a-z]+) ' ||
			fail "ip_tables modules still loaded beside ebpfilter"
	fi
	dmesg_mark
	run_session "$o.sync1.cmds" >"$o.sync1.$b"
	{ fw_save filter; fw_save nat; } >"$o.save.$b"
	{ iptables-legacy -t nat -L -n 2>&1; echo "[exit $?]"; } >"$o.natlist.$b"
	kp_probes $sp "" 16 4 2 >"$o.raw.$b"
	kp_summary "$o.raw.$b" >"$o.services.$b"

	# an established connection across the re-syncs
	rm -f "$o.fifo" && mkfifo "$o.fifo" || fail "mkfifo"
	ip netns exec c $KP_NET hold web1-pod $KP_POD 10.96.0.10 80 $((sp + 100)) \
		web2-ext $KP_EXT 10.96.0.11 80 $((sp + 101)) <"$o.fifo" >"$o.holdraw.$b" &
	pid=$!
	exec 3>"$o.fifo"
	wait_for 30 grep -qx ready "$o.holdraw.$b" || { exec 3>&-; fail "$b: the held connections never got ready"; }
	{ run_session "$o.sync2.cmds"; run_session "$o.sync3.cmds"; } >"$o.resync.$b"
	echo go >&3
	exec 3>&-
	wait $pid
	rm -f "$o.fifo"	# (no special file in what is copied out over 9p)
	kp_hold_summary "$o.holdraw.$b" >"$o.established.$b"

	kp_probes $((sp + 200)) -again 4 0 0 >"$o.raw2.$b"
	kp_summary "$o.raw2.$b" >"$o.again.$b"
	{ fw_save filter; fw_save nat; } >"$o.save2.$b"
	dmesg_since_mark >"$o.dmesg.$b"
	note "$b: first sync: $(kp_sync_bad "$o.sync1.$b" | wc -l) failed commands; $(grep -c '^-A' "$o.save.$b") rules saved ($(sed -n '/^\*nat/,$p' "$o.save.$b" | grep -c '^-A') in nat)"
	sed 's/^/    /' "$o.services.$b" "$o.established.$b" "$o.again.$b"
}

mkdir -p "$FW_OUT"
kp_rules full >"$KP_OUT.rules.full"
kp_rules partial >"$KP_OUT.rules.partial"
kp_sync_cmds start >"$KP_OUT.sync1.cmds"
kp_sync_cmds partial >"$KP_OUT.sync2.cmds"
kp_sync_cmds full >"$KP_OUT.sync3.cmds"

trap 'kp_teardown' EXIT
kp_topo || fail "topology"
for j in 1 2 3 4 5 6; do
	ip netns exec kb$j $KP_NET serve 80 &
	KP_SERVERS="$KP_SERVERS $!"
done
for j in 1 2 3 4 5 6; do
	wait_for 60 sh -c "ip netns exec kb$j ss -Hltn | grep -q ':80 '" || fail "endpoint kb$j is not listening"
done

# Before any rule: every endpoint reached directly from both client
# addresses (neighbours resolved, servers answering), so that no first
# probe of the reference run times out on ARP under a loaded host (three
# tries, source ports 20000-20099, none of them used again).
kp_warmup() {
	local i j args
	for i in 1 2 3; do
		args=()
		for j in 1 2 3 4 5 6; do
			args+=(w$j-pod $KP_POD 10.244.$j.2 80 1 $((20000 + 20 * i + j))
				w$j-ext $KP_EXT 10.244.$j.2 80 1 $((20010 + 20 * i + j)))
		done
		[ "$(ip netns exec c $KP_NET probe "${args[@]}" | grep -c ' ok ')" = 12 ] && return 0
	done
	fail "the endpoints do not answer a connect from c without rules"
}
kp_warmup

use_ip_tables
run_kube ip_tables
# The reference must be kube-proxy's behaviour.
o=$KP_OUT
bad=$(kp_sync_bad "$o.sync1.ip_tables")
[ -z "$bad" ] || { cat "$o.sync1.ip_tables"; fail "under ip_tables, the first sync failed: $bad"; }
bad=$(kp_sync_bad "$o.resync.ip_tables")
[ -z "$bad" ] || { cat "$o.resync.ip_tables"; fail "under ip_tables, a re-sync failed: $bad"; }
grep -q -- "-j DNAT --to-destination 10.244.6.2:80" "$o.save.ip_tables" ||
	{ cat "$o.save.ip_tables"; fail "under ip_tables, the nat table was not restored"; }
while read -r name vip e1 e2; do
	fw_expect "$name from the pod" "$name-pod: 16 ok; source seen: client; endpoints: $e1 $e2" \
		"$(grep "^$name-pod:" "$o.services.ip_tables")"
	fw_expect "$name from off-cluster" "$name-ext: 4 ok; source seen: node" "$(grep "^$name-ext:" "$o.services.ip_tables")"
	fw_expect "$name from the node" "$name-node: 2 ok; source seen: node" "$(grep "^$name-node:" "$o.services.ip_tables")"
	fw_expect "$name after the re-syncs" "$name-pod-again: 4 ok; source seen: client" \
		"$(grep "^$name-pod-again:" "$o.again.ip_tables" | sed 's/; endpoints:.*//')"
done <<<"$KP_SVCS"
fw_expect "the endpoint-less service" "nobody-pod: 1 refused|nobody-ext: 1 refused" \
	"$(grep '^nobody-' "$o.services.ip_tables" | paste -sd'|')"
fw_expect "the endpoint-less service after the re-syncs" "nobody-pod-again: 1 refused|nobody-ext-again: 1 refused" \
	"$(grep '^nobody-' "$o.again.ip_tables" | paste -sd'|')"
fw_expect "held connections" "before web1-pod ok; source seen: client|before web2-ext ok; source seen: node|after web1-pod ok; same endpoint, same source seen|after web2-ext ok; same endpoint, same source seen" \
	"$(paste -sd'|' "$o.established.ip_tables")"
cmp -s "$o.save.ip_tables" "$o.save2.ip_tables" ||
	{ diff -u "$o.save.ip_tables" "$o.save2.ip_tables"; fail "under ip_tables, the re-syncs changed the rules"; }

fw_second_run run_kube

fw_compare "fw-kube-proxy/first sync (commands, outputs, exit statuses)" "$o.sync1"
fw_compare "fw-kube-proxy/save filter and nat" "$o.save"
fw_compare "fw-kube-proxy/nat -L -n" "$o.natlist"
fw_compare "fw-kube-proxy/services (endpoints reached, source seen)" "$o.services"
fw_compare "fw-kube-proxy/re-syncs (partial, full)" "$o.resync"
fw_compare "fw-kube-proxy/established connections across the re-syncs" "$o.established"
fw_compare "fw-kube-proxy/services after the re-syncs" "$o.again"
fw_compare "fw-kube-proxy/save after the re-syncs" "$o.save2"
if [ $fw_failed != 0 ] && [ -s "$o.dmesg.ebpfilter" ]; then
	note "kernel log during the ebpfilter run (last 15 lines):"
	tail -n 15 "$o.dmesg.ebpfilter" | sed 's/^/    /'
fi
fw_finish
echo "$fw_passed passed, $fw_failed failed"
[ $fw_failed = 0 ]
