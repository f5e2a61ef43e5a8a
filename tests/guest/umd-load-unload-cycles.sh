#!/bin/bash
# 50 load/unload cycles: each load starts exactly one helper and is ready
# when modprobe returns; each unload leaves no process, fd, mount or memory.
. tests/guest/lib-ebpfilter.sh
ebpf_install

sync; echo 3 > /proc/sys/vm/drop_caches
files0=$(files_allocated)
shmem0=$(shmem_kb)
for i in $(seq 1 50); do
	modprobe ebpfilter || fail "modprobe failed in cycle $i"
	[ "$(helper_count)" = 1 ] || fail "cycle $i: $(helper_count) helpers"
	request_ok || fail "cycle $i: request not served right after modprobe"
	modprobe -r ebpfilter || fail "rmmod failed in cycle $i"
	assert_nothing_left
done
sleep 1
files1=$(files_allocated)
shmem1=$(shmem_kb)
echo "allocated files: $files0 -> $files1; Shmem: $shmem0 kB -> $shmem1 kB"
[ $((files1 - files0)) -le 8 ] || fail "files leaked: $files0 -> $files1"
[ $((shmem1 - shmem0)) -le 256 ] || fail "shmem leaked: $shmem0 -> $shmem1 kB"
echo "50 cycles clean"
