# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/netns.sh: issue 17 item 5's figures, sourced by bench/run's guest
# side (BENCH_CELLS=netns; see bench/README.md).  For ip_tables ("ipt")
# and ebpfilter ("ebpf"), in one boot:
#   mem.idle  memory per network namespace that never used iptables, less
#             what such a namespace costs with neither loaded ("none")
#   mem.empty ... per namespace whose filter table was made (iptables -S),
#             less mem.idle's
#   mem.r100  ... per namespace holding 100 filter rules (one restore),
#             less mem.idle's
#   churn     BENCH_NETNS_CHURN namespaces made, given 10 rules (one
#             restore) each, then all destroyed: namespaces per second
#             both ways, and what is left after: BPF programs and maps
#             (bpftool), the helper's RSS, the module's references and
#             memory, slab: leaks 0 is the target
# Memory is MemTotal - MemFree after dropping the caches, over
# BENCH_NETNS_MEM namespaces, per namespace in KiB.

NETNS_MEM=${BENCH_NETNS_MEM:-50}
NETNS_CHURN=${BENCH_NETNS_CHURN:-1000}
declare -A NSM NSC

# kB of memory in use, caches dropped
netns_used_kb() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 0.2
	awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 } END { print t - f }' /proc/meminfo
}

# netns_rules N: a filter table of N rules, for iptables-legacy-restore
netns_rules() {
	local i
	echo "*filter"
	for ((i = 0; i < $1; i++)); do
		echo "-A INPUT -s 10.$((i / 250)).$((i % 250)).1/32 -p tcp --dport $((1000 + i)) -j DROP"
	done
	echo "COMMIT"
}

# netns_mem B: NSM[B.idle|empty|r100]: KiB per namespace (B none: idle only)
netns_mem() {
	local b=$1 cell i before after
	for cell in idle empty r100; do
		[ $b = none ] && [ $cell != idle ] && continue
		before=$(netns_used_kb)
		for ((i = 0; i < NETNS_MEM; i++)); do
			ip netns add bm$i || fail "ip netns add bm$i"
			case $cell in
			empty) ip netns exec bm$i iptables-legacy -S >/dev/null || fail "$b: -S in bm$i" ;;
			r100) ip netns exec bm$i iptables-legacy-restore <$W/netns-r100.ipt || fail "$b: restore in bm$i" ;;
			esac
		done
		after=$(netns_used_kb)
		NSM[$b.$cell]=$(awk -v a=$before -v b=$after -v n=$NETNS_MEM 'BEGIN { printf "%.1f", (b - a) / n }')
		echo "netns mem $b.$cell: $before -> $after kB over $NETNS_MEM namespaces"
		for ((i = 0; i < NETNS_MEM; i++)); do ip netns del bm$i; done
		sleep 1	# cleanup_net runs from a work queue
	done
}

netns_leaks() {	# what ebpfilter holds now: progs maps rss_kb module_refs slab_kb
	local pid
	pid=$(helper_pids)
	echo "$(bpf_count prog ebpf_ || echo ?) $(bpf_count map . || echo ?)" \
	     "$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status 2>/dev/null)" \
	     "$(cat /sys/module/ebpfilter/refcnt 2>/dev/null)" \
	     "$(sync; echo 3 >/proc/sys/vm/drop_caches; awk '/^Slab:/ { print $2 }' /proc/meminfo)"
}

# netns_churn B: NSC[B.up|down] namespaces per second; ebpf: NSC[ebpf.before|after]
netns_churn() {
	local b=$1 i t0 t1 t2
	[ $b = ebpf ] && NSC[$b.before]=$(netns_leaks)
	[ $b = ebpf ] && [ -z "${NSC[ebpf.start]:-}" ] && NSC[ebpf.start]=${NSC[$b.before]}
	t0=$(date +%s%N)
	for ((i = 0; i < NETNS_CHURN; i++)); do
		ip netns add bc$i && ip netns exec bc$i iptables-legacy-restore <$W/netns-r10.ipt ||
			fail "$b: namespace bc$i"
	done
	t1=$(date +%s%N)
	for ((i = 0; i < NETNS_CHURN; i++)); do ip netns del bc$i; done
	# the namespaces are gone when cleanup_net ran; the helper heard of it
	for ((i = 0; i < 60; i++)); do
		[ $b != ebpf ] || [ "$(bpf_count prog ebpf_)" -le "${NSC[$b.before]%% *}" ] && break
		sleep 0.5
	done
	t2=$(date +%s%N)
	NSC[$b.up]=$(awk -v n=$NETNS_CHURN -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", n / ((b - a) / 1e9) }')
	NSC[$b.down]=$(awk -v n=$NETNS_CHURN -v a=$t1 -v b=$t2 'BEGIN { printf "%.1f", n / ((b - a) / 1e9) }')
	[ $b = ebpf ] && NSC[$b.after]=$(netns_leaks)
	echo "netns churn $b: up ${NSC[$b.up]}/s down ${NSC[$b.down]}/s ${NSC[$b.before]:-} -> ${NSC[$b.after]:-}"
}

netns_measure() {
	local b
	netns_rules 100 >$W/netns-r100.ipt
	netns_rules 10 >$W/netns-r10.ipt
	# the first namespace mounts /run/netns and warms the allocators
	ip netns add warm && ip netns del warm || fail "warm-up namespace"
	sleep 1
	netns_mem none
	for b in ipt ebpf; do
		fw_up $b
		# a first namespace loads what the first use loads (modules)
		ip netns add warm && ip netns exec warm iptables-legacy-restore <$W/netns-r100.ipt &&
			ip netns del warm || fail "$b: warm-up namespace"
		sleep 1
		netns_mem $b
		netns_churn $b
		# a second round: what the first left either stays (an
		# allocator keeping memory) or grows again (a leak)
		[ $b = ebpf ] && NSC[ebpf.first]=${NSC[ebpf.after]}
		netns_churn $b
		fw_down $b netns
	done
}

netns_table() {
	local b c
	say ""
	say "(netns) memory per network namespace, KiB (MemTotal - MemFree, caches dropped,"
	say "over $NETNS_MEM namespaces): idle: made, never used iptables (less the same with"
	say "neither loaded: ${NSM[none.idle]:--} KiB); empty: its filter table made; r100: 100"
	say "filter rules (the last two less idle)"
	say "$(printf '%-6s %10s %10s %9s' cell ip_tables ebpfilter ebpf/ipt)"
	for c in idle empty r100; do
		local i e
		if [ $c = idle ]; then
			i=$(awk -v a="${NSM[ipt.idle]:-}" -v n="${NSM[none.idle]:-}" 'BEGIN { printf "%.1f", a - n }')
			e=$(awk -v a="${NSM[ebpf.idle]:-}" -v n="${NSM[none.idle]:-}" 'BEGIN { printf "%.1f", a - n }')
		else
			i=$(awk -v a="${NSM[ipt.$c]:-}" -v n="${NSM[ipt.idle]:-}" 'BEGIN { printf "%.1f", a - n }')
			e=$(awk -v a="${NSM[ebpf.$c]:-}" -v n="${NSM[ebpf.idle]:-}" 'BEGIN { printf "%.1f", a - n }')
		fi
		say "$(printf '%-6s %10s %10s %9s' $c "$i" "$e" "$(ratio "$e" "$i")")"
	done
	say ""
	say "(netns) churn: $NETNS_CHURN namespaces made and given 10 rules each (ip netns add;"
	say "iptables-legacy-restore), then destroyed; namespaces per second"
	for b in ipt ebpf; do
		say "  $b: made ${NSC[$b.up]:--}/s, destroyed ${NSC[$b.down]:--}/s"
	done
	say "  ebpfilter before -> after the first churn -> after a second one (BPF programs, maps,"
	say "  helper RSS kB, module refs, slab kB):"
	say "  ${NSC[ebpf.start]:--} -> ${NSC[ebpf.first]:--} -> ${NSC[ebpf.after]:--}"
	say "targets (issue 17): idle costs nothing; r100 <= 2x ip_tables; churn leaves 0 programs"
	say "and maps, the same RSS and references: $(
		e=$(awk -v a="${NSM[ebpf.r100]:-}" -v n="${NSM[ebpf.idle]:-}" 'BEGIN { printf "%.1f", a - n }')
		i=$(awk -v a="${NSM[ipt.r100]:-}" -v n="${NSM[ipt.idle]:-}" 'BEGIN { printf "%.1f", a - n }')
		echo "r100 $(ratio "$e" "$i") -> $(verdict "$(ratio "$e" "$i")" "<=" 2)")"
	say "raw: $(for k in $(printf '%s\n' "${!NSM[@]}" | sort); do printf '%s=%s ' $k "${NSM[$k]}"; done)"
}
