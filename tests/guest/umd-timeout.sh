#!/bin/bash
# A helper that stops answering (SIGSTOP) is killed when a request times
# out; the caller gets an error instead of hanging, the next one is served.
. tests/guest/lib-ebpfilter.sh
ebpf_install
dmesg_mark
modprobe ebpfilter request_timeout_ms=2000 || fail modprobe
pid1=$(helper_pids)
kill -STOP "$pid1"
start=$(date +%s%N)
out=$("$SOCKOPT_REQ" served)
ms=$((($(date +%s%N) - start) / 1000000))
echo "stopped helper: request answered '$out' after $ms ms"
[ "$out" = "err EIO 5" ] || fail "expected EIO, got '$out'"
[ $ms -lt 10000 ] || fail "request took $ms ms"
dmesg_has "helper (pid $pid1) did not answer within 2000 ms; killed" ||
	fail "timeout not reported"
request_ok || fail "next request not served"
[ "$(helper_count)" = 1 ] || fail "helper count $(helper_count)"
modprobe -r ebpfilter || fail rmmod
assert_nothing_left
