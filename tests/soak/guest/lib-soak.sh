# SPDX-License-Identifier: GPL-2.0
# Sourced by the soak parts that count what is left (cycles.sh,
# restarts.sh): the figures they compare before and after, read with
# builtins where they can be (under TCG an exec costs 150-250 ms, and
# these run once per cycle).
. tests/guest/ipt-lib.sh

bpf_objs() {
	echo "$(bpf_count prog .) $(bpf_count map .) $(bpf_count link .)"
}
nf_refs() {	# the netfilter modules' reference counts (builtins: no exec)
	local m r
	for m in /sys/module/{x_tables,nf_conntrack,nf_nat,nf_defrag_ipv4,xt_*}; do
		[ -e "$m/refcnt" ] && read -r r <"$m/refcnt" && printf '%s=%s ' "${m##*/}" "$r"
	done
}
kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# nfds: the open fds of every process but this shell and its subshell
# (builtins; `ls | wc` counted ls's headers and blank lines as well)
nfds() {
	local f n=0
	for f in /proc/[0-9]*/fd/*; do
		case $f in /proc/$$/* | /proc/$BASHPID/*) continue ;; esac
		[ -L "$f" ] && n=$((n + 1))
	done
	echo $n
}
# now_us: the clock in microseconds, without an exec
now_us() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }

# user_procs: "PID NAME" of every process but the kernel's threads
# (kthreadd, pid 2, and its children), zombies included; builtins.  The
# kernel's worker pools grow and shrink with the load (5.10, 45 restarts:
# 42 -> 45 processes in all, then 44 -> 45 in the same run again); what
# ebpfilter could leave is a helper or a process of its own.
user_procs() {
	local f line c rest ppid
	for f in /proc/[0-9]*; do
		{ read -r line <"$f/stat"; } 2>/dev/null || continue
		rest=${line##*) }		# after "pid (comm) ": state ppid ...
		set -- $rest
		ppid=$2
		[ "${f#/proc/}" = 2 ] || [ "$ppid" = 2 ] && continue
		c=${line#*(}
		echo "${f#/proc/} ${c%)*}"
	done
}
# snapshot: what a cycle or restart must give back, caches dropped first
# (reclaimable slab and page cache would hide a leak or fake one):
# "sockets processes fds SUnreclaim-kB VmallocUsed-kB FILE", FILE the
# user processes by name then (for leaks_since to name what is new)
snapshot() {
	local f lines
	sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1
	f=/tmp/soak-procs.$(now_us)
	user_procs >"$f"
	mapfile -t lines <"$f"
	echo "$(unix_sockets) ${#lines[@]} $(nfds) $(kb SUnreclaim) $(kb VmallocUsed) $f"
}
# leaks_since BEFORE N: a new snapshot against BEFORE, taken N cycles or
# restarts ago.  Sets `figures` (before -> after, for the result line) and
# `leaks` (empty, or what grew past its bound).  Bounds: 2 AF_UNIX sockets,
# 2 user processes and 8 fds; slab and vmalloc (module
# memory) flat: 1 kB each of N, at least 2 MB in all.
leaks_since() {
	local s0 p0 f0 su0 vm0 s1 p1 f1 su1 vm1 l0 l1 flat=$(($2 < 2048 ? 2048 : $2))
	read -r s0 p0 f0 su0 vm0 l0 <<<"$1"
	read -r s1 p1 f1 su1 vm1 l1 <<<"$(snapshot)"
	figures="sockets $s0->$s1, processes $p0->$p1, fds $f0->$f1, SUnreclaim ${su0}->${su1} kB, VmallocUsed ${vm0}->${vm1} kB"
	leaks=""
	[ $((s1 - s0)) -le 2 ] || leaks="$leaks sockets $s0->$s1"
	[ $((p1 - p0)) -le 2 ] ||
		leaks="$leaks processes $p0->$p1 (new: $(join -v2 <(sort -k1,1 "$l0") <(sort -k1,1 "$l1") | cut -d' ' -f2 | sort | uniq -c | xargs))"
	[ $((f1 - f0)) -le 8 ] || leaks="$leaks fds $f0->$f1"
	[ $((su1 - su0)) -le $flat ] || leaks="$leaks SUnreclaim ${su0}->${su1} kB"
	[ $((vm1 - vm0)) -le $flat ] || leaks="$leaks VmallocUsed ${vm0}->${vm1} kB"
}
