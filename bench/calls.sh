# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/calls.sh: issue 20 item 1's cells that change rules one call at a
# time, sourced by bench/run's guest side (BENCH_CELLS=calls; see
# bench/calls.md).  Guest time (-icount: instructions) per call, best over
# the rounds, for nftables ("nft"), ip_tables ("ipt") and ebpfilter ("ebpf"):
#   add.N     300 x `iptables-legacy -w -A FORWARD ...` (one rule each) on
#             top of the N-rule linear set (bench/gen-rules); nft: as many
#             `nft add rule` into the same table in nft
#   ban.B     100 fail2ban bans, `iptables-legacy -w -I f2b-x 1 -s IP -j
#             REJECT ...`, on a chain of B bans; nft: `nft add element` into
#             the set fail2ban's nftables action uses
#   unban.B   the same 100 unbanned (`-D f2b-x -s IP -j REJECT ...`; nft
#             delete element)
#   sync.S    kube-proxy's full sync, repeated: `iptables-legacy-restore
#             --noflush --counters` of the whole kube filter+nat set (its
#             KUBE-* chains; S services), on top of the same set loaded
#             once; nft: one `nft -f` of the table (flush table, then its
#             chains, maps and elements), ms per sync
# Knobs: BENCH_CALLS_NS (N, default "0 1000 10000"), BENCH_CALLS_ADDS (300),
# BENCH_CALLS_BANNED (B, 1000), BENCH_CALLS_BANS (100), BENCH_CALLS_KUBE
# (S, 5000), BENCH_CALLS_SYNCS (5).

CALLS_NS=${BENCH_CALLS_NS:-0 1000 10000}
CALLS_ADDS=${BENCH_CALLS_ADDS:-300}
CALLS_BANNED=${BENCH_CALLS_BANNED:-1000}
CALLS_BANS=${BENCH_CALLS_BANS:-100}
CALLS_KUBE=${BENCH_CALLS_KUBE:-5000}
CALLS_SYNCS=${BENCH_CALLS_SYNCS:-5}
declare -A K	# FW.CELL -> guest ms per call, best over the rounds
ADD_RULE=() NEW_IP=()

# ns_now: the guest clock in ns, and (global I0) the guest's idle time in
# 10 ms (/proc/uptime): time the vCPU idled (waiting for a grace period, a
# timer, the helper...) follows the host's clock, not instructions
ns_now() { I0=$(awk '{ printf "%d", $2 * 100 }' /proc/uptime); date +%s%N; }
# calls_keep KEY T0 T1 COUNT I0 I1: busy ms per call (the clock's time
# less the idle time: instructions), kept in K[KEY] if the best so far,
# with that round's ms per call on the clock, idle included, in E[KEY] and
# its idle share in IDLE[KEY]
declare -A IDLE E
calls_keep() {
	local v e i
	e=$(awk -v a=$2 -v b=$3 -v n=$4 'BEGIN { printf "%.2f", (b - a) / 1e6 / n }')
	v=$(awk -v a=$2 -v b=$3 -v n=$4 -v i=$(($6 - $5)) 'BEGIN { printf "%.2f", (b - a - i * 1e7) / 1e6 / n }')
	i=$(awk -v a=$2 -v b=$3 -v i=$(($6 - $5)) 'BEGIN { printf "%.0f", i * 1e9 / (b - a) }')
	echo "calls $1 round $round: $4 calls, $v ms busy per call, $e ms on the clock, idle $i%"
	awk -v v=$v -v o="${K[$1]:-}" 'BEGIN { exit !(o == "" || v < o) }' && K[$1]=$v E[$1]=$e IDLE[$1]=$i
	return 0
}
# the i-th rule added (198.18.0.0/15, never in the linear set), the i-th
# ban of the chain, the i-th new ban
calls_rule() { echo "198.18.$(($1 / 256 % 256)).$(($1 % 256)) $((1000 + $1 % 8000))"; }
ban_ip() { echo "100.64.$(($1 / 256)).$(($1 % 256))"; }
new_ip() { echo "100.66.$(($1 / 256)).$(($1 % 256))"; }

calls_gen() {
	local n i
	# the calls' arguments, ready before the clock starts
	for ((i = 0; i < CALLS_ADDS; i++)); do ADD_RULE[$i]=$(calls_rule $i); done
	for ((i = 0; i < CALLS_BANS; i++)); do NEW_IP[$i]=$(new_ip $i); done
	for n in $CALLS_NS; do
		bench/gen-rules ipt linear $n >$W/calls-linear-$n.ipt
		bench/gen-rules nft linear $n >$W/calls-linear-$n.nft
	done
	# fail2ban's iptables-multiport action: a chain f2b-x jumped to from
	# INPUT for its ports, its bans first, then RETURN
	{
		printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:f2b-x - [0:0]\n'
		echo "-A INPUT -p tcp -m multiport --dports 22 -j f2b-x"
		for ((i = 0; i < CALLS_BANNED; i++)); do
			echo "-A f2b-x -s $(ban_ip $i)/32 -j REJECT --reject-with icmp-port-unreachable"
		done
		printf -- '-A f2b-x -j RETURN\nCOMMIT\n'
	} >$W/f2b.ipt
	# its nftables-multiport action: a set, one rule
	{
		echo "table ip bench {"
		echo " set addr-set-x {"
		echo "  type ipv4_addr"
		[ "$CALLS_BANNED" = 0 ] || echo "  elements = { $(for ((i = 0; i < CALLS_BANNED; i++)); do
			printf '%s%s' "$([ $i = 0 ] || echo ', ')" "$(ban_ip $i)"; done) }"
		echo " }"
		echo " chain f2b-chain {"
		echo "  type filter hook input priority -1; policy accept;"
		echo "  tcp dport { 22 } ip saddr @addr-set-x reject"
		echo " }"
		echo "}"
	} >$W/f2b.nft
	# kube-proxy: the filter table (its fixed rules and a REJECT per
	# service without endpoints: one in ten, beyond the nat table's), the
	# nat table (bench/gen-rules kube).  The first load declares the
	# built-in chains and their jumps; the syncs only kube-proxy's chains
	# (as its iptables-restore --noflush input does: the jumps from the
	# built-in chains stay)
	kube_filter() {	# full|sync
		echo "*filter"
		[ $1 = sync ] || printf ':INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n'
		printf ':%s - [0:0]\n' KUBE-NODEPORTS KUBE-SERVICES KUBE-EXTERNAL-SERVICES KUBE-FIREWALL KUBE-FORWARD KUBE-PROXY-FIREWALL
		[ $1 = sync ] || printf '%s\n' \
			'-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS' \
			'-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES' \
			'-A INPUT -j KUBE-FIREWALL' \
			'-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD' \
			'-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES' \
			'-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES' \
			'-A OUTPUT -j KUBE-FIREWALL'
		printf '%s\n' \
			'-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP' \
			'-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP' \
			'-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT' \
			'-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT'
		awk -v n=$CALLS_KUBE 'BEGIN { for (i = 0; i < n / 10; i++)
			printf "-A KUBE-SERVICES -d 10.97.%d.%d/32 -p tcp -m comment --comment \"bench/ne%d:http has no endpoints\" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable\n", int(i / 250), i % 250 + 1, i }'
		echo "COMMIT"
	}
	{ kube_filter full; bench/gen-rules ipt kube $CALLS_KUBE; } >$W/kube-full.ipt
	{ kube_filter sync; bench/gen-rules ipt kube $CALLS_KUBE |
		grep -v -e '^:\(PREROUTING\|INPUT\|OUTPUT\|POSTROUTING\) ' -e '^-A \(PREROUTING\|INPUT\|OUTPUT\|POSTROUTING\) '; } >$W/kube-sync.ipt
	# nft: kube-proxy's nftables mode, its no-endpoint services a map to a
	# reject chain; a sync is one transaction that empties the table and
	# writes it again
	kube_nft() {
		bench/gen-rules nft kube $CALLS_KUBE
		echo "table ip bench {"
		echo " chain reject-chain {"
		echo "  reject"
		echo " }"
		echo " map no-endpoint-services {"
		echo "  type ipv4_addr . inet_proto . inet_service : verdict"
		echo " }"
		echo " chain filter-forward-ne {"
		echo "  type filter hook forward priority -1; policy accept;"
		echo "  ct state new ip daddr . meta l4proto . th dport vmap @no-endpoint-services"
		echo " }"
		echo "}"
		awk -v n=$CALLS_KUBE 'BEGIN { if (n < 10) exit; print "add element ip bench no-endpoint-services {"
			for (i = 0; i < n / 10; i++) printf "  10.97.%d.%d . tcp . 80 : goto reject-chain%s\n", int(i / 250), i % 250 + 1, i + 1 < n / 10 ? "," : ""
			print "}" }'
	}
	kube_nft >$W/kube-full.nft
	{ printf 'add table ip bench\nflush table ip bench\n'; kube_nft; } >$W/kube-sync.nft
}

# calls_load B STEM: the firewall B up (nft: nothing to load) with
# STEM.nft or STEM.ipt; calls_unload B CELL: down again, nothing left
calls_load() {
	case $1 in
	nft) nft -f $2.nft || fail "nft -f $2.nft" ;;
	*) fw_up $1; iptables-legacy-restore <$2.ipt || fail "restore $2.ipt ($1)" ;;
	esac
}
calls_unload() { case $1 in nft) nft_down $1.$2 ;; *) fw_down $1 $2 ;; esac; }

calls_add() {	# B N
	local b=$1 n=$2 i r t0 t1 i0 got
	calls_load $b $W/calls-linear-$n
	ns_now >/dev/null; i0=$I0; t0=$(ns_now)
	for ((i = 0; i < CALLS_ADDS; i++)); do
		# shellcheck disable=SC2206 # "IP PORT": two words
		r=(${ADD_RULE[$i]})
		case $b in
		nft) nft add rule ip bench fchain ip saddr ${r[0]} tcp dport ${r[1]} drop ;;
		*) iptables-legacy -w -A FORWARD -s ${r[0]} -p tcp --dport ${r[1]} -j DROP ;;
		esac || fail "$b.add.$n: call $i failed"
	done
	ns_now >/dev/null; t1=$(ns_now)
	case $b in
	nft) got=$(nft -a list chain ip bench fchain | grep -c 'handle') ;;
	*) got=$(iptables-legacy -S FORWARD | grep -c '^-A') ;;
	esac
	# nft -a lists the chain's handle too
	[ $b != nft ] || got=$((got - 1))
	[ "$got" = $((n + 1 + CALLS_ADDS)) ] || fail "$b.add.$n: $got rules, not $((n + 1 + CALLS_ADDS))"
	calls_keep $b.add.$n $t0 $t1 $CALLS_ADDS $i0 $I0
	calls_unload $b add.$n
}

# f2b_calls B ban|unban: the CALLS_BANS new addresses banned or unbanned,
# one call each
f2b_calls() {
	local i ip
	for ((i = 0; i < CALLS_BANS; i++)); do
		ip=${NEW_IP[$i]}
		case $1.$2 in
		nft.ban) nft add element ip bench addr-set-x "{ $ip }" ;;
		nft.unban) nft delete element ip bench addr-set-x "{ $ip }" ;;
		*.ban) iptables-legacy -w -I f2b-x 1 -s $ip -j REJECT --reject-with icmp-port-unreachable ;;
		*.unban) iptables-legacy -w -D f2b-x -s $ip -j REJECT --reject-with icmp-port-unreachable ;;
		esac || fail "$1.$2: call $i failed"
	done
}
# f2b_count B WANT WHAT: the bans in force are WANT
f2b_count() {
	local got
	case $1 in
	nft) got=$(nft list set ip bench addr-set-x | grep -o '[0-9]*\.[0-9]*\.[0-9]*\.[0-9]*' | wc -l) ;;
	*) got=$(iptables-legacy -S f2b-x | grep -c -- '-j REJECT') ;;
	esac
	[ "$got" = $2 ] || fail "$1.$3: $got bans, not $2"
}
calls_ban() {	# B
	local b=$1 op t0 t1 i0 want
	calls_load $b $W/f2b
	for op in ban unban; do
		ns_now >/dev/null; i0=$I0; t0=$(ns_now)
		f2b_calls $b $op
		ns_now >/dev/null; t1=$(ns_now)
		calls_keep $b.$op.$CALLS_BANNED $t0 $t1 $CALLS_BANS $i0 $I0
		want=$CALLS_BANNED
		[ $op = unban ] || want=$((CALLS_BANNED + CALLS_BANS))
		f2b_count $b $want $op
	done
	calls_unload $b f2b
}

calls_sync() {	# B
	local b=$1 i t0 t1 i0 got
	calls_load $b $W/kube-full
	ns_now >/dev/null; i0=$I0; t0=$(ns_now)
	for ((i = 0; i < CALLS_SYNCS; i++)); do
		case $b in
		nft) nft -f $W/kube-sync.nft ;;
		*) iptables-legacy-restore --noflush --counters <$W/kube-sync.ipt ;;
		esac || fail "$b.sync: sync $i failed"
	done
	ns_now >/dev/null; t1=$(ns_now)
	case $b in
	nft) got=$(nft list map ip bench service-ips | grep -c ' : goto ') ;;
	*) got=$(iptables-legacy -t nat -S KUBE-SERVICES | grep -c -- '-j KUBE-SVC-')
	   [ "$(iptables-legacy -t nat -S PREROUTING | grep -c -- '-j KUBE-SERVICES')" = 1 ] ||
		fail "$b.sync: PREROUTING's jump to KUBE-SERVICES is not there once" ;;
	esac
	[ "$got" = $((CALLS_KUBE + 1)) ] || fail "$b.sync: $got services, not $((CALLS_KUBE + 1))"
	calls_keep $b.sync.$CALLS_KUBE $t0 $t1 $CALLS_SYNCS $i0 $I0
	calls_unload $b sync
}

calls_measure() {
	local n b
	calls_gen
	for round in $(seq 1 "$ROUNDS"); do
		for n in $CALLS_NS; do for b in nft ipt ebpf; do calls_add $b $n; done; done
		for b in nft ipt ebpf; do calls_ban $b; done
		for b in nft ipt ebpf; do calls_sync $b; done
	done
}

calls_table() {
	local c r1 r2 cells
	cells="$(for n in $CALLS_NS; do echo add.$n; done) ban.$CALLS_BANNED unban.$CALLS_BANNED sync.$CALLS_KUBE"
	say ""
	say "(calls) changing rules one call at a time: busy guest ms (= instructions: the clock's"
	say "time less the vCPU's idle time) per call (per sync for sync), best of ${ROUNDS}, and"
	say "ebpfilter / ip_tables, ebpfilter / nftables"
	say "$(printf '%-6s %6s %9s %10s %10s %9s %9s  %s' cell N nftables ip_tables ebpfilter ebpf/ipt ebpf/nft 'idle % nft/ipt/ebpf')"
	for c in $cells; do
		say "$(printf '%-6s %6s %9s %10s %10s %9s %9s  %s' ${c%.*} ${c#*.} "${K[nft.$c]:--}" "${K[ipt.$c]:--}" \
			"${K[ebpf.$c]:--}" "$(ratio "${K[ebpf.$c]:-}" "${K[ipt.$c]:-}")" "$(ratio "${K[ebpf.$c]:-}" "${K[nft.$c]:-}")" \
			"${IDLE[nft.$c]:--}/${IDLE[ipt.$c]:--}/${IDLE[ebpf.$c]:--}")"
	done
	say "  add: $CALLS_ADDS x iptables-legacy -w -A FORWARD -s IP -p tcp --dport P -j DROP on top of N"
	say "  linear rules (nft add rule, same table in nft); ban: $CALLS_BANS x iptables-legacy -w -I f2b-x 1 -s IP"
	say "  -j REJECT on a chain of N bans (nft add element to fail2ban's set); unban: the same"
	say "  deleted (-D; nft delete element); sync: kube-proxy's full sync, $CALLS_SYNCS x"
	say "  iptables-legacy-restore --noflush --counters of the filter+nat KUBE-* chains of N services"
	say "  on the same set (nft -f: flush table and write it again, kube-proxy's nftables shape)"
	say "  idle %: the share of the cell's time the vCPU idled (/proc/uptime, 10 ms steps: waiting"
	say "  for 9p, timers, grace periods), left out of the ms above: it follows the host's clock"
	say ""
	say "targets (issue 20): no slower than ip_tables and no slower than nftables' equivalent:"
	for c in $cells; do
		r1=$(ratio "${K[ebpf.$c]:-}" "${K[ipt.$c]:-}")
		r2=$(ratio "${K[ebpf.$c]:-}" "${K[nft.$c]:-}")
		say "  $(printf '%-6s %6s' ${c%.*} ${c#*.}): ebpf/ipt $r1 -> $(verdict "$r1" "<=" 1), ebpf/nft $r2 -> $(verdict "$r2" "<=" 1)"
	done
	say "per-call ms (guest busy = instructions, best): $(for k in $(printf '%s\n' "${!K[@]}" | sort -V); do printf '%s=%s ' $k "${K[$k]}"; done)"
	say "per-call ms on the guest clock, idle included (same rounds): $(for k in $(printf '%s\n' "${!E[@]}" | sort -V); do printf '%s=%s ' $k "${E[$k]}"; done)"
}
