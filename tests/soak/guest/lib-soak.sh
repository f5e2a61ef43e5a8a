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
mem() { awk '/^(SUnreclaim|VmallocUsed|Slab):/ { printf "%s=%s ", $1, $2 }' /proc/meminfo; }
kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
nprocs() { ls -d /proc/[0-9]* | wc -l; }
nfds() { ls /proc/[0-9]*/fd 2>/dev/null | wc -l; }
# now_us: the clock in microseconds, without an exec
now_us() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }
