#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/codegen/bench-dump.sh CGBENCH DIR: what the helper's translate, IR
# and code generator make of the bench's rule sets and tests/verdict/*.rules
# (cgbench -d: errnos, refusals, every program's instructions and maps),
# one dump per set in DIR, and DIR/SHA256SUMS.  A speed change must leave
# them byte for byte as they were: `make -C tests/codegen bench-same`
# compares the sums with bench-dumps.sha256 (made the same way; make it
# again, with a reason in the commit, when the output changes on purpose).
# The sets as iptables-save prints them (-m tcp after -p tcp), which is what
# tests/lib/iptblob.c reads; a file it cannot read (nat, extensions it does
# not know) is listed as skipped.
set -e
cgbench=$(realpath "$1") dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir"
rm -f "$dir"/*.rules "$dir"/*.dump
for s in linear:1000 linear:10000 set:10000 log:1000; do
	"$root/bench/gen-rules" ipt "${s%:*}" "${s#*:}" >"$dir/bench-${s%:*}-${s#*:}.rules"
done
for f in "$root"/tests/verdict/*.rules; do
	cp "$f" "$dir/verdict-$(basename "$f")"
done
cd "$dir"
for f in *.rules; do
	sed -i -E 's/-p (tcp|udp|icmp) ((! )?--)/-p \1 -m \1 \2/' "$f"
	if "$cgbench" -d "$f" >"${f%.rules}.dump" 2>"${f%.rules}.err"; then
		rm -f "${f%.rules}.err"
	else
		echo "skipped $f: $(cat "${f%.rules}.err")"
		rm -f "${f%.rules}.dump" "${f%.rules}.err"
	fi
done
sha256sum *.dump >SHA256SUMS
