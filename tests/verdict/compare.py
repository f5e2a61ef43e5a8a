#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the ip_tables and ebpfilter results of the verdict suite.

  compare.py OUTDIR MECH SET...

OUTDIR holds, per rule set NAME and backend B (ip_tables, ebpfilter):
NAME.B.status (loaded/refused), NAME.B.verdicts ("probe result" lines),
NAME.B.save (iptables-legacy-save -c), NAME.B.restore (restore's output),
NAME.B.dmesg (the kernel log of a refused restore), NAME.B.log (the LOG
target's lines with a "vd-" prefix written during the probe run, sorted,
IP ids and source ports masked).  One line per rule set,
then a tally; exit status 1 if any rule set differs, 3 if the only
differences are late replies: probes that timed out under ebpfilter where
ip_tables got their RST or ICMP error, with every counter and LOG line
equal (the packets met the same rules; the reply came after vprobe's
800 ms: 6.1, ip6-verdict, 3 of 04-state-reject's 41 probes beside three
other guests, 2026-12-07, and its rerun passed): the caller's timing
failure, rerun once in a fresh guest, where a lost reply fails again.

Verdicts, packet and byte counters, and LOG lines must all be equal.  The only accepted
differences are the tc mechanism's, each pinned in known-tc.txt by rule
set and probe/rule, with the ip_tables result it is derived from: a pinned
difference that does not occur exactly so is a failure too.  A rule set
ebpfilter refuses as documented (state/conntrack on tc) is printed as
"SKIP verdict/NAME: why" (run-all counts it as skipped, not passed).
"""
import os
import re
import sys

CT_REFUSAL = "state/conntrack matches are not enforced"
# known-tc.txt spells this verdict EPERM (it has spaces)
EPERM = "error:Operation not permitted"


def known_tc(path):
    """{(ruleset, kind, key): value} from tests/verdict/known-tc.txt:
    verdict: (ipt, ebpf); let, counters: an expression (see the file)"""
    known = {}
    for l in read(path).split("\n"):
        if not l.strip() or l.startswith("#"):
            continue
        name, kind, rest = l.split(" ", 2)
        if kind == "verdict":
            probe, vi, ve = [EPERM if v == "EPERM" else v for v in rest.split()]
            known[(name, kind, probe)] = (vi, ve)
        elif kind in ("let", "counters"):
            key, expr = rest.split("\t")
            # lets are evaluated in file order: keep it in the key
            known[(name, kind, key if kind == "counters" else (len(known), key))] = expr
        else:
            raise SystemExit("known-tc.txt: unknown kind %r" % kind)
    return known


def expected_tc(name, known, ci):
    """{rule text: (pkts, bytes)} ebpfilter must count for NAME on tc,
    computed from ip_tables' counters CI of the same rule set"""
    ipt_c = {r: (p, b) for r, p, b in ci}

    def ipt(rule):
        if rule not in ipt_c:
            raise SystemExit("known-tc.txt: %s: ip_tables has no rule %r" % (name, rule))
        return ipt_c[rule]
    env = {"ipt": ipt}
    for k in sorted((k for k in known if k[0] == name and k[1] == "let"), key=lambda k: k[2]):
        env[k[2][1]] = eval(known.pop(k), {"__builtins__": {}}, env)
    exp = {}
    for k in [k for k in known if k[0] == name and k[1] == "counters"]:
        exp[k[2]] = tuple(eval(known.pop(k), {"__builtins__": {}}, env))
    return exp


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def verdicts(path):
    return dict(l.split(None, 1) for l in read(path).split("\n") if l.strip())


def counters(path):
    """[(rule text, pkts, bytes)] in save order: policies and rules; the
    text of a table other than filter starts with "TABLE: "."""
    out = []
    table = ""
    for l in read(path).split("\n"):
        if l.startswith("*"):
            table = "" if l == "*filter" else l[1:] + ": "
            continue
        m = re.match(r"^\[(\d+):(\d+)\] (.*)$", l)
        if m:
            out.append((table + m.group(3), int(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r"^:(\S+) (\S+) \[(\d+):(\d+)\]$", l)
        if m:
            out.append(("%s:%s %s" % (table, m.group(1), m.group(2)),
                        int(m.group(3)), int(m.group(4))))
    return out


def probe_table(path):
    """{probe name: (destination, destination port)} of probes.txt"""
    out = {}
    for l in read(path).split("\n"):
        f = l.split()
        if len(f) >= 7 and not l.startswith("#"):
            out[f[0]] = (f[4], f[5])
    return out


def stale_conntrack(base, vmm, probe_addrs):
    """The conntrack entries, made before the probes ran (verdict-diff.sh's
    BASE.BACKEND.conntrack), that a mismatching probe's packets could have
    matched: a stale NAT binding or state changes what a rule sees."""
    out = []
    for m in vmm:
        dst, dport = probe_addrs.get(m.split("(")[0], (None, None))
        if dst is None:
            continue
        for b in ("ip_tables", "ebpfilter"):
            for l in read("%s.%s.conntrack" % (base, b)).split("\n"):
                if "dst=%s " % dst in l and ("dport=%s " % dport in l or dport == "0"):
                    out.append("conntrack before the probes (%s): %s" % (b, " ".join(l.split())))
    return out[:10]


def main():
    outdir, mech = sys.argv[1], sys.argv[2]
    probe_addrs = probe_table(os.path.join(os.path.dirname(sys.argv[0]), "probes.txt"))
    sets = sys.argv[3:]
    known = known_tc(os.path.join(os.path.dirname(sys.argv[0]), "known-tc.txt")) \
        if mech == "tc" else {}
    nknown = 0
    passed = failed = skipped = probes = vmm_total = byte_sets = late_sets = 0
    for s in sets:
        name = os.path.basename(s)[:-len(".rules")]
        base = os.path.join(outdir, name)
        rules = read(s)
        uses_ct = re.search(r"-m (state|conntrack)", rules) is not None
        other_tables = re.search(r"^\*(nat|mangle|raw|security)$", rules,
                                 re.M) is not None
        nrules = len(re.findall(r"^-A ", rules, re.M))
        st_i = read(base + ".ip_tables.status").strip()
        st_e = read(base + ".ebpfilter.status").strip()
        if st_i != "loaded":
            failed += 1
            print("FAIL verdict/%s: ip_tables refused the rule set: %s" %
                  (name, read(base + ".ip_tables.restore").strip()[:200]))
            continue
        if st_e != "loaded":
            msg = read(base + ".ebpfilter.restore").strip().split("\n")[0]
            dm = read(base + ".ebpfilter.dmesg")
            if mech in ("tc", "netfilter") and other_tables:
                skipped += 1
                print("SKIP verdict/%s: tables other than filter need the kmod "
                      "mechanism (README): iptables: '%s'" % (name, msg))
                continue
            if mech == "tc" and uses_ct and CT_REFUSAL in dm and msg:
                skipped += 1
                why = re.search(CT_REFUSAL + r"[^\n]*", dm).group(0)
                print("SKIP verdict/%s: refused on the tc mechanism as "
                      "documented: iptables: '%s'; dmesg: '%s'" % (name, msg, why))
                continue
            failed += 1
            print("FAIL verdict/%s: ebpfilter refused the rule set: %s" % (name, msg))
            for l in dm.split("\n"):
                if "ebpfilter" in l:
                    print("    dmesg: " + l)
            continue
        problems = []
        if mech == "tc" and uses_ct:
            problems.append("state/conntrack rules accepted on the tc mechanism "
                            "(a refusal was expected)")
        vi, ve = verdicts(base + ".ip_tables.verdicts"), verdicts(base + ".ebpfilter.verdicts")
        vmm, vmm_pairs, kn, order = [], [], [], []
        for p in vi:
            if vi[p] == ve.get(p):
                continue
            if known.get((name, "verdict", p)) == (vi[p], ve.get(p)):
                kn.append("%s(ipt=%s,ebpf=%s)" % (p, vi[p], ve.get(p)))
                known.pop((name, "verdict", p), None)
                continue
            vmm.append("%s(ipt=%s,ebpf=%s)" % (p, vi[p], ve.get(p)))
            vmm_pairs.append((vi[p], ve.get(p)))
        probes += len(vi)
        vmm_total += len(vmm)
        ci, ce = counters(base + ".ip_tables.save"), counters(base + ".ebpfilter.save")
        exp = expected_tc(name, known, ci)
        cmm, bmm = [], []
        if len(ci) != len(ce):
            cmm.append("different number of rules: %d vs %d" % (len(ci), len(ce)))
        for (ri, pi, bi), (re_, pe, be) in zip(ci, ce):
            if ri != re_:
                cmm.append("rule text differs: %s | %s" % (ri, re_))
            elif ri in exp:
                # a pinned tc difference: ebpfilter must count what was
                # derived from ip_tables, and that must differ from it
                want = exp.pop(ri)
                if (pe, be) != want:
                    cmm.append("%s: ebpf=[%d:%d], expected [%d:%d] (derived from "
                               "ip_tables' [%d:%d]; known-tc.txt)" % (ri, pe, be, want[0],
                                                                      want[1], pi, bi))
                elif (pi, bi) == (pe, be):
                    cmm.append("pinned tc difference did not occur: %s: ipt=ebpf=[%d:%d]" %
                               (ri, pi, bi))
                else:
                    kn.append("counters %s: ipt=[%d:%d] ebpf=[%d:%d] as derived" %
                              (ri, pi, bi, pe, be))
            elif pi != pe:
                cmm.append("pkts %s: ipt=%d ebpf=%d" % (ri, pi, pe))
            elif bi != be and " -m limit " in " %s " % ri:
                # a limit bucket admits the packets that come first, and
                # among probes sent at once that order is the machine's (a
                # loaded host let a 1,464-byte fragment in before an
                # 80-byte echo): only how many it admitted is compared
                order.append("bytes %s: ipt=%d ebpf=%d (which packets reached the "
                             "limit bucket first)" % (ri, bi, be))
            elif bi != be:
                d = be - bi
                bmm.append("bytes %s: ipt=%d ebpf=%d (%+d, %+.1f/pkt)" %
                           (ri, bi, be, d, d / pi if pi else 0))
        for r in exp:
            cmm.append("known-tc.txt names a rule the rule set does not have: %s" % r)
        li = read(base + ".ip_tables.log").split("\n")
        le = read(base + ".ebpfilter.log").split("\n")
        if li != le:
            cmm.append("LOG lines differ: ip_tables %d, ebpfilter %d; first difference: "
                       "ipt=%r ebpf=%r" % (len([l for l in li if l]), len([l for l in le if l]),
                                           *next((a, b) for a, b in zip(li + [""] * len(le), le + [""] * len(li)) if a != b)))
        for k in [k for k in known if k[0] == name]:
            cmm.append("pinned tc difference did not occur: %s %s (ipt=%s, ebpf=%s)" %
                       (k[1], k[2], known[k][0], known[k][1]))
            known.pop(k)
        nknown += len(kn)
        notok = sum(1 for v in vi.values() if v != "ok")
        if bmm:
            byte_sets += 1
        # a late reply: ip_tables got the RST or ICMP error, ebpfilter nothing
        late = vmm and not cmm and not problems and not bmm and all(
            a in ("refused", "unreach") and b == "timeout" for a, b in vmm_pairs)
        late_sets += 1 if late else 0
        if not vmm and not cmm and not problems and not bmm:
            passed += 1
            print("PASS verdict/%s: %d rules, %d probes (%d not ok under ip_tables), "
                  "same verdicts, packet and byte counters%s" %
                  (name, nrules, len(vi), notok,
                   " but %d known tc differences" % len(kn) if kn else ""))
        else:
            failed += 1
            print("FAIL verdict/%s: %d rules, %d probes: %d verdict mismatches, "
                  "%d counter, LOG-line or pinned-difference mismatches, %d byte counter mismatches" %
                  (name, nrules, len(vi), len(vmm), len(cmm), len(bmm)))
        for p in problems:
            print("    " + p)
        if vmm:
            print("    verdicts: " + " ".join(vmm))
            for l in stale_conntrack(base, vmm, probe_addrs):
                print("    " + l)
        for l in kn:
            print("    KNOWN: " + l)
        for l in order:
            print("    ORDER: " + l)
        for l in (cmm + bmm)[:25]:
            print("    " + l)
    print("verdict-diff (%s, ebpfilter mechanism %s): %d rule sets, %d probe results "
          "compared, %d verdict mismatches; %d equal, %d differ, %d skipped (refused as "
          "documented), %d with byte-count differences, %d known tc differences" %
          (os.uname().release, mech, len(sets), probes, vmm_total, passed, failed,
           skipped, byte_sets, nknown))
    late_only = failed and failed == late_sets
    if late_only:
        print("only late replies (ebpf=timeout where ip_tables got RST or ICMP, every "
              "counter equal): a timing failure")
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 3 if late_only else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
