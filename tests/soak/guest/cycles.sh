#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak, part cycles: SOAK_CYCLES load/unload cycles, each committing
# rules to every table (so programs, maps, links and hooks exist), then
# SOAK_RESTARTS helper restarts (kill -9, the next request restarts it;
# two quick deaths then a 10 s wait, below the restart throttle).
# Checked after every unload: no module, helper, mount, open image file,
# BPF program, map or link of ours, and the module references of the
# netfilter modules back to what they were; at the end: AF_UNIX sockets,
# processes and fds back, slab (SUnreclaim) and vmalloc (module memory)
# within a bound of the start.
. tests/guest/ipt-lib.sh
N=${SOAK_CYCLES:-50}
R=${SOAK_RESTARTS:-12}
ebpf_install

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

# one cycle to warm up (modules the rules need stay loaded afterwards)
cycle() {
	modprobe ebpfilter || fail "modprobe failed in cycle $1"
	[ "$(helper_count)" = 1 ] || fail "cycle $1: $(helper_count) helpers"
	$IPT -w -A INPUT -p tcp --dport 22 -j ACCEPT &&
		$IPT -w -A OUTPUT -m comment --comment soak -j ACCEPT &&
		$IPT -w -t nat -A PREROUTING -p tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80 &&
		$IPT -w -t mangle -A PREROUTING -p udp -j MARK --set-mark 1 &&
		$IPT -w -t raw -A PREROUTING -p udp --dport 53 -j ACCEPT &&
		$IPT -w -t security -A OUTPUT -j ACCEPT || fail "cycle $1: rules not committed"
	modprobe -r ebpfilter || fail "rmmod failed in cycle $1"
	assert_nothing_left
}
cycle 0
sync; echo 3 >/proc/sys/vm/drop_caches
b0=$(bpf_objs) || exit 1
r0=$(nf_refs); s0=$(unix_sockets); p0=$(nprocs); f0=$(nfds)
su0=$(kb SUnreclaim); vm0=$(kb VmallocUsed); m0=$(mem)
t0=$(date +%s)
for i in $(seq 1 "$N"); do
	cycle "$i"
	b=$(bpf_objs) || exit 1
	[ "$b" = "$b0" ] || fail "cycle $i: BPF objects (prog map link) $b0 -> $b"
	[ "$(nf_refs)" = "$r0" ] || fail "cycle $i: module references $r0 -> $(nf_refs)"
done
t1=$(date +%s)
sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1
su1=$(kb SUnreclaim); vm1=$(kb VmallocUsed); m1=$(mem)
s1=$(unix_sockets); p1=$(nprocs); f1=$(nfds)
echo "after $N cycles: $m0-> $m1; sockets $s0 -> $s1; processes $p0 -> $p1; fds $f0 -> $f1"
leaks=""
[ $((s1 - s0)) -le 2 ] || leaks="$leaks sockets $s0->$s1"
[ $((p1 - p0)) -le 2 ] || leaks="$leaks processes $p0->$p1"
[ $((f1 - f0)) -le 8 ] || leaks="$leaks fds $f0->$f1"
# flat: less than 1 kB a cycle and 2 MB in all
[ $((su1 - su0)) -le $((N < 2048 ? 2048 : N)) ] || leaks="$leaks SUnreclaim ${su0}->${su1} kB"
[ $((vm1 - vm0)) -le $((N < 2048 ? 2048 : N)) ] || leaks="$leaks VmallocUsed ${vm0}->${vm1} kB"

# helper restarts
dmesg_mark
modprobe ebpfilter || fail modprobe
$IPT -w -A INPUT -p tcp --dport 22 -j ACCEPT || fail "rule"
h0=$(bpf_objs) || exit 1
hs0=$(unix_sockets); hp0=$(nprocs); hf0=$(nfds); hsu0=$(kb SUnreclaim)
t2=$(date +%s)
for i in $(seq 1 "$R"); do
	[ $((i % 3)) = 1 ] && sleep 10.5	# the helper outlives the quick-death window
	pid=$(helper_pids)
	kill -9 "$pid"
	wait_for 10 dmesg_has "helper (pid $pid) died" || fail "restart $i: death not noticed"
	request_ok || fail "restart $i: not served"
	[ "$(helper_count)" = 1 ] || fail "restart $i: $(helper_count) helpers"
done
t3=$(date +%s)
sleep 1
h1=$(bpf_objs) || exit 1
hs1=$(unix_sockets); hp1=$(nprocs); hf1=$(nfds); hsu1=$(kb SUnreclaim)
restarts=$(dmesg_since_mark | grep -c 'helper restarted')
throttled=$(dmesg_since_mark | grep -c 'restarts throttled')
echo "after $R restarts: BPF objects $h0 -> $h1; sockets $hs0 -> $hs1; processes $hp0 -> $hp1; fds $hf0 -> $hf1; SUnreclaim $hsu0 -> $hsu1 kB"
[ "$h1" = "$h0" ] || leaks="$leaks BPF-after-restarts $h0->$h1"
[ $((hs1 - hs0)) -le 2 ] || leaks="$leaks sockets-after-restarts $hs0->$hs1"
[ $((hp1 - hp0)) -le 2 ] || leaks="$leaks processes-after-restarts $hp0->$hp1"
[ $((hf1 - hf0)) -le 8 ] || leaks="$leaks fds-after-restarts $hf0->$hf1"
[ $((hsu1 - hsu0)) -le $((R < 2048 ? 2048 : R)) ] || leaks="$leaks SUnreclaim-after-restarts ${hsu0}->${hsu1} kB"
$IPT -w -S INPUT | grep -q -- '--dport 22 -j ACCEPT' || leaks="$leaks rule-lost-after-restarts"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
result=PASS
[ -z "$leaks" ] && [ "$restarts" = "$R" ] && [ "$throttled" = 0 ] || result=FAIL
counts="$N load/unload cycles in $((t1 - t0)) s (every table's rules each), $R helper restarts in $((t3 - t2)) s ($restarts restarts, $throttled throttled); SUnreclaim ${su0}->${su1} kB, VmallocUsed ${vm0}->${vm1} kB; BPF objects $b0 each cycle; left:${leaks:- nothing}"
echo "SOAK-RESULT cycles $result $counts"
[ $result = PASS ] || fail "cycles: $counts"
