#!/usr/bin/python3
"""Synthetic inputs for `rocm-perf inspect`, built without any GPU compiler:
small valid code objects, bundles, cubins and fatbins whose resources are
known, and hostile variants of each (truncated, lying sizes, bad msgpack).

usage: make_inputs.py --list            print the case names, one a line
       make_inputs.py DIR               write every case to DIR/<case> and
                                        DIR/expected.json (valid cases only)

Valid cases and the values inspect must report are in VALID below; the
occupancy numbers are worked by hand from the rules in counters.md §3/§5.5.
"""
import json
import os
import shutil
import struct
import subprocess
import sys


# ---------------------------------------------------------------- msgpack
def mp(obj):
    """Encode dict/list/str/int/bool as msgpack."""
    if isinstance(obj, bool):
        return b"\xc3" if obj else b"\xc2"
    if isinstance(obj, int):
        if obj < 0x80:
            return bytes([obj])
        if obj < 0x100:
            return b"\xcc" + bytes([obj])
        if obj < 0x10000:
            return b"\xcd" + struct.pack(">H", obj)
        return b"\xce" + struct.pack(">I", obj)
    if isinstance(obj, str):
        b = obj.encode()
        if len(b) < 32:
            return bytes([0xA0 | len(b)]) + b
        return b"\xd9" + bytes([len(b)]) + b
    if isinstance(obj, list):
        head = bytes([0x90 | len(obj)]) if len(obj) < 16 else b"\xdc" + struct.pack(">H", len(obj))
        return head + b"".join(mp(x) for x in obj)
    if isinstance(obj, dict):
        head = bytes([0x80 | len(obj)]) if len(obj) < 16 else b"\xde" + struct.pack(">H", len(obj))
        return head + b"".join(mp(k) + mp(v) for k, v in obj.items())
    raise TypeError(obj)


# ---------------------------------------------------------------- ELF
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOTE, SHT_NOBITS = 1, 2, 3, 7, 8


def elf(machine, sections, osabi=0, abiversion=0, e_type=1, e_flags=0):
    """sections: list of dicts name/type/data/(size)/(link)/(info)/(entsize)/(flags)."""
    names = b"\0"
    offsets = []
    for s in sections + [{"name": ".shstrtab"}]:
        offsets.append(len(names))
        names += s["name"].encode() + b"\0"
    secs = sections + [{"name": ".shstrtab", "type": SHT_STRTAB, "data": names}]
    body = b""
    placed = []
    pos = 64
    for s in secs:
        data = s.get("data", b"")
        pad = (-pos) % 8
        body += b"\0" * pad
        pos += pad
        placed.append(pos)
        if s["type"] != SHT_NOBITS:
            body += data
            pos += len(data)
    pad = (-pos) % 8
    body += b"\0" * pad
    shoff = pos + pad
    ident = b"\x7fELF" + bytes([2, 1, 1, osabi, abiversion]) + b"\0" * 7
    hdr = ident + struct.pack("<HHIQQQIHHHHHH", e_type, machine, 1, 0, 0, shoff, e_flags, 64, 0,
                              0, 64, len(secs) + 1, len(secs))
    shdrs = b"\0" * 64
    for i, s in enumerate(secs):
        size = s.get("size", len(s.get("data", b"")))
        shdrs += struct.pack("<IIQQQQIIQQ", offsets[i], s["type"], s.get("flags", 0), 0,
                             placed[i], size, s.get("link", 0), s.get("info", 0),
                             4 if s["type"] == SHT_NOTE else 8,
                             s.get("entsize", 0))
    return hdr + body + shdrs


def note(owner, ntype, desc):
    name = owner.encode() + b"\0"
    out = struct.pack("<III", len(name), len(desc), ntype)
    out += name + b"\0" * ((-len(name)) % 4)
    return out + desc + b"\0" * ((-len(desc)) % 4)


# ---------------------------------------------------------------- AMD
def amd_kernel(name, vgpr, agpr, sgpr, lds, scratch, wg, spill=0):
    return {".name": name, ".symbol": name + ".kd", ".vgpr_count": vgpr, ".agpr_count": agpr,
            ".sgpr_count": sgpr, ".vgpr_spill_count": spill, ".sgpr_spill_count": 0,
            ".group_segment_fixed_size": lds, ".private_segment_fixed_size": scratch,
            ".wavefront_size": 64, ".max_flat_workgroup_size": wg,
            ".kernarg_segment_size": 16, ".kernarg_segment_align": 8,
            ".args": [{".name": "out", ".offset": 0, ".size": 8, ".value_kind": "global_buffer",
                       ".address_space": "global"},
                      {".name": "n", ".offset": 8, ".size": 4, ".value_kind": "by_value"}]}


AMD_KERNELS = [amd_kernel("k_lds", 24, 0, 16, 16384, 0, 256),
               amd_kernel("k_agpr", 200, 64, 40, 0, 128, 1024, spill=3)]


def amd_metadata(kernels=None, target="amdgcn-amd-amdhsa--gfx90a"):
    return mp({"amdhsa.version": [1, 1], "amdhsa.target": target,
               "amdhsa.kernels": AMD_KERNELS if kernels is None else kernels})


def amd_codeobj(desc=None, comment=None, abiversion=2):
    secs = [{"name": ".note", "type": SHT_NOTE,
             "data": note("AMDGPU", 32, amd_metadata() if desc is None else desc)}]
    if comment:
        secs.append({"name": ".comment", "type": SHT_PROGBITS, "data": comment.encode() + b"\0"})
    return elf(224, secs, osabi=64, abiversion=abiversion, e_type=3)


def bundle(entries):
    """entries: list of (id, payload)."""
    head = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(entries))
    table_len = sum(24 + len(i) for i, _ in entries)
    off = len(head) + table_len
    table, payloads = b"", b""
    for ident, payload in entries:
        table += struct.pack("<QQQ", off, len(payload), len(ident)) + ident.encode()
        payloads += payload
        off += len(payload)
    return head + table + payloads


def ccob_v2(raw, total_delta=0, raw_size=None):
    comp = subprocess.run(["zstd", "-q", "-c", "-3"], input=raw, capture_output=True,
                          check=True).stdout
    total = 24 + len(comp) + total_delta
    return (b"CCOB" + struct.pack("<HHIIQ", 2, 1, total, len(raw) if raw_size is None else raw_size,
                                  0x1234) + comp)


def host_elf(section, data):
    return elf(62, [{"name": section, "type": SHT_PROGBITS, "data": data, "flags": 2}], e_type=1)


# ---------------------------------------------------------------- NVIDIA
def nv_attr(fmt, attr, payload=b"", value=0):
    if fmt == 4:
        return struct.pack("<BBH", 4, attr, len(payload)) + payload
    return struct.pack("<BBH", fmt, attr, value)


def cubin(regcount_sym=1, info_extra=b"", sm=90, shared=4096, reserved_layout=False):
    strtab = b"\0k_nv\0"
    # symbol 1: the kernel, in section 4 (.text.k_nv), STT_FUNC|STB_GLOBAL, st_other 0x10
    symtab = b"\0" * 24 + struct.pack("<IBBHQQ", 1, 0x12, 0x10, 4, 0, 256)
    glob = (nv_attr(4, 0x2F, struct.pack("<II", regcount_sym, 40)) +
            nv_attr(4, 0x11, struct.pack("<II", 1, 64)))
    kinfo = (nv_attr(4, 0x05, struct.pack("<III", 128, 1, 1)) + nv_attr(2, 0x4C, value=1) +
             nv_attr(3, 0x19, value=12) +
             nv_attr(4, 0x17, struct.pack("<IHHI", 0, 1, 8, 4 << 18)) +
             nv_attr(4, 0x17, struct.pack("<IHHI", 0, 0, 0, 8 << 18)) + info_extra)
    secs = [{"name": ".strtab", "type": SHT_STRTAB, "data": strtab},
            {"name": ".symtab", "type": SHT_SYMTAB, "data": symtab, "link": 1, "info": 1,
             "entsize": 24},
            {"name": ".nv.info", "type": 0x70000000, "data": glob, "link": 2},
            {"name": ".text.k_nv", "type": SHT_PROGBITS, "data": b"\0" * 256, "flags": 6},
            {"name": ".nv.info.k_nv", "type": 0x70000000, "data": kinfo, "link": 2, "info": 4},
            {"name": ".nv.shared.k_nv", "type": SHT_NOBITS, "size": shared, "flags": 3}]
    if reserved_layout:
        secs.append({"name": ".nv.shared.reserved.0", "type": SHT_NOBITS, "size": 0, "flags": 3})
    return elf(190, secs, osabi=0x41, abiversion=8, e_type=2, e_flags=(sm << 8) | 0x5)


def fatbin(entries):
    """entries: list of (kind, sm, payload)."""
    body = b""
    for kind, sm, payload in entries:
        body += struct.pack("<HHIQIIHHIIIQQQ", kind, 0x101, 64, len(payload), 0, 0, 8, 1, sm, 0, 0,
                            0x11, 0, 0) + payload
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


# ---------------------------------------------------------------- cases
def amd_expected(rule):
    lds_occ = 8 if rule == "llvm-legacy" else 4
    return [
        {"name": "k_lds", "arch": "gfx90a", "vgpr": 24, "arch_vgpr": 24, "agpr": 0, "sgpr": 16,
         "lds_bytes": 16384, "scratch_bytes": 0, "spill_vgpr": 0, "waves_per_simd": lds_occ,
         "limiter": "lds" if lds_occ < 8 else "waves", "rule": rule, "n_args": 2},
        {"name": "k_agpr", "arch": "gfx90a", "vgpr": 200, "arch_vgpr": 136, "agpr": 64,
         "sgpr": 40, "lds_bytes": 0, "scratch_bytes": 128, "spill_vgpr": 3, "waves_per_simd": 2,
         "limiter": "vgpr", "rule": rule, "n_args": 2},
    ]


NV_EXPECTED = [{"name": "k_nv", "arch": "sm_90", "vgpr": 40, "lds_bytes": 4096,
                "scratch_bytes": 64, "barriers": 1, "blocks_per_cu": 12, "limiter": "registers",
                "block_size": 128, "n_args": 2}]


def cases():
    co = amd_codeobj()
    co15 = amd_codeobj(comment="Debian clang version 15.0.6")
    bnd = bundle([("host-x86_64-unknown-linux", b""), ("hipv4-amdgcn-amd-amdhsa--gfx90a", co)])
    one = bundle([("hipv4-amdgcn-amd-amdhsa--gfx90a", co)])
    cub = cubin()
    fat = fatbin([(2, 90, cub)])
    valid = {
        "amd_codeobj.co": (co, amd_expected("llvm")),
        "amd_llvm15.co": (co15, amd_expected("llvm-legacy")),
        "amd_bundle.hipfb": (bnd, amd_expected("llvm")),
        "amd_host.o": (host_elf(".hip_fatbin", bnd + b"\0" * 40 + bnd), amd_expected("llvm") * 2),
        "nv_kernel.cubin": (cub, NV_EXPECTED),
        "nv_reserved.cubin": (cubin(shared=4096 + 1024, reserved_layout=True), NV_EXPECTED),
        "nv_kernel.fatbin": (fat, NV_EXPECTED),
        "nv_host.o": (host_elf(".nv_fatbin", fat + b"\0" * 8 + fat), NV_EXPECTED * 2),
    }
    # Mangled kernel names: the table shows them demangled, the JSON keeps them mangled.
    mangled = amd_codeobj(amd_metadata([
        amd_kernel("_Z10vector_addPfPKfi", 24, 0, 16, 16384, 0, 256),
        amd_kernel("_Z6reduceILi256EEvPKfPfi", 200, 64, 40, 0, 128, 1024, spill=3)]))
    want = amd_expected("llvm")
    want[0] = dict(want[0], name="_Z10vector_addPfPKfi",
                   table_name="vector_add(float*, float const*, int)")
    want[1] = dict(want[1], name="_Z6reduceILi256EEvPKfPfi",
                   table_name="void reduce<256>(float const*, float*, int)")
    valid["amd_mangled.co"] = (mangled, want)
    if shutil.which("zstd"):
        valid["amd_compressed.hipfb"] = (ccob_v2(bnd), amd_expected("llvm"))
    deep = b"\x91" * 200 + b"\x00"
    bad = {
        "empty.bin": b"",
        "random.bin": bytes((i * 131 + 7) % 256 for i in range(4096)),
        "text.txt": b"this is not a code object\n",
        "truncated_header.co": co[:40],
        "truncated_half.co": co[: len(co) // 2],
        "shdr_past_end.co": co[:40] + struct.pack("<Q", len(co) * 4) + co[48:],
        "msgpack_bad_byte.co": amd_codeobj(desc=b"\xc1" * 64),
        "msgpack_truncated.co": amd_codeobj(desc=amd_metadata()[:-20]),
        "msgpack_lying_array.co": amd_codeobj(desc=b"\x81\xaeamdhsa.kernels\xdd\xff\xff\xff\xff"),
        "msgpack_lying_map.co": amd_codeobj(desc=b"\xdf\x7f\xff\xff\xff\xa1a"),
        "msgpack_deep.co": amd_codeobj(desc=deep),
        "msgpack_not_map.co": amd_codeobj(desc=mp([1, 2, 3])),
        "metadata_missing_field.co": amd_codeobj(desc=amd_metadata(
            [{k: v for k, v in AMD_KERNELS[0].items() if k != ".vgpr_count"}])),
        "metadata_bad_wave.co": amd_codeobj(desc=amd_metadata(
            [dict(AMD_KERNELS[0], **{".wavefront_size": 48})])),
        "metadata_huge_value.co": amd_codeobj(desc=amd_metadata(
            [dict(AMD_KERNELS[0], **{".vgpr_count": 0xFFFFFFF0})])),
        "codeobj_v2.co": amd_codeobj(abiversion=0),
        "bundle_truncated.hipfb": bnd[:30],
        "bundle_lying_count.hipfb": bnd[:24] + struct.pack("<Q", 1 << 40) + bnd[32:],
        "bundle_lying_offset.hipfb": bnd[:32] + struct.pack("<Q", len(bnd) + 100) + bnd[40:],
        "bundle_lying_size.hipfb": one[:40] + struct.pack("<Q", 1 << 62) + one[48:],
        "bundle_lying_idlen.hipfb": bnd[:48] + struct.pack("<Q", 1 << 33) + bnd[56:],
        "bundle_bad_payload.hipfb": bundle([("hipv4-amdgcn-amd-amdhsa--gfx90a", co[:200])]),
        "host_no_gpu_code.o": elf(62, [{"name": ".text", "type": SHT_PROGBITS, "data": b"\x90"}]),
        "host_bad_hip_fatbin.o": host_elf(".hip_fatbin", b"\0" * 64),
        "cubin_regcount_bad_symbol.cubin": cubin(regcount_sym=999),
        "cubin_info_overrun.cubin": cubin(info_extra=struct.pack("<BBH", 4, 0x17, 0x4000)),
        "cubin_info_bad_format.cubin": cubin(info_extra=struct.pack("<BBH", 9, 0x17, 0)),
        "cubin_truncated.cubin": cub[: len(cub) - 100],
        "fatbin_lying_size.fatbin": fat[:8] + struct.pack("<Q", 1 << 40) + fat[16:],
        "fatbin_lying_entry.fatbin": fat[:24] + struct.pack("<Q", 1 << 40) + fat[32:],
        "fatbin_bad_entry_header.fatbin": fat[:20] + struct.pack("<I", 8 << 20) + fat[24:],
        "fatbin_truncated.fatbin": fat[:40],
    }
    if shutil.which("zstd"):
        bad["ccob_lying_total.hipfb"] = ccob_v2(bnd, total_delta=1 << 20)
        bad["ccob_lying_raw.hipfb"] = ccob_v2(bnd, raw_size=len(bnd) + 1)
        bad["ccob_huge_raw.hipfb"] = ccob_v2(bnd, raw_size=0xFFFFFFFF)
        bad["ccob_corrupt.hipfb"] = ccob_v2(bnd)[:30] + b"\xff" * 32
    return valid, bad


def main(argv):
    valid, bad = cases()
    if len(argv) == 2 and argv[1] == "--list":
        for name in sorted(bad):
            print(name)
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    expected = {}
    for name, (data, exp) in valid.items():
        with open(os.path.join(argv[1], name), "wb") as f:
            f.write(data)
        expected[name] = exp
    for name, data in bad.items():
        with open(os.path.join(argv[1], name), "wb") as f:
            f.write(data)
    with open(os.path.join(argv[1], "expected.json"), "w", encoding="utf-8") as f:
        json.dump({"valid": expected, "bad": sorted(bad)}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
