# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/netns.sh: issue 17 item 5's figures, sourced by bench/run's guest
# side (BENCH_CELLS=netns; see bench/netns.md).  For ip_tables ("ipt")
# and ebpfilter ("ebpf"), in one boot:
#   mem.idle  memory per network namespace that never used iptables, less
#             what such a namespace costs with neither loaded ("none")
#   mem.empty what making the filter table (iptables -S) adds to those
#             namespaces, per namespace
#   mem.r100  what the filter table with 100 rules (one restore) adds to
#             those namespaces idle, per namespace
#   churn     BENCH_NETNS_CHURN namespaces made, given 10 rules (one
#             restore) each, then all destroyed: namespaces per second
#             both ways, and what is left after: BPF programs and maps
#             (bpftool), the helper's RSS, the module's references and
#             memory, slab: leaks 0 is the target
# Memory is the sum of /proc/meminfo's parts (netns_used_kb) after
# dropping the caches, over BENCH_NETNS_MEM namespaces, per namespace in KiB.

NETNS_MEM=${BENCH_NETNS_MEM:-50}
NETNS_CHURN=${BENCH_NETNS_CHURN:-1000}
declare -A NSM NSC

# kB of memory in use, caches dropped: the sum of /proc/meminfo's parts
# that hold what a namespace, a table, the helper and its BPF objects
# take (slab, which counts kmalloc's page-sized blocks too; vmalloc, where
# BPF programs and big maps are; the helper's anonymous memory and the
# vault's shmem; page tables, kernel stacks, per-CPU memory), once it
# holds still.  Not MemTotal - MemFree: pages freed sit on per-CPU lists
# for a while and namespaces destroyed before are freed by cleanup_net()
# for seconds under TCG, so MemFree moved by up to megabytes across one
# step (-11 MB seen) while these parts moved by what the step made.
netns_used_kb() {
	local prev=-1 now i
	for ((i = 0; i < 20; i++)); do
		sync
		echo 3 >/proc/sys/vm/drop_caches
		now=$(awk '/^(AnonPages|Shmem|Slab|VmallocUsed|PageTables|KernelStack|Percpu):/ { s += $2 }
			   END { print s }' /proc/meminfo)
		[ $prev -ge 0 ] && [ $((now - prev)) -lt 16 ] && [ $((prev - now)) -lt 16 ] && break
		prev=$now
		sleep 1
	done
	echo $now
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

# netns_mem B: NSM[B.idle|empty|r100]: KiB per namespace (B none: idle
# only).  The three are taken on the same namespaces, one after the other
# (made; their filter tables made; 100 rules restored), each the step's
# difference: namespaces made and destroyed between them leave caches
# that do not come back the same (tens of KiB per namespace, which made
# separate runs of each cell disagree), the same namespaces do not.
netns_mem() {
	local b=$1 i s0 s1 s2 s3
	s0=$(netns_used_kb)
	for ((i = 0; i < NETNS_MEM; i++)); do
		ip netns add bm$i || fail "ip netns add bm$i"
	done
	s1=$(netns_used_kb)
	if [ $b != none ]; then
		for ((i = 0; i < NETNS_MEM; i++)); do
			ip netns exec bm$i iptables-legacy -S >/dev/null || fail "$b: -S in bm$i"
		done
		s2=$(netns_used_kb)
		for ((i = 0; i < NETNS_MEM; i++)); do
			ip netns exec bm$i iptables-legacy-restore <$W/netns-r100.ipt ||
				fail "$b: restore in bm$i"
		done
		s3=$(netns_used_kb)
		NSM[$b.empty]=$(awk -v a=$s1 -v b=$s2 -v n=$NETNS_MEM 'BEGIN { printf "%.1f", (b - a) / n }')
		NSM[$b.r100]=$(awk -v a=$s1 -v b=$s3 -v n=$NETNS_MEM 'BEGIN { printf "%.1f", (b - a) / n }')
	fi
	NSM[$b.idle]=$(awk -v a=$s0 -v b=$s1 -v n=$NETNS_MEM 'BEGIN { printf "%.1f", (b - a) / n }')
	echo "netns mem $b: $s0 -> $s1 (made) -> ${s2:--} (filter) -> ${s3:--} (100 rules) kB over $NETNS_MEM namespaces"
	[ $b != ebpf ] || netns_parts
	for ((i = 0; i < NETNS_MEM; i++)); do ip netns del bm$i; done
	sleep 1	# cleanup_net runs from a work queue
}

# Where ebpfilter's memory is, with the namespaces of netns_mem holding
# 100 rules: /proc/meminfo's parts and the helper's (for bench/netns.md)
NETNS_PARTS=
netns_parts() {
	local pid
	pid=$(helper_pids)
	NETNS_PARTS="$(awk '/^(AnonPages|Shmem|Slab|VmallocUsed|PageTables):/ { printf "%s %s ", $1, $2 }' /proc/meminfo)"
	NETNS_PARTS+="helper $(awk '/^(RssAnon|RssShmem):/ { printf "%s %s ", $1, $2 }' /proc/$pid/status 2>/dev/null)"
	NETNS_PARTS+="BPF programs $(bpf_count prog ebpf_ || echo ?), maps $(bpf_count map . || echo ?)"
	echo "netns parts: $NETNS_PARTS"
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
	say "(netns) memory per network namespace, KiB (/proc/meminfo: slab, vmalloc, anon, shmem,"
	say "page tables, stacks, per-CPU; caches dropped;"
	say "over $NETNS_MEM namespaces): idle: made, never used iptables (less the same with"
	say "neither loaded: ${NSM[none.idle]:--} KiB); empty: its filter table made; r100: 100"
	say "filter rules (the last two: over the same namespaces idle)"
	say "$(printf '%-6s %10s %10s %9s' cell ip_tables ebpfilter ebpf/ipt)"
	for c in idle empty r100; do
		local i e
		if [ $c = idle ]; then
			i=$(awk -v a="${NSM[ipt.idle]:-}" -v n="${NSM[none.idle]:-}" 'BEGIN { printf "%.1f", a - n }')
			e=$(awk -v a="${NSM[ebpf.idle]:-}" -v n="${NSM[none.idle]:-}" 'BEGIN { printf "%.1f", a - n }')
		else
			i=${NSM[ipt.$c]:-}
			e=${NSM[ebpf.$c]:-}
		fi
		say "$(printf '%-6s %10s %10s %9s' $c "$i" "$e" "$(ratio "$e" "$i")")"
	done
	say "ebpfilter with the $NETNS_MEM namespaces of 100 rules, whole guest, kB: $NETNS_PARTS"
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
		e=${NSM[ebpf.r100]:-}
		i=${NSM[ipt.r100]:-}
		echo "r100 $(ratio "$e" "$i") -> $(verdict "$(ratio "$e" "$i")" "<=" 2)")"
	say "raw: $(for k in $(printf '%s\n' "${!NSM[@]}" | sort); do printf '%s=%s ' $k "${NSM[$k]}"; done)"
}
