#!/bin/bash
# 50 load/unload cycles: each load starts exactly one helper and is ready
# when modprobe returns; each unload leaves no process, fd, mount or memory.
# run-all-cost: 110
# run-all-tier: smoke (there and in the reduced tier: 10 cycles)
. tests/guest/lib-ebpfilter.sh
ebpf_install

sync; echo 3 > /proc/sys/vm/drop_caches
socks0=$(unix_sockets)
shmem0=$(shmem_kb)
n=50
tier_reduced && n=10
for i in $(seq 1 $n); do
	modprobe ebpfilter || fail "modprobe failed in cycle $i"
	[ "$(helper_count)" = 1 ] || fail "cycle $i: $(helper_count) helpers"
	request_ok || fail "cycle $i: request not served right after modprobe"
	# The channel and vault pairs are visible here: the check below sees them.
	[ $i = 1 ] && { [ $(unix_sockets) -ge $((socks0 + 4)) ] || fail "sockets not counted"; }
	modprobe -r ebpfilter || fail "rmmod failed in cycle $i"
	assert_nothing_left
done
sleep 1
socks1=$(unix_sockets)
shmem1=$(shmem_kb)
echo "AF_UNIX sockets: $socks0 -> $socks1; Shmem: $shmem0 kB -> $shmem1 kB"
[ $((socks1 - socks0)) -le 2 ] || fail "sockets leaked: $socks0 -> $socks1"
[ $((shmem1 - shmem0)) -le 256 ] || fail "shmem leaked: $shmem0 -> $shmem1 kB"
echo "$n cycles clean"
