"""GFX12 VIMAGE and VSAMPLE (D72): layouts and the probe stage that learns,
per opcode, the address list and data width LLVM 22 decodes.

Both are 96-bit words: word 0 bits 31:26 are 0x34 (VIMAGE) or 0x39
(VSAMPLE), `dim` 2:0, opcode 21:14, `dmask` 25:22; word 1 holds `vdata`,
the resource's SGPR number (9 bits, not divided by 4), `th`/`scope`, and
VIMAGE's fifth address register (31:24) or VSAMPLE's sampler (31:23); word
2 the first four address registers, one byte each. The printed address list
(`v4` or `[v4, v5, v[6:8]]`) is positional: its i-th entry is field i, and a
field may hold a tuple (the last field takes the addresses there is no field
for; the BVH opcodes have fixed tuples).

LLVM decodes a word with a default operand layout per opcode and then
converts it to the variant whose data width (from `dmask`, `d16`, `tfe`,
`lwe`) and address count (from `dim`, `a16`) match; when there is no such
variant it keeps the default ("raw") layout. So the stage probes, per
opcode:
  * `addr[dim + 8 * a16]`: each field's width (0: unused), as printed with
    the base's data width, and whether a non-zero unused field makes the
    word invalid (`MUST_ZERO`); entry 16 is the raw layout;
  * `widths[dmask | d16 << 4 | tfe << 5 | lwe << 6]`: the data width, with
    `RAW` set when LLVM printed the raw layout there (no variant of that
    width), 0 when the word is invalid.
"""

from llvm import disasm
from tok import parse_reg, split_top, tokenize


def F(word, lo, width):
    return (word, lo, width)

# Register numbers the probes put in the address fields.
ADDR0 = 20

VIMAGE_FIELDS = dict(dim=F(0, 0, 3), r128=F(0, 4, 1), d16=F(0, 5, 1), a16=F(0, 6, 1),
                     nv=F(0, 7, 1), dmask=F(0, 22, 4), vdata=F(1, 0, 8), srsrc=F(1, 9, 9),
                     scope=F(1, 18, 2), th=F(1, 20, 3), tfe=F(1, 23, 1),
                     vaddr4=F(1, 24, 8), vaddr=F(2, 0, 8), vaddr1=F(2, 8, 8),
                     vaddr2=F(2, 16, 8), vaddr3=F(2, 24, 8))
VSAMPLE_FIELDS = dict(dim=F(0, 0, 3), tfe=F(0, 3, 1), r128=F(0, 4, 1), d16=F(0, 5, 1),
                      a16=F(0, 6, 1), nv=F(0, 7, 1), unorm=F(0, 13, 1), dmask=F(0, 22, 4),
                      vdata=F(1, 0, 8), lwe=F(1, 8, 1), srsrc=F(1, 9, 9), scope=F(1, 18, 2),
                      th=F(1, 20, 3), ssamp=F(1, 23, 9), vaddr=F(2, 0, 8),
                      vaddr1=F(2, 8, 8), vaddr2=F(2, 16, 8), vaddr3=F(2, 24, 8))
# Address fields in list order.
ADDR_FIELDS = {"VIMAGE_12": ("vaddr", "vaddr1", "vaddr2", "vaddr3", "vaddr4"),
               "VSAMPLE_12": ("vaddr", "vaddr1", "vaddr2", "vaddr3")}

ENCODINGS = {
    "VIMAGE_12": dict(nwords=3, mask=0xFC000000, value=0x34 << 26, op=F(0, 14, 8), ops=range(256),
                      fields=VIMAGE_FIELDS,
                      templates=[dict(dmask=1, vdata=16, srsrc=8, vaddr=4),
                                 # The BVH opcodes (r128 set, as llvm-mc
                                 # encodes them).
                                 dict(dmask=0xF, r128=1, vdata=16, srsrc=8, vaddr=4),
                                 dict()]),
    "VSAMPLE_12": dict(nwords=3, mask=0xFC000000, value=0x39 << 26, op=F(0, 14, 8),
                       ops=range(256), fields=VSAMPLE_FIELDS,
                       templates=[dict(dmask=1, vdata=16, srsrc=8, ssamp=16, vaddr=4),
                                  dict(dmask=0xF, vdata=16, srsrc=8, ssamp=16, vaddr=4),
                                  dict()]),
}

def has_images(cpu):
    """GFX12 but not GFX12.5 (LLVM 22 has no image instructions there);
    the words mean other things on the other generations."""
    return cpu.startswith("gfx12") and not cpu.startswith("gfx125")


# Flags of an address-field byte: the field must be zero when unused; (on
# field 0) the entry is the raw layout / (on a width) the raw layout prints.
MUST_ZERO = 0x40
RAW = 0x80


def _set(words, f, v):
    w, lo, width = f
    words[w] = (words[w] & ~(((1 << width) - 1) << lo)) | (v & ((1 << width) - 1)) << lo


def parse(text):
    """(vdata width, [address field widths]) of a VIMAGE/VSAMPLE text, or
    None."""
    if not text:
        return None
    # LLVM prints most GFX10/11 NSA forms with two spaces after the
    # mnemonic (D81).
    mn, _, rest = text.partition(" ")
    _, ops, _, _ = tokenize(mn + " " + rest.lstrip(" "))
    if len(ops) < 2:
        return None
    d = parse_reg(ops[0])
    a = ops[1]
    if a.startswith("["):
        toks = split_top(a[1:-1], ", ")
    else:
        toks = [a]
    regs = [parse_reg(t) for t in toks]
    if d is None or any(r is None or r[0] != "v" for r in regs):
        return None
    return d[2], [r[2] for r in regs]


def _base(rec, fields, addr_fields=ADDR_FIELDS):
    w = list(rec["base"][:3])
    for name in addr_fields[rec["enc"]]:
        _set(w, fields[name], 0)
    _set(w, fields["vaddr"], ADDR0)
    return w


def _word(r, f, key, k, addr_fields=ADDR_FIELDS):
    p = _base(r, f, addr_fields)
    _set(p, f["dim"], k & 7)
    _set(p, f["a16"], k >> 3)
    _set(p, f["dmask"], key & 15)
    _set(p, f["d16"], key >> 4 & 1)
    _set(p, f["tfe"], key >> 5 & 1)
    if "lwe" in f:
        _set(p, f["lwe"], key >> 6 & 1)
    return p


def _mode(xs):
    xs = [x for x in xs if x is not None]
    return max(sorted(set(xs)), key=xs.count) if xs else None


def probe_vimage(cpu, recs, encodings=ENCODINGS, addr_fields=ADDR_FIELDS):
    """The stage: adds `vimage` = dict(addr=[[u8; 5]; 17], widths=[u8; 128],
    raw_width) to every VIMAGE/VSAMPLE record of `cpu`. `encodings` and
    `addr_fields` name other image layouts with the same keys (GFX10/11
    MIMG, `mimg10.py`)."""
    ENCODINGS, ADDR_FIELDS = encodings, addr_fields
    mine = [r for r in recs if r["enc"] in ENCODINGS]
    if not mine:
        return
    # Step 1: the printed data width and address layout for every dmask/
    # d16/tfe/lwe key at every dim/a16 entry.
    probes, keys = [], []
    for ri, r in enumerate(mine):
        f = ENCODINGS[r["enc"]]["fields"]
        for key in range(128 if "lwe" in f else 64):
            for k in range(16):
                probes.append(_word(r, f, key, k, ADDR_FIELDS))
                keys.append((ri, key, k))
    got = {}
    for (ri, key, k), (t, n) in zip(keys, disasm(cpu, probes)):
        g = parse(t)
        got[(ri, key, k)] = None if g is None else (g[0], tuple(g[1]))
    # A key LLVM converts prints layouts that follow dim/a16; a key it
    # cannot convert (no variant of that data width) prints one raw layout
    # at every entry.
    info = []
    for ri, r in enumerate(mine):
        nkeys = 128 if "lwe" in ENCODINGS[r["enc"]]["fields"] else 64
        vec = {key: [got[(ri, key, k)] for k in range(16)] for key in range(nkeys)}
        lays = {key: set(g[1] for g in v if g) for key, v in vec.items()}
        conv = [key for key in vec if len(lays[key]) > 1]
        if not conv:
            conv = [key for key in vec if lays[key]]
        ref = [_mode([vec[key][k][1] if vec[key][k] else None for key in conv]) for k in range(16)]
        # Entries where a converting key prints another data width than it
        # does elsewhere: LLVM kept the raw form there (no variant for that
        # address count).
        wmode = {key: _mode([g[0] for g in vec[key] if g]) for key in vec}
        raw_ent = {k for k in range(16) for key in conv
                   if vec[key][k] and vec[key][k][0] != wmode[key]}
        raw_keys = [key for key in vec if lays[key] and key not in conv]
        raw_lay = set(vec[key][k][1] for key in raw_keys for k in range(16) if vec[key][k])
        raw_w = set(vec[key][k][0] for key in raw_keys for k in range(16) if vec[key][k])
        for k in raw_ent:
            raw_lay |= {vec[key][k][1] for key in conv if vec[key][k]}
            raw_w |= {vec[key][k][0] for key in conv if vec[key][k]
                      and vec[key][k][0] != wmode[key]}
        probs = []
        if len(raw_lay) > 1 or len(raw_w) > 1:
            probs.append("raw forms differ: %r %r" % (sorted(raw_lay), sorted(raw_w)))
        # Consistency: every converting key prints the reference layout at
        # the entries that are not raw.
        for key in conv:
            for k in range(16):
                g = vec[key][k]
                if g and k not in raw_ent and g[1] != ref[k]:
                    probs.append("key %d entry %d: %r, expected %r" % (key, k, g[1], ref[k]))
                    break
        info.append(dict(vec=vec, conv=conv, ref=ref, raw_ent=raw_ent, raw_keys=raw_keys,
                         raw_lay=sorted(raw_lay), raw_w=sorted(raw_w), wmode=wmode,
                         probs=probs))
    # Step 2: which unused address fields must be zero, per entry (with a
    # converting key).
    probes, keys = [], []
    for ri, r in enumerate(mine):
        f = ENCODINGS[r["enc"]]["fields"]
        names = ADDR_FIELDS[r["enc"]]
        it = info[ri]
        for k in range(16):
            key = next((key for key in it["conv"] if it["vec"][key][k]), None)
            if key is None or it["ref"][k] is None:
                continue
            for i in range(len(it["ref"][k]), len(names)):
                q = _word(r, f, key, k, ADDR_FIELDS)
                _set(q, f[names[i]], 0x30)
                probes.append(q)
                keys.append((ri, k, i))
    bad = set()
    for (ri, k, i), (t, n) in zip(keys, disasm(cpu, probes)):
        if t is None:
            bad.add((ri, k, i))
    for ri, r in enumerate(mine):
        it = info[ri]
        names = ADDR_FIELDS[r["enc"]]
        addr = []
        for k in range(16):
            e = [0] * 5
            lay = it["ref"][k]
            if lay is not None:
                for i, wd in enumerate(lay):
                    e[i] = wd
                for i in range(len(lay), len(names)):
                    if (ri, k, i) in bad:
                        e[i] |= MUST_ZERO
                if k in it["raw_ent"]:
                    e[0] |= RAW
            addr.append(e)
        e = [0] * 5
        for i, wd in enumerate(it["raw_lay"][0] if it["raw_lay"] else ()):
            e[i] = wd
        addr.append(e)
        ws = []
        for key in range(128):
            kk = key if key in it["vec"] else key & 63
            w = it["wmode"].get(kk)
            ws.append(0 if w is None else w | (RAW if kk in it["raw_keys"] else 0))
        r["vimage"] = dict(addr=addr, widths=ws, raw_width=it["raw_w"][0] if it["raw_w"] else 0)
        if it["probs"]:
            r["vimage_problems"] = it["probs"]


def add_vimage(cpu, recs, stage_fns):
    """Adds the VIMAGE/VSAMPLE records (stages A-D and this one) to a cached
    probe of `cpu` made before they were probed, where a probe from scratch
    puts them (after the other stage-A records)."""
    return add_records(cpu, recs, stage_fns, ENCODINGS, probe_vimage)


def add_records(cpu, recs, stage_fns, encodings, stage):
    """Adds the records of `encodings` (stages A-D, then `stage`) to a
    cached probe of `cpu`, where a probe from scratch puts them."""
    import probe as P
    ENCODINGS = encodings
    probes, keys = [], []
    for enc in P.encodings(cpu):
        if enc not in ENCODINGS:
            continue
        e = ENCODINGS[enc]
        for op in e["ops"]:
            for ti, t in enumerate(e["templates"]):
                probes.append(P.build(enc, op, t))
                keys.append((enc, op, ti))
    found = {}
    for (enc, op, ti), p, r in zip(keys, probes, disasm(cpu, probes)):
        if r[0] is None or r[0] == "<crash>" or (enc, op) in found:
            continue
        found[(enc, op)] = dict(enc=enc, op=op, template=ti, base=p, text=r[0], nwords=r[1])
    order = list(P.ENCODINGS)
    new = [found[k] for k in sorted(found, key=lambda k: (order.index(k[0]), k[1]))]
    for fn in stage_fns:
        fn(cpu, new)
    stage(cpu, new)
    last = max(order.index(e) for e in ENCODINGS)
    at = next((i for i, r in enumerate(recs) if r["enc"] not in P.ENCODINGS
               or order.index(r["enc"]) > last), len(recs))
    recs[at:at] = new
    return len(new)
