#!/bin/bash
# The helper refuses to run when started by anyone but the module: the
# build output, and a copy taken from the running helper's /proc/PID/exe.
. tests/guest/lib-ebpfilter.sh
ebpf_install
modprobe ebpfilter || fail modprobe
pid=$(helper_pids)
cp "/proc/$pid/exe" /tmp/stolen-helper || fail "cannot read /proc/$pid/exe"
for bin in /tmp/stolen-helper ${EBPF_UMH:-umh/ebpfilter-umh}; do
	[ -f "$bin" ] || continue
	if "$bin" </dev/null >/tmp/out 2>&1; then
		fail "$bin ran"
	fi
	grep -q "refusing to run" /tmp/out || fail "$bin: no message"
	echo "$bin: $(tail -n1 /tmp/out)"
done
request_ok || fail "module disturbed"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
