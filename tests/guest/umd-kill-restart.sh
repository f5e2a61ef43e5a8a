#!/bin/bash
# kill -9 of the helper: reported in dmesg with the signal; the next
# request starts a new helper and is served.
# run-all-tier: smoke
. tests/guest/lib-ebpfilter.sh
ebpf_install
dmesg_mark
modprobe ebpfilter || fail modprobe
pid1=$(helper_pids)
[ -n "$pid1" ] || fail "no helper"
kill -9 "$pid1"
wait_for 5 dmesg_has "helper (pid $pid1) died: killed by signal 9" ||
	fail "death not reported"
[ "$(helper_count)" = 0 ] || fail "helper still there after kill"
request_ok || fail "request after kill not served"
pid2=$(helper_pids)
[ -n "$pid2" ] && [ "$pid2" != "$pid1" ] || fail "no new helper ($pid1 -> $pid2)"
dmesg_has "helper restarted (pid $pid2, restart 1)" || fail "restart not reported"
dmesg_has "helper ready (pid $pid2" || fail "ready not reported"
modprobe -r ebpfilter || fail rmmod
dmesg_has "ebpfilter: unloaded" || fail "unload not reported"
assert_nothing_left
note "dmesg of the sequence:"
dmesg_since_mark | grep -E "ebpfilter"
