"""GFX10 and GFX11 MIMG (D81): layouts and the probe stage that learns, per
opcode, the address lists and data widths LLVM 22 decodes, with and without
NSA.

A MIMG word is 64 bits (prefix 0x3C in bits 31:26); the NSA ("non-sequential
address") forms add one dword of address register bytes per four extra
addresses. GFX10: opcode bits 7:0 are word 0 bits 24:18 and bit 0 (only
the BVH opcodes have bit 7 set: they are probed as their own layout,
`MIMG_HI_10`), NSA dword count 2:1, `dim` 5:3; word 1 `a16` 30, `d16` 31.
GFX11: NSA bit 0 (one extra dword, four more address fields, the last one
holding the addresses there is no field for), `dim` 4:2, opcode 25:18,
`a16` 16, `d16` 17; word 1 `tfe` 21, `lwe` 22, sampler 30:26.

The stage reuses D72's probe helper (`vimage.probe_vimage`) twice per
opcode: once for the plain form (one address field, a register tuple) and
once for the NSA form with one extra dword (up to five fields). A GFX10 NSA
word with two or three extra dwords (six to thirteen addresses) is longer
than the 96 bits an `Instruction` holds and is not probed: those words stay
`.long` (D81).
"""

import os

import vimage as V
from llvm import disasm


def F(word, lo, width):
    return (word, lo, width)


MIMG10_FIELDS = dict(op7=F(0, 0, 1), nsa=F(0, 1, 2), dim=F(0, 3, 3), dlc=F(0, 7, 1),
                     dmask=F(0, 8, 4), unorm=F(0, 12, 1), glc=F(0, 13, 1), r128=F(0, 15, 1),
                     tfe=F(0, 16, 1), lwe=F(0, 17, 1), slc=F(0, 25, 1), vaddr=F(1, 0, 8),
                     vdata=F(1, 8, 8), srsrc=F(1, 16, 5), ssamp=F(1, 21, 5), a16=F(1, 30, 1),
                     d16=F(1, 31, 1))
MIMG11_FIELDS = dict(nsa=F(0, 0, 1), dim=F(0, 2, 3), unorm=F(0, 7, 1), dmask=F(0, 8, 4),
                     slc=F(0, 12, 1), dlc=F(0, 13, 1), glc=F(0, 14, 1), r128=F(0, 15, 1),
                     a16=F(0, 16, 1), d16=F(0, 17, 1), vaddr=F(1, 0, 8), vdata=F(1, 8, 8),
                     srsrc=F(1, 16, 5), tfe=F(1, 21, 1), lwe=F(1, 22, 1), ssamp=F(1, 26, 5))
# The NSA dword's address fields (the first address stays in word 1).
NSA_FIELDS = dict(vaddr1=F(2, 0, 8), vaddr2=F(2, 8, 8), vaddr3=F(2, 16, 8),
                  vaddr4=F(2, 24, 8))

_TEMPLATES = [dict(dmask=0xF, vaddr=24, vdata=16, srsrc=2, ssamp=4),
              dict(dmask=1, vaddr=24, vdata=16, srsrc=2, ssamp=4),
              # The BVH opcodes (dmask 0xf, r128, as llvm-mc encodes them).
              dict(dmask=0xF, r128=1, vaddr=24, vdata=16, srsrc=2), dict()]
ENCODINGS = {
    "MIMG_10": dict(nwords=2, mask=0xFC000001, value=0xF0000000, op=F(0, 18, 7),
                    ops=range(128), fields=MIMG10_FIELDS, templates=_TEMPLATES),
    # Opcodes 0x80-0xFF (opcode bit 7 is word 0 bit 0).
    "MIMG_HI_10": dict(nwords=2, mask=0xFC000001, value=0xF0000001, op=F(0, 18, 7),
                        ops=range(128), fields=MIMG10_FIELDS,
                        templates=[dict(dmask=0xF, r128=1, unorm=1, vaddr=24, vdata=16,
                                        srsrc=2),
                                   dict(dmask=0xF, r128=1, vaddr=24, vdata=16, srsrc=2)]),
    # GFX11's BVH opcodes decode only with `unorm` set (D82): their
    # template comes last, so that no other opcode's template moves.
    "MIMG_11": dict(nwords=2, mask=0xFC000000, value=0xF0000000, op=F(0, 18, 8),
                    ops=range(256), fields=MIMG11_FIELDS,
                    templates=_TEMPLATES + [dict(dmask=0xF, r128=1, unorm=1, vaddr=24, vdata=16,
                                                 srsrc=2)]),
}
# Probe field name -> Rust field, encodings, in the order of `probe.ENCODINGS`.
PLAIN = {e: ("vaddr",) for e in ENCODINGS}
NSA = {e: ("vaddr", "vaddr1", "vaddr2", "vaddr3", "vaddr4") for e in ENCODINGS}


def nsa_encodings():
    """The NSA form of each layout: the base word with one extra dword."""
    out = {}
    for name, e in ENCODINGS.items():
        f = dict(e["fields"])
        f.update(NSA_FIELDS)
        out[name] = dict(e, nwords=3, fields=f)
    return out


def _nsa_rec(r, encs):
    """A copy of record `r` whose base is its NSA form (nsa = 1)."""
    e = encs[r["enc"]]
    w = list(r["base"][:2]) + [0]
    V._set(w, e["fields"]["nsa"], 1)
    return dict(r, base=w)


# Flag of an address field in a layout: a non-zero value there (unused by
# the layout) makes LLVM reject the word.
MUST_ZERO = 0x40
# A class-table byte: LLVM rejects the word.
INVALID = 0xFF


def _form(cpu, mine, encs, names):
    """The printed forms of each record of `mine` (each laid out as
    `encs[enc]`, address fields `names[enc]`) for every `dmask | d16 << 4 |
    tfe << 5 | lwe << 6` key at every `dim | a16 << 3` entry, factored:
    keys print the same 16 outputs when LLVM picks the same variant for them
    (it decides by the data width), so each key gets a class (0: invalid)
    and each class one output byte per entry, `width << 4 | layout`
    (`INVALID`: rejected), `layout` indexing the distinct address layouts.
    Returns [dict(keys=[u8; 128], classes=[[u8; 16]], layouts=[[u8; 5]])
    or a problem string]."""
    probes, where = [], []
    for ri, r in enumerate(mine):
        f = encs[r["enc"]]["fields"]
        for key in range(128):
            for k in range(16):
                probes.append(V._word(r, f, key, k, names))
                where.append((ri, key, k))
    got = {}
    for (ri, key, k), (t, n) in zip(where, disasm(cpu, probes)):
        g = V.parse(t)
        got[(ri, key, k)] = None if g is None else (g[0], tuple(g[1]))
    out = []
    for ri, r in enumerate(mine):
        vecs = [tuple(got[(ri, key, k)] for k in range(16)) for key in range(128)]
        layouts = sorted({g[1] for v in vecs for g in v if g})
        classes, keys, prob = [], [], None
        for v in vecs:
            if all(g is None for g in v):
                keys.append(0)
                continue
            if v not in classes:
                classes.append(v)
            keys.append(classes.index(v) + 1)
        if len(layouts) > 15 or len(classes) > 16:
            prob = "%d layouts, %d classes" % (len(layouts), len(classes))
        if any(g and (g[0] > 15 or len(g[1]) > 5) for v in classes for g in v):
            prob = "data width or address list too long"
        if prob:
            out.append(prob)
            continue
        cls = [[INVALID if g is None else g[0] << 4 | layouts.index(g[1]) for g in v]
               for v in classes]
        out.append(dict(keys=keys, classes=cls, layouts=[list(l) + [0] * (5 - len(l))
                                                         for l in layouts]))
    # Which unused address fields must be zero, per layout (probed at the
    # first key and entry that print it).
    probes, where = [], []
    for ri, r in enumerate(mine):
        o = out[ri]
        if isinstance(o, str):
            continue
        f = encs[r["enc"]]["fields"]
        nm = names[r["enc"]]
        for li, lay in enumerate(o["layouts"]):
            at = next(((key, k) for key in range(128) for k in range(16)
                       if o["keys"][key] and o["classes"][o["keys"][key] - 1][k] != INVALID
                       and o["classes"][o["keys"][key] - 1][k] & 15 == li), None)
            if at is None:
                continue
            used = sum(1 for x in lay if x)
            for i in range(used, len(nm)):
                q = V._word(r, f, at[0], at[1], names)
                V._set(q, f[nm[i]], 0x30)
                probes.append(q)
                where.append((ri, li, i))
    for (ri, li, i), (t, n) in zip(where, disasm(cpu, probes)):
        if t is None:
            out[ri]["layouts"][li][i] |= MUST_ZERO
    return out


def probe_mimg10(cpu, recs):
    """The stage: adds `mimg10` = dict(plain=..., nsa=...) (each `_form`'s
    dict) to every GFX10/GFX11 MIMG record of `cpu`: the plain form and
    the NSA form with one extra dword."""
    mine = [r for r in recs if r["enc"] in ENCODINGS]
    if not mine:
        return
    plain = _form(cpu, mine, ENCODINGS, PLAIN)
    nenc = nsa_encodings()
    nsa = _form(cpu, [_nsa_rec(r, nenc) for r in mine], nenc, NSA)
    # Whether the NSA form prints two spaces after the mnemonic (LLVM's
    # NSA asm strings; not the BVH ones).
    sp = _nsa_spaces(cpu, mine, nenc, nsa)
    for r, p, n, s2 in zip(mine, plain, nsa, sp):
        probs = [x for x in (p, n) if isinstance(x, str)]
        if probs:
            r["mimg10_problems"] = probs
            continue
        r["mimg10"] = dict(plain=p, nsa=n, nsa_space2=s2)


# The keys (`dmask | d16 << 4 | tfe << 5 | lwe << 6`) of the sharing check:
# every data width LLVM decides by (one to four components, d16 halving,
# tfe/lwe adding one), each at all 16 `dim | a16 << 3` entries.
SAMPLE_KEYS = (0x1, 0x3, 0x7, 0xF, 0x13, 0x1F, 0x21, 0x2F, 0x4F, 0x6F, 0x7F, 0x0)


def signature(cpu, recs):
    """What a column's MIMG stage depends on, sampled: its MIMG records'
    opcodes, base words and texts, and what LLVM prints for `SAMPLE_KEYS`
    at every entry in the plain and the one-dword NSA form (a tenth of the
    stage's probes). Columns with equal signatures decode MIMG alike
    (the wave size does not enter a MIMG word), so one of them is probed
    for all (D82). None when `cpu` has no MIMG records."""
    import json
    mine = [r for r in recs if r["enc"] in ENCODINGS]
    if not mine:
        return None
    nenc = nsa_encodings()
    probes = []
    for r in mine:
        n = _nsa_rec(r, nenc)
        for key in SAMPLE_KEYS:
            for k in range(16):
                probes.append(V._word(r, ENCODINGS[r["enc"]]["fields"], key, k, PLAIN))
                probes.append(V._word(n, nenc[r["enc"]]["fields"], key, k, NSA))
    texts = [t for t, _ in disasm(cpu, probes)]
    return json.dumps([[(r["enc"], r["op"], r["base"], r["text"]) for r in mine], texts])


def probe_shared(recs, ex):
    """The stage for every column of `recs` ({cpu: records}, stages A-D
    done), run on one column per `signature` and copied to the others
    (their records are equal where the stage reads them: the signature
    holds the base words). `ex` is an executor. Returns the columns
    probed."""
    import copy
    cpus = list(recs)
    sigs = dict(zip(cpus, ex.map(lambda c: signature(c, recs[c]), cpus)))
    rep = {}
    for c in cpus:
        if sigs[c] is not None:
            rep.setdefault(sigs[c], c)
    probed = list(rep.values())
    list(ex.map(lambda c: probe_mimg10(c, recs[c]), probed))
    for c in cpus:
        if sigs[c] is None or rep[sigs[c]] == c:
            continue
        src = {(r["enc"], r["op"]): r for r in recs[rep[sigs[c]]] if r["enc"] in ENCODINGS}
        for r in recs[c]:
            if r["enc"] in ENCODINGS:
                for k in ("mimg10", "mimg10_problems"):
                    if k in src[(r["enc"], r["op"])]:
                        r[k] = copy.deepcopy(src[(r["enc"], r["op"])][k])
    return probed


def _nsa_spaces(cpu, mine, nenc, nsa):
    probes, where = [], []
    for ri, r in enumerate(mine):
        o = nsa[ri]
        if isinstance(o, str):
            continue
        f = nenc[r["enc"]]["fields"]
        for key in range(128):
            c = o["keys"][key]
            k = next((k for k in range(16) if c and o["classes"][c - 1][k] != INVALID), None)
            if k is not None:
                probes.append(V._word(_nsa_rec(r, nenc), f, key, k, NSA))
                where.append(ri)
                break
    sp = [False] * len(mine)
    for ri, (t, n) in zip(where, disasm(cpu, probes)):
        sp[ri] = bool(t) and "  " in t.split(",")[0]
    return sp


def add_mimg10(cpu, recs, stage_fns):
    """Adds the GFX10/GFX11 MIMG records (stages A-D and this one) to a
    cached probe of `cpu` made before they were probed."""
    return V.add_records(cpu, recs, stage_fns, ENCODINGS, probe_mimg10)


def add_bvh11(cpu, recs, stage_fns):
    """Adds the `MIMG_11` records only the last template finds (GFX11's
    BVH opcodes, D82) to a cached probe of `cpu` made before that template
    existed: stage A with that template for the opcodes the column lacks,
    stages A-D and this stage on them, each inserted where a probe from
    scratch puts it (by opcode)."""
    import probe as P
    enc = "MIMG_11"
    if enc not in P.encodings(cpu):
        return 0
    e = ENCODINGS[enc]
    ti = len(e["templates"]) - 1
    have = {r["op"] for r in recs if r["enc"] == enc}
    ops = [op for op in e["ops"] if op not in have]
    probes = [P.build(enc, op, e["templates"][ti]) for op in ops]
    new = [dict(enc=enc, op=op, template=ti, base=p, text=t, nwords=n)
           for op, p, (t, n) in zip(ops, probes, disasm(cpu, probes))
           if t is not None and t != "<crash>"]
    for fn in stage_fns:
        fn(cpu, new)
    probe_mimg10(cpu, new)
    for r in new:
        at = [i for i, x in enumerate(recs) if x["enc"] == enc]
        after = [i for i in at if recs[i]["op"] < r["op"]]
        recs.insert(after[-1] + 1 if after else at[0], r)
    return len(new)


def op_texts(cpu):
    """Stage A for the MIMG layouts alone: {(enc, op): text} (to tell apart
    processors a cached column holds, e.g. gfx1013's BVH opcodes)."""
    import probe as P
    from llvm import disasm
    probes, keys = [], []
    for enc in P.encodings(cpu):
        if enc not in ENCODINGS:
            continue
        e = ENCODINGS[enc]
        for op in e["ops"]:
            for ti, t in enumerate(e["templates"]):
                probes.append(P.build(enc, op, t))
                keys.append((enc, op))
    out = {}
    for k, (t, n) in zip(keys, disasm(cpu, probes)):
        if t and t != "<crash>" and k not in out:
            out[k] = t
    return sorted(out.items())


def split_groups(data):
    """Splits the cached columns whose processors print different MIMG
    opcodes (gfx1013 has GFX10.3's BVH opcodes, gfx1010 has none; their
    fingerprints were equal before this stage): a processor that differs
    from its column's representative gets a column of its own, a copy of
    the representative's records (their fingerprints agree on everything
    else) without MIMG ones, for the upgrade to add them to. Returns the
    processors split off."""
    import copy
    from concurrent.futures import ThreadPoolExecutor
    import probe as P
    todo = [g for g in data["groups"] if len(g) > 1 and P.generation(g[0]) in (10, 11)]
    cpus = [c for g in todo for c in g]
    with ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        texts = dict(zip(cpus, ex.map(op_texts, cpus)))
    split = []
    for g in todo:
        rest = [c for c in g[1:] if texts[c] != texts[g[0]]]
        for c in rest:
            g.remove(c)
        while rest:
            new = [c for c in rest if texts[c] == texts[rest[0]]]
            rest = [c for c in rest if c not in new]
            data["groups"].append(new)
            data[new[0]] = [copy.deepcopy(r) for r in data[g[0]] if r["enc"] not in ENCODINGS]
            data[new[0] + ":symbols"] = copy.deepcopy(data[g[0] + ":symbols"])
            for key in ("dpp8_32", "gfx11_vop3_dpp", "vimage"):
                if g[0] in data.get(key, []):
                    data[key].append(new[0])
            split.append(new[0])
    return split
