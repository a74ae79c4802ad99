"""Tokenizer for LLVM AMDGPU assembly text as printed by llvm-objdump."""

import re


def split_top(s, sep):
    out, depth, cur, i = [], 0, "", 0
    while i < len(s):
        if s.startswith("/*", i):
            j = s.find("*/", i)
            j = len(s) if j < 0 else j + 2
            cur += s[i:j]
            i = j
            continue
        c = s[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if depth == 0 and s.startswith(sep, i):
            out.append(cur)
            cur = ""
            i += len(sep)
            continue
        cur += c
        i += 1
    out.append(cur)
    return out


COMMENT = re.compile(r"/\*.*?\*/")


def tokenize(text):
    """-> (mnemonic, [operands], [modifiers], comment). Operands keep any
    /*...*/ comments; `comment` is the objdump trailer after //."""
    comment = ""
    if " //" in text:
        text, comment = text.split(" //", 1)
    parts = text.split(" ", 1)
    mnem = parts[0]
    rest = parts[1] if len(parts) > 1 else ""
    if mnem in ("s_waitcnt", "s_delay_alu", "s_waitcnt_depctr", "s_wait_alu"):
        return mnem, [rest] if rest else [], [], comment
    ops = split_top(rest, ", ") if rest else []
    mods = []
    if ops:
        last = split_top(ops[-1], " ")
        ops[-1] = last[0]
        mods = [m for m in last[1:] if m]
        if ops == [""]:
            ops = []
    # An instruction with only modifiers (e.g. "buffer_wbl2 glc"): all words
    # are modifiers when the first looks like one.
    if len(ops) == 1 and re.match(r"^[a-z_0-9]+:\S", ops[0]):
        mods, ops = [ops[0]] + mods, []
    elif len(ops) == 1 and not mods and re.fullmatch(r"(glc|slc|scc|sc0|sc1|nt|gds|lds|offset:\S+)", ops[0]):
        mods, ops = [ops[0]], []
    elif len(ops) == 1 and re.fullmatch(r"(glc|slc|scc|sc0|sc1|nt|gds)", ops[0]):
        mods, ops = [ops[0]] + mods, []
    return mnem, ops, mods, comment


REG = re.compile(r"^(-?\|?)(neg\(|sext\()?([a-z_]+?)(\d+)?(?:\[(\d+):(\d+)\])?(\|?\)?\|?)$")


def parse_reg(tok):
    """'v[8:9]' -> ('v', 8, 2); 's8' -> ('s', 8, 1); 'vcc' -> ('vcc', None, 0)."""
    t = COMMENT.sub("", tok)
    t = t.strip("-|")
    for pre in ("neg(", "sext("):
        if t.startswith(pre):
            t = t[len(pre):].rstrip(")")
    t = t.strip("|")
    m = re.fullmatch(r"v(\d+)\.[lh]", t)
    if m:
        return ("v", int(m.group(1)), 1)  # a true16 half (GFX11+)
    m = re.fullmatch(r"([svat]|ttmp)(\d+)", t)
    if m:
        return (m.group(1), int(m.group(2)), 1)
    m = re.fullmatch(r"([svat]|ttmp)\[(\d+):(\d+)\]", t)
    if m:
        a, b = int(m.group(2)), int(m.group(3))
        return (m.group(1), a, b - a + 1)
    return None


def is_t16(tok):
    """True for a true16 VGPR half (`v8.l`, `-|v8.h|`)."""
    return re.search(r"\bv\d+\.[lh]\b", COMMENT.sub("", tok)) is not None
