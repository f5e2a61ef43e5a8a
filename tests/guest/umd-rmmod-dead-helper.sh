#!/bin/bash
# rmmod while the helper is dead: everything goes all the same.  On tc
# hooks (6.1) the filters belong to the interfaces, so the module starts a
# helper just to remove them; on netfilter hooks the links go with the vault.
. tests/guest/lib-ebpfilter.sh
ebpf_install
dmesg_mark
modprobe ebpfilter || fail modprobe
iptables-legacy -A INPUT -p tcp --dport 7 -j DROP || fail "rule"
pid=$(helper_pids)
kill -9 "$pid"
wait_for 5 dmesg_has "helper (pid $pid) died" || fail "death not noticed"
# what rmmod must remove is there (else "0 left" below proves nothing)
n=$(bpf_count prog ebpf_) || exit 1
[ "$n" -gt 0 ] || fail "no ebpf_ BPF program while loaded"
modprobe -r ebpfilter || fail "rmmod"
assert_nothing_left
for dev in $(ls /sys/class/net); do
	out=$(tc filter show dev "$dev" ingress 2>/dev/null; tc filter show dev "$dev" egress 2>/dev/null)
	[ -z "$out" ] || fail "tc filters left on $dev: $out"
done
left=$(bpf_count prog ebpf_) || exit 1
[ "$left" = 0 ] || fail "$left BPF programs left"
dmesg_since_mark | grep ebpfilter
