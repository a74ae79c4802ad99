"""Stage 3 of the lathe-isa generator: render the analysed entries as Rust."""

import json
import re

import probe as P
import rules
from gen import ENC_RUST, OP_SPACE

FLAG_OF_MOD = {
    "clamp": "CLAMP", "omod": "OMOD", "op_sel": "OP_SEL", "op_sel_hi": "OP_SEL_HI",
    "neg_lo": "NEG_LO", "neg_hi": "NEG_HI", "cbsz": "CBSZ", "abid": "ABID", "blgp": "BLGP",
    "neg": "BLGP_NEG", "dst_sel": "DST_SEL", "dst_unused": "DST_SEL", "src0_sel": "SRC0_SEL",
    "src1_sel": "SRC1_SEL", "offset": "OFFSET", "offset0": "OFFSET01", "offset1": "OFFSET01",
    "swizzle": "SWIZZLE", "gds": "GDS", "glc": "GLC", "sc0": "GLC", "slc": "SLC", "nt": "SLC",
    "scc": "SCC", "sc1": "SCC", "lds": "LDS", "nops_glc": "RTN_GLC", "nops_lds": "LDS_DMA",
    "offen": "OFFEN", "idxen": "OFFEN", "format": "FORMAT", "tfe": "TFE", "lwe": "LWE",
    "unorm": "UNORM", "da": "DA", "a16": "A16", "r128": "A16", "d16": "D16", "dmask": "DMASK",
    "packed": "PACKED", "dpp_dp": "DPP_DP", "opsel_n2": "OPSEL_N2", "opsel_n3": "OPSEL_N3",
    "opsel_n4": "OPSEL_N4", "rtn_no_acc": "RTN_NO_ACC", "acc_scc_bad": "ACC_SCC_BAD",
    "rtn_acc_scc_bad": "RTN_ACC_SCC_BAD", "bitop3": "BITOP3", "dlc": "DLC",
    # GFX12 cache policy (D39).
    "th": "TH", "scope": "SCOPE", "nv": "NV", "scale_offset": "SCALE_OFFSET",
    "th_store": "TH_STORE", "th_atomic": "TH_ATOMIC",
    "byte_sel_lo": "BYTE_SEL_LO", "byte_sel_hi": "BYTE_SEL_HI",
    "opsel_no_dst": "OPSEL_NO_DST", "opsel_skip01": "OPSEL_SKIP01",
    # VIMAGE/VSAMPLE (D72; gen.analyze renames them).
    "img_dim": "IMG_DIM", "img_r128": "IMG_R128", "img_unorm": "IMG_UNORM",
    "img_lwe": "IMG_LWE",
}
IGNORED_MODS = {"", "quad_perm", "row_mask", "bank_mask", "bound_ctrl", "row_shl", "row_shr",
                "row_ror", "row_mirror", "row_half_mirror", "row_bcast", "wave_shl", "wave_rol",
                "wave_shr", "wave_ror", "row_newbcast", "nops_acc", "nops_tfe", "nops_d16",
                "nops_dmask", "/*", "fi", "dpp8", "row_share", "row_xmask",
                # `byte_sel` becomes byte_sel_lo/hi (gen.analyze); SWMMAC
                # `index_key:` is not printed yet (README, "Not covered yet").
                "byte_sel", "index_key"}
MOD_BITS = {"neg": "NEG", "abs": "ABS", "sext": "SEXT", "bad_sgpr": "BAD_SGPR",
            "bad_vgpr": "BAD_VGPR", "bad_lds": "BAD_LDS", "bad_imm": None, "align": "ALIGN",
            "bad_m0": "BAD_M0", "align_acc": "ALIGN_ACC", "bad_exec": "BAD_EXEC", "t16": "T16",
            "lo128": "LO128"}


def const_name(name):
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def entry_flags(e):
    out = set()
    for m in e["flags"]:
        if m in FLAG_OF_MOD:
            out.add(FLAG_OF_MOD[m])
        elif m not in IGNORED_MODS and not m.startswith("/*"):
            raise SystemExit("unmapped modifier %r in %s %s" % (m, e["enc"], e["name"]))
    out |= rules.semantics(e)
    return sorted(out)


def operand_key(o, rcs):
    mods = sorted(MOD_BITS[m] for m in o["mods"] if MOD_BITS.get(m))
    rc = o.get("rc")
    if rc is not None and rc not in rcs:
        rcs.append(rc)
    return (o["field"], o["kind"], o["width"], o["ty"], o["access"], tuple(mods),
            rcs.index(rc) if rc is not None else 255)


def ident(cpu):
    return cpu.upper().replace("-", "_").replace(":", "_")


def render(entries, data, version):
    """`entries` by column representative; `data["groups"]` lists each
    column's processors."""
    groups = data["groups"]
    cols = [g[0] for g in groups]
    rcs = []
    # Signature of each per-target entry; merge identical ones.
    merged = []  # list of dict(sig, targets, e)
    index = {}
    for ti, cpu in enumerate(cols):
        for e in entries[cpu]:
            rules.fix_access(e)
            ops = (e["enc"],) + tuple(operand_key(o, rcs) for o in e["operands"])
            sig = (e["enc"], e["code"], e["name"], ops)
            if e.get("mimg10"):
                # GFX10/11 MIMG (D81): columns with other probed forms
                # get rows of their own.
                sig += (json.dumps(e["mimg10"], sort_keys=True),)
            if sig not in index:
                index[sig] = len(merged)
                merged.append(dict(sig=sig, targets=0, e=e, flags=[[]] * len(cols),
                                   zero=[(0, 0)] * len(cols), one=[(0, 0)] * len(cols)))
            m = merged[index[sig]]
            m["targets"] |= 1 << ti
            m["flags"][ti] = entry_flags(e)
            m["zero"][ti] = tuple(e["zero"])
            m["one"][ti] = tuple(e["one"])
    encs = list(ENC_RUST)
    # Same opcode value: the entry of the first column (gfx90a) first.
    merged.sort(key=lambda m: (encs.index(m["sig"][0]), m["sig"][1],
                               (m["targets"] & -m["targets"]).bit_length()))

    # Constant names: the mnemonic; when several encodings print the same
    # mnemonic (v_nop), the non-primary ones get an encoding suffix; when
    # targets differ in operands, a target suffix.
    names = {}
    for m in merged:
        names.setdefault(const_name(m["sig"][2]), []).append(m)
    for n, ms in names.items():
        if len(ms) == 1:
            ms[0]["const"] = n
            continue
        by_enc = {}
        for m in ms:
            by_enc.setdefault(m["sig"][0], []).append(m)
        for enc, group in by_enc.items():
            base = n if enc == ms[0]["sig"][0] else n + "_" + ENC_RUST[enc].upper()
            # The entry of the lowest column keeps the name; others are
            # suffixed with their first processor (and the opcode value if
            # that is not unique).
            group.sort(key=lambda m: ((m["targets"] & -m["targets"]).bit_length(), m["sig"][1]))
            used = set()
            for k, m in enumerate(group):
                c = base
                if k:
                    first = (m["targets"] & -m["targets"]).bit_length() - 1
                    c = base + "_" + ident(cols[first])
                    if c in used:
                        c += "_%X" % m["sig"][1]
                used.add(c)
                m["const"] = c

    # Strings: one blob, each text a packed `offset << 8 | length` (D52:
    # pointer-free tables are not relocated at start-up).
    blob, packed = [], {}

    def text(t):
        if t not in packed:
            assert len(t) < 256 and t.isascii(), t
            at = sum(len(x) for x in blob)
            packed[t] = at << 8 | len(t)
            blob.append(t)
        return packed[t]

    text(".long")
    # Operand lists: one array, each list a packed `start << 8 | length`.
    oplists = {}
    nspecs = 0
    for m in merged:
        ops = m["sig"][3]
        if ops not in oplists:
            oplists[ops] = nspecs << 8 | (len(ops) - 1)
            nspecs += len(ops) - 1

    out = []
    w = out.append
    w("// @generated by crates/isa/gen/gen.py from LLVM %s (llvm-mc + llvm-objdump probes).\n" % version)
    w("// Do not edit by hand: run `python3 crates/isa/gen/gen.py` to regenerate,\n")
    w("// `python3 crates/isa/gen/gen.py --check` to verify.\n\n")
    w("//! Generated GFX9 opcode tables (%s).\n\n" % ", ".join(P.TARGETS))
    w("#![allow(missing_docs)]\n")
    w("use crate::opcode::flags::*;\n")
    w("use crate::opcode::mods::*;\n")
    w("use crate::opcode::{Access as A, Encoding as E, Field as F, Kind as K, OpInfo, Opcode, OperandSpec, Ty as T};\n\n")
    w("/// LLVM version the tables were generated from.\n")
    w("pub const LLVM_VERSION: &str = %s;\n\n" % rust_str(version))
    w("#[allow(clippy::too_many_arguments)]\n")
    w("const fn o(enc: E, field: F, kind: K, width: u8, ty: T, access: A, mods: u16, rc: u8) -> OperandSpec {\n")
    w("    OperandSpec::new(enc, field, kind, width, ty, access, mods, rc)\n}\n\n")
    w("/// LLVM register-class names for `/*Invalid register*/` comments.\n")
    w("pub(crate) static RC_NAMES: [&str; %d] = [%s];\n\n" % (len(rcs), ", ".join(rust_str(r) for r in rcs)))
    w("/// Every opcode's printed operands, list after list (`OpInfo`'s `start << 8 | length`).\n")
    w("pub(crate) static OPERANDS: [OperandSpec; %d] = [\n" % nspecs)
    for ops in oplists:
        enc_r = ENC_RUST[ops[0]]
        for (field, kind, width, ty, acc, mods, rc) in ops[1:]:
            mb = " | ".join(mods) if mods else "0"
            w("    o(E::%s, F::%s, K::%s, %d, T::%s, A::%s, %s, %d),\n" % (
                enc_r, field, kind, width, ty, acc, mb, rc))
    w("];\n\n")
    w("/// Every opcode, all targets.\n")
    w("pub(crate) static OPS: [OpInfo; %d] = [\n" % len(merged))
    for i, m in enumerate(merged):
        enc, code, name, ops = m["sig"][:4]
        w("    OpInfo { name: %d, enc: E::%s, code: 0x%x, index: %d, targets: %d, operands: %d },\n" % (
            text(name), ENC_RUST[enc], code, i, m["targets"], oplists[ops]))
    w("];\n\n")
    w("/// `flags` bits by column, then opcode.\n")
    w("pub(crate) static FLAGS: [[u64; %d]; %d] = [\n" % (len(merged), len(cols)))
    for ti in range(len(cols)):
        w("    [%s],\n" % ", ".join(" | ".join(m["flags"][ti]) if m["flags"][ti] else "0"
                                 for m in merged))
    w("];\n\n")
    for nm, key, doc in (("ZERO", "zero", "must be zero"), ("ONE", "one", "must be one")):
        w("/// Bits of each word that %s, by column, then opcode.\n" % doc)
        w("pub(crate) static %s: [[[u32; 2]; %d]; %d] = [\n" % (nm, len(merged), len(cols)))
        for ti in range(len(cols)):
            w("    [%s],\n" % ", ".join("[0x%x, 0x%x]" % m[key][ti] for m in merged))
        w("];\n\n")

    # Decode tables.
    ranges = []
    base = 0
    for enc in ENC_RUST:
        ranges.append((base, OP_SPACE[enc]))
        base += OP_SPACE[enc]
    w("/// (offset, length) of each encoding's slice of a decode table, by `Encoding` discriminant.\n")
    w("pub(crate) static ENC_RANGE: [(u16, u16); %d] = [%s, (0, 0)];\n\n" % (
        len(ranges) + 1, ", ".join("(%d, %d)" % r for r in ranges)))
    w("/// Number of table columns (processors with identical probes share one).\n")
    w("pub(crate) const COLUMNS: usize = %d;\n\n" % len(cols))
    w("/// Table column of each processor, by `Target` discriminant.\n")
    w("pub(crate) static COLUMN: [u8; %d] = [%s];\n\n" % (
        len(P.TARGETS), ", ".join(str(next(i for i, g in enumerate(groups) if t in g))
                                  for t in P.TARGETS)))
    for ti, cpu in enumerate(cols):
        table = [0xFFFF] * base
        for i, m in enumerate(merged):
            if m["targets"] >> ti & 1:
                enc, code = m["sig"][0], m["sig"][1]
                off = ranges[encs.index(enc)][0]
                assert table[off + code] == 0xFFFF, (cpu, enc, code)
                table[off + code] = i
        w("static DEC_%s: [u16; %d] = [\n" % (ident(cpu), base))
        for i in range(0, base, 16):
            w("    " + ", ".join("%d" % v for v in table[i:i + 16]) + ",\n")
        w("];\n\n")
    w("/// Opcode decode tables by column (indexed by `ENC_RANGE` offset + opcode field).\n")
    w("pub(crate) static DECODE: [&[u16; %d]; %d] = [%s];\n\n" % (
        base, len(cols), ", ".join("&DEC_%s" % ident(c) for c in cols)))

    # Symbol tables.
    w("/// `hwreg()` register names by id, per target (empty = print the number).\n")
    w("pub(crate) static HWREG_NAMES: [[u32; 64]; %d] = [\n" % len(cols))
    for cpu in cols:
        hw = data[cpu + ":symbols"]["hwreg"]
        w("    [%s],\n" % ", ".join(str(text(hw.get(str(i), ""))) for i in range(64)))
    w("];\n\n")
    w("/// `s_delay_alu` names: instid values 0-15, then instskip values 0-7, per target\n")
    w("/// (empty = not printed; all empty where there is no s_delay_alu).\n")
    w("pub(crate) static DELAY_ALU: [[&str; 24]; %d] = [\n" % len(cols))
    for cpu in cols:
        da = data[cpu + ":symbols"].get("delay_alu", {})
        w("    [%s],\n" % ", ".join(rust_str(da.get(str(i), "")) for i in range(24)))
    w("];\n\n")
    w("/// `s_waitcnt_depctr` counters (name, low bit, width) in printing order, per\n")
    w("/// target (empty where there is no s_waitcnt_depctr).\n")
    w("pub(crate) static DEPCTR: [&[(&str, u8, u8)]; %d] = [\n" % len(cols))
    for cpu in cols:
        w("    &[%s],\n" % ", ".join("(%s, %d, %d)" % (rust_str(n), lo, wd)
                                  for n, lo, wd in depctr_counters(data[cpu + ":symbols"])))
    w("];\n\n")
    w("/// GFX12 `th:`/`scope:` texts for `th << 2 | scope`: loads, stores, atomics,\n")
    w("/// per target (empty strings where there are none).\n")
    w("pub(crate) static CPOL: [[[u32; 32]; 3]; %d] = [\n" % len(cols))
    for cpu in cols:
        cp = data[cpu + ":symbols"].get("cpol", {})
        w("    [%s],\n" % ", ".join(
            "[%s]" % ", ".join(str(text(t)) for t in (cp.get(c) or [""] * 32))
            for c, _ in P.CPOL_PROBES))
    w("];\n\n")
    msgs = [data[cpu + ":symbols"]["sendmsg"] for cpu in cols]
    for cpu, msg in zip(cols, msgs):
        w("/// `sendmsg()` text for each immediate below 1024 (empty = print it in decimal), %s.\n" % cpu)
        w("static SENDMSG_%s: [u32; 1024] = [\n" % ident(cpu))
        for i in range(0, 1024, 8):
            w("    " + ", ".join(str(text(msg.get(str(v), ""))) for v in range(i, i + 8)) + ",\n")
        w("];\n\n")
    for cpu in cols:
        fm = data[cpu + ":symbols"]["format"]
        w("/// MTBUF `format:[...]` text for each dfmt | nfmt << 4 (empty = not printed), %s.\n" % cpu)
        w("static MTBUF_FORMAT_%s: [u32; 128] = [\n" % ident(cpu))
        for i in range(0, 128, 4):
            w("    " + ", ".join(str(text(fm.get(str(v), ""))) for v in range(i, i + 4)) + ",\n")
        w("];\n\n")
    w("/// MTBUF format texts by target.\n")
    w("pub(crate) static MTBUF_FORMAT: [&[u32; 128]; %d] = [%s];\n\n" % (
        len(cols), ", ".join("&MTBUF_FORMAT_%s" % ident(c) for c in cols)))
    w("/// `sendmsg()` texts by target.\n")
    w("pub(crate) static SENDMSG: [&[u32; 1024]; %d] = [%s];\n\n" % (
        len(cols), ", ".join("&SENDMSG_%s" % ident(c) for c in cols)))

    # MIMG vdata widths by dmask | d16 << 4 (0 = not decodable).
    mimg = [(i, m["e"]["mimg_widths"]) for i, m in enumerate(merged)
            if m["sig"][0] == "MIMG" and m["e"].get("mimg_widths")]
    w("/// MIMG: vdata width in dwords for each `dmask | d16 << 4`, by opcode index.\n")
    w("pub(crate) static MIMG_WIDTHS: [(u16, [u8; 32]); %d] = [\n" % len(mimg))
    for i, ws in mimg:
        w("    (%d, [%s]),\n" % (i, ", ".join(str(x) for x in ws)))
    w("];\n\n")
    # VIMAGE/VSAMPLE (D72): address layouts by dim | a16 << 3 (entry 16:
    # the raw layout), data widths by dmask | d16 << 4 | tfe << 5 |
    # lwe << 6, and the raw data width.
    vim = [(i, m["e"]["vimage"]) for i, m in enumerate(merged) if m["e"].get("vimage")]
    w("/// VIMAGE/VSAMPLE (D72), by opcode index: the address field widths for\n")
    w("/// each `dim | a16 << 3` (index 16: LLVM's raw layout; `0x40`: the\n")
    w("/// unused field must be zero; `0x80` on field 0: LLVM keeps the raw\n")
    w("/// form), the data width for each `dmask | d16 << 4 | tfe << 5 | lwe << 6`\n")
    w("/// (0: invalid; `0x80`: the raw form), and the raw form's data width.\n")
    w("pub(crate) type VimageRow = (u16, [[u8; 5]; 17], [u8; 128], u8);\n\n")
    w("/// The VIMAGE/VSAMPLE rows.\n")
    w("pub(crate) static VIMAGE: [VimageRow; %d] = [\n" % len(vim))
    for i, v in vim:
        w("    (%d, [%s], [%s], %d),\n" % (
            i, ", ".join("[%s]" % ", ".join(str(x) for x in e) for e in v["addr"]),
            ", ".join(str(x) for x in v["widths"]), v["raw_width"]))
    w("];\n\n")
    # GFX10/11 MIMG (D81): the plain and NSA forms of each opcode, as
    # deduplicated `MimgForm`s: the class of each key, each class's output
    # per entry, the address layouts.
    m10 = [(i, m["e"]["mimg10"]) for i, m in enumerate(merged) if m["e"].get("mimg10")]
    forms = []

    def form_index(f):
        k = json.dumps(f, sort_keys=True)
        if k not in forms:
            forms.append(k)
        return forms.index(k)
    rows10 = [(i, form_index(v["plain"]), form_index(v["nsa"]), int(v["nsa_space2"]))
              for i, v in m10]
    fl = [json.loads(k) for k in forms]
    nc = max([len(f["classes"]) for f in fl] + [1])
    nl = max([len(f["layouts"]) for f in fl] + [1])
    w("/// GFX10/11 MIMG (D81): one form (plain, or NSA with one extra dword):\n")
    w("/// the class of each `dmask | d16 << 4 | tfe << 5 | lwe << 6` key (0:\n")
    w("/// invalid), per class the output for each `dim | a16 << 3` entry\n")
    w("/// (`data width << 4 | layout`, `0xFF`: invalid), and the address\n")
    w("/// layouts (field widths; `0x40`: the unused field must be zero).\n")
    w("pub(crate) type MimgForm = ([u8; 128], [[u8; 16]; %d], [[u8; 5]; %d]);\n\n" % (nc, nl))
    w("/// The distinct MIMG forms.\n")
    w("pub(crate) static MIMG_FORMS: [MimgForm; %d] = [\n" % len(fl))
    for f in fl:
        cls = f["classes"] + [[0xFF] * 16] * (nc - len(f["classes"]))
        lays = f["layouts"] + [[0] * 5] * (nl - len(f["layouts"]))
        w("    ([%s], [%s], [%s]),\n" % (
            ", ".join(str(x) for x in f["keys"]),
            ", ".join("[%s]" % ", ".join(str(x) for x in c) for c in cls),
            ", ".join("[%s]" % ", ".join(str(x) for x in l) for l in lays)))
    w("];\n\n")
    w("/// GFX10/11 MIMG rows by opcode index: the plain form, the NSA form\n")
    w("/// (indices into `MIMG_FORMS`), 1 if the NSA form prints two spaces\n")
    w("/// after the mnemonic.\n")
    w("pub(crate) static MIMG10: [(u16, u16, u16, u8); %d] = [\n" % len(rows10))
    for r in rows10:
        w("    (%d, %d, %d, %d),\n" % r)
    w("];\n\n")
    w("/// Every text of the tables, one after another (a packed text is\n")
    w("/// `offset << 8 | length`; `\".long\"` is at 0).\n")
    w("pub(crate) static TEXT: &str = %s;\n\n" % rust_str("".join(blob)))
    w("#[allow(missing_docs)]\nimpl Opcode {\n")
    for i, m in enumerate(merged):
        w("    pub const %s: Opcode = Opcode(%d);\n" % (m["const"], i))
    w("}\n")
    return "".join(out)


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def depctr_counters(sym):
    """[(name, low bit, width)] of s_waitcnt_depctr's counters, from the texts
    of the immediates 0 (every counter, in order) and 1 << i (the counter
    holding bit i has the value 1 << (i - low bit); a hex text: bit unused)."""
    texts = sym.get("depctr", {})
    if not texts.get("0"):
        return []
    order = re.findall(r"(\w+)\(", texts["0"])
    lo, width = {}, {}
    for i in range(16):
        t = texts.get(str(1 << i)) or ""
        vals = dict(re.findall(r"(\w+)\((\d+)\)", t))
        if not vals:
            continue  # printed in hex: bit i is in no counter
        # The counter holding bit i has the value 1 << (i - low bit), or is
        # left out when that is its maximum (a 1-bit counter).
        hit = [(n, int(v)) for n, v in vals.items() if int(v)]
        hit += [(n, 1) for n in order if n not in vals]
        for name, v in hit[:1]:
            lo[name] = min(lo.get(name, 99), i - (v.bit_length() - 1))
            width[name] = width.get(name, 0) + 1
    return [(n, lo[n], width[n]) for n in order if n in lo]
