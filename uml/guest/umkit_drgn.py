#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""umkit_drgn.py - drgn on a running umkit guest, and what UML needs of it.

A UML kernel is an ordinary host process and the guest's memory is that
process's memory, so drgn reads the kernel through /proc/PID/mem of the
UML process without stopping it (drgn.Program.set_pid).  drgn's own
kernel helpers assume a kernel program (/proc/kcore, a vmcore) and the
usual memory models; here are the few that UML 7.2 needs written for it:

    memcg(prog, path)             a memory cgroup by path, "/" first
    lruvec(prog, path, node)      its lruvec (MGLRU's lrugen inside)
    generations(lruvec)           the generations: seq, age, anon, file
    gen_folios(lruvec, seq)       the folios of one generation
    folio_owners(prog, folio)     who maps a folio (rmap), or its file
    pfn_to_page, page_to_pfn      FLATMEM: mem_map, max_mapnr
    page_folio, folio_gen         a page's folio, the gen in its flags
    tasks(prog), task(prog, x)    the guest's processes
    vmas(mm), vma_name(vma)       a process's VMAs (the maple tree)
    ptes(prog, mm, start, end)    its page table entries
    process_gens(prog, pid)       which generation each page is in

umkit drgn (uml/cmd-drgn.c) runs this file with the guest's pid and
vmlinux; docs/drgn.md says what works on UML and what does not.
Reads are not atomic: the guest runs on while they happen.
"""

import os
import struct
import sys
import time

try:
    import drgn
    from drgn import Object, cast, container_of, offsetof, sizeof
    from drgn.helpers.linux.list import list_for_each_entry
    from drgn.helpers.linux.rbtree import rbtree_inorder_for_each_entry
except ImportError:
    drgn = None

__all__ = [
    "attach", "build_id", "tasks", "task", "memcg", "memcg_path",
    "memcg_id", "task_memcg", "lruvec", "generations", "gen_folios",
    "folio_owners", "pfn_to_page", "page_to_pfn", "page_folio",
    "folio_gen", "folio_seq", "folio_memcg", "vmas", "vma_name",
    "ptes", "process_gens", "format_gens", "flags_layout",
]

# UML's page table bits (arch/um/include/asm/pgtable.h).
_PAGE_PRESENT = 0x001
_PAGE_NEEDSYNC = 0x002
_PAGE_PROTNONE = 0x010
_PAGE_SHIFT = 12
_PAGE_SIZE = 1 << _PAGE_SHIFT
_PAGE_MASK = ~(_PAGE_SIZE - 1) & (1 << 64) - 1
# 4-level tables (pgtable-4level.h): PGDIR 39, PUD 30, PMD 21, PTE 12.
_SHIFTS = (39, 30, 21)
_PTRS = 512

# MGLRU (include/linux/mmzone.h).
MAX_NR_GENS = 4
_LRU_GEN_WIDTH = 3      # order_base_2(MAX_NR_GENS + 1), kernel/bounds.c
_FOLIO_MAPPING_ANON = 0x1
_FOLIO_MAPPING_FLAGS = 0x3
_VM_READ, _VM_WRITE, _VM_EXEC, _VM_SHARED = 0x1, 0x2, 0x4, 0x8


class UmkitError(Exception):
    """An error to print as one line (no traceback)."""


def attach(pid, vmlinux):
    """A drgn Program on UML process pid with vmlinux's debug info."""
    prog = drgn.Program()
    prog.set_pid(pid)
    prog.load_debug_info([vmlinux], default=False)
    return prog


def build_id(path):
    """The GNU build id of ELF file path (hex), or None."""
    with open(path, "rb") as f:
        eh = f.read(64)
        if eh[:4] != b"\x7fELF" or eh[4] != 2:
            return None
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
        for i in range(phnum):
            ptype, _, off, _, _, filesz = struct.unpack_from(
                "<IIQQQQ", ph, i * phentsize)
            if ptype != 4:      # PT_NOTE
                continue
            f.seek(off)
            notes = f.read(min(filesz, 1 << 16))
            p = 0
            while p + 12 <= len(notes):
                nsz, dsz, ntype = struct.unpack_from("<III", notes, p)
                name = notes[p + 12:p + 12 + nsz]
                d = p + 12 + (nsz + 3 & ~3)
                if ntype == 3 and name[:3] == b"GNU":
                    return notes[d:d + dsz].hex()
                p = d + (dsz + 3 & ~3)
    return None


def _cache(prog):
    """Per-program constants, computed once."""
    c = prog.cache.get("umkit")
    if c is None:
        c = {}
        page = prog.type("struct page")
        c["page_size"] = sizeof(page)
        c["off_info"] = offsetof(page, "compound_info")
        c["off_mcg"] = offsetof(page, "memcg_data")
        c["mem_map"] = prog["mem_map"].value_()
        c["max_mapnr"] = prog["max_mapnr"].value_()
        c["physmem"] = prog["uml_physmem"].value_()
        try:
            c["objcg_mask"] = prog["__NR_OBJEXTS_FLAGS"].value_() - 1
        except LookupError:
            c["objcg_mask"] = 7
        c["off_objcg_memcg"] = offsetof(prog.type("struct obj_cgroup"),
            "memcg")
        c["PG_swapbacked"] = prog["PG_swapbacked"].value_()
        c["PG_lru"] = prog["PG_lru"].value_()
        prog.cache["umkit"] = c
        c.update(flags_layout(prog))
    return c


def flags_layout(prog):
    """Where the generation and the zone are in folio->flags.

    LRU_GEN_PGOFF is a compile-time macro (include/linux/mmzone.h:
    SECTIONS | NODES | ZONES | LAST_CPUPID | KASAN_TAG | LRU_GEN from the
    top), not in the debug info.  UML 7.2 is FLATMEM without NUMA, NUMA
    balancing or tag-based KASAN, so only ZONES_WIDTH is left, from the
    number of zones (include/linux/page-flags-layout.h).  Checked against
    a folio of each non-empty generation list where there is one.
    """
    nz = prog["__MAX_NR_ZONES"].value_()
    zw = 0 if nz <= 1 else 1 if nz <= 2 else 2 if nz <= 4 else 3
    for sym in ("node_data", "section_mem_map", "mem_section"):
        try:
            prog[sym]
            raise UmkitError("this kernel is not FLATMEM without NUMA (%s): "
                "the generation bits are elsewhere" % sym)
        except LookupError:
            pass
    zpgoff = 64 - zw
    gpgoff = zpgoff - _LRU_GEN_WIDTH
    return {
        "zones_pgoff": zpgoff, "zones_mask": ((1 << zw) - 1) << zpgoff,
        "lru_gen_pgoff": gpgoff,
        "lru_gen_mask": ((1 << _LRU_GEN_WIDTH) - 1) << gpgoff,
    }


def _check_layout(prog, lv):
    """Check flags_layout against the folios first on lrugen's lists."""
    c = _cache(prog)
    if c.get("checked"):
        return
    lists = lv.lrugen.folios
    for g in range(MAX_NR_GENS):
        for t in range(2):
            for z in range(len(lists[g][t])):
                head = lists[g][t][z]
                first = head.next.value_()
                if first == head.address_of_().value_():
                    continue
                f = container_of(head.next, "struct folio", "lru")
                fl = f.flags.f.value_()
                got = ((fl & c["lru_gen_mask"]) >> c["lru_gen_pgoff"]) - 1
                if got == -1:
                    continue    # isolated just now
                if got != g:
                    raise UmkitError("folio 0x%x on generation list %d has "
                        "gen %d in its flags: LRU_GEN_PGOFF is not %d here"
                        % (f.value_(), g, got, c["lru_gen_pgoff"]))
                c["checked"] = True
    return


# ---- tasks ----------------------------------------------------------------

def tasks(prog):
    """The guest's processes (thread group leaders), init_task first."""
    init = prog["init_task"].address_of_()
    yield init
    for t in list_for_each_entry("struct task_struct",
            init.tasks.address_of_(), "tasks"):
        yield t


def task(prog, which):
    """A process by pid (int or digits) or by name (the newest)."""
    found = None
    if isinstance(which, int) or str(which).isdigit():
        pid = int(which)
        for t in tasks(prog):
            if t.pid.value_() == pid:
                return t
        raise UmkitError("no process %d in the guest" % pid)
    for t in tasks(prog):
        if t.comm.string_().decode(errors="replace") == which:
            if found is None or t.pid.value_() > found.pid.value_():
                found = t
    if found is None:
        raise UmkitError("no process named '%s' in the guest" % which)
    return found


# ---- memory cgroups and lruvecs ---------------------------------------------

def _kn_name(kn):
    """A kernfs node's name."""
    return kn.name.string_().decode(errors="replace")


def _css_memcg(css):
    """The mem_cgroup of a cgroup_subsys_state."""
    return container_of(css, "struct mem_cgroup", "css")


def memcg_path(mcg):
    """The cgroup path of a mem_cgroup ("/" for the root)."""
    parts = []
    kn = mcg.css.cgroup.kn
    while kn:
        parent = kn.__parent if hasattr(kn, "__parent") else kn.parent
        if not parent:
            break
        parts.append(_kn_name(kn))
        kn = parent
    return "/" + "/".join(reversed(parts))


def memcg_id(mcg):
    """The id lru_gen's debugfs file shows for a memcg (cgroup_id)."""
    return mcg.css.cgroup.kn.id.value_()


def memcg(prog, path="/"):
    """The mem_cgroup at cgroup path ("/", "/a/b"), from the root down."""
    m = prog["root_mem_cgroup"]
    for name in [p for p in path.split("/") if p]:
        for css in list_for_each_entry("struct cgroup_subsys_state",
                m.css.children.address_of_(), "sibling"):
            if _kn_name(css.cgroup.kn) == name:
                m = _css_memcg(css)
                break
        else:
            raise UmkitError("no memory cgroup %s (at %s)" % (path, name))
    return m


def task_memcg(prog, t):
    """The mem_cgroup a task is in."""
    # task_struct.cgroups may be typed by a unit that only declares
    # struct css_set (seen with the base+debug kernel: its members are
    # then unknown), so the pointer is cast to the complete type.
    cset = cast("struct css_set *", t.cgroups)
    css = cset.subsys[prog["memory_cgrp_id"]]
    return _css_memcg(css)


def lruvec(prog, path="/", node=0):
    """The lruvec of memcg path on node (UML has node 0 only)."""
    m = path if isinstance(path, Object) else memcg(prog, path)
    return m.nodeinfo[node].lruvec.address_of_()


def generations(lv):
    """The generations of lruvec lv, youngest first, as dicts: seq, gen
    (seq % MAX_NR_GENS), age (max_seq - seq), anon and file pages."""
    g = lv.lrugen
    max_seq = g.max_seq.value_()
    min_seq = [g.min_seq[t].value_() for t in range(2)]
    out = []
    for seq in range(max_seq, min(min_seq) - 1, -1):
        gen = seq % MAX_NR_GENS
        n = [0, 0]
        for t in range(2):
            if seq >= min_seq[t]:
                n[t] = sum(max(v.value_(), 0) for v in g.nr_pages[gen][t])
        out.append({"seq": seq, "gen": gen, "age": max_seq - seq,
            "anon": n[0], "file": n[1]})
    return out


def gen_folios(lv, seq, types=(0, 1), limit=1 << 20):
    """The folios on lruvec lv's list of generation seq (anon 0, file 1),
    oldest last.  The lists change while they are read: a folio that moves
    away ends the walk of its list early (FaultError is caught)."""
    gen = seq % MAX_NR_GENS
    lists = lv.lrugen.folios[gen]
    for t in types:
        for z in range(len(lists[t])):
            head = lists[t][z].address_of_()
            n = 0
            try:
                for f in list_for_each_entry("struct folio", head, "lru"):
                    yield f
                    n += 1
                    if n >= limit:
                        break
            except drgn.FaultError:
                continue


# ---- pages and folios: FLATMEM -------------------------------------------------

def pfn_to_page(prog, pfn):
    """struct page * of pfn: mem_map + pfn (UML: FLATMEM, ARCH_PFN_OFFSET
    0; a pfn is a physical address >> PAGE_SHIFT, physical 0 being
    uml_physmem)."""
    c = _cache(prog)
    if not 0 <= pfn < c["max_mapnr"]:
        raise UmkitError("pfn %d is outside memory (max_mapnr %d)"
            % (pfn, c["max_mapnr"]))
    return Object(prog, "struct page *", c["mem_map"] + pfn * c["page_size"])


def page_to_pfn(page):
    """The pfn of a struct page *."""
    c = _cache(page.prog_)
    return (page.value_() - c["mem_map"]) // c["page_size"]


def page_folio(page):
    """The folio a page belongs to (a tail page's compound_info is its
    head's address + 1: include/linux/page-flags.h)."""
    info = page.compound_info.value_()
    head = info - 1 if info & 1 else page.value_()
    return Object(page.prog_, "struct folio *", head)


def folio_gen(folio):
    """The generation index (seq % MAX_NR_GENS) in folio->flags, or -1
    when the folio is on no generation list (folio_lru_gen())."""
    c = _cache(folio.prog_)
    fl = folio.flags.f.value_()
    return ((fl & c["lru_gen_mask"]) >> c["lru_gen_pgoff"]) - 1


def folio_memcg(folio):
    """The mem_cgroup a folio is charged to (through its obj_cgroup), or
    the root's when it is not charged."""
    prog = folio.prog_
    c = _cache(prog)
    objcg = folio.memcg_data.value_() & ~c["objcg_mask"]
    if objcg == 0:
        return prog["root_mem_cgroup"]
    return Object(prog, "struct obj_cgroup *", objcg).memcg


def _seq_of(gen, typ, max_seq, min_seq):
    """The seq in [min_seq[typ], max_seq] whose gen is gen, or None."""
    for seq in range(max_seq, min_seq[typ] - 1, -1):
        if seq % MAX_NR_GENS == gen:
            return seq
    return None


def folio_seq(folio):
    """The generation (seq) a folio is in, or None."""
    gen = folio_gen(folio)
    if gen < 0:
        return None
    c = _cache(folio.prog_)
    g = folio_memcg(folio).nodeinfo[0].lruvec.lrugen
    typ = 0 if folio.flags.f.value_() >> c["PG_swapbacked"] & 1 else 1
    return _seq_of(gen, typ, g.max_seq.value_(),
        [g.min_seq[0].value_(), g.min_seq[1].value_()])


# ---- address spaces ---------------------------------------------------------

def vmas(mm):
    """The VMAs of an mm_struct, by address (a walk of mm->mm_mt, the
    maple tree: include/linux/maple_tree.h, lib/maple_tree.c)."""
    prog = mm.prog_
    root = mm.mm_mt.ma_root.value_()
    if root == 0:
        return
    if root & 3 != 2 or root <= 4096:   # one entry, not a node
        yield Object(prog, "struct vm_area_struct *", root)
        return
    node_t = prog.type("struct maple_node")
    out = []
    _mt_walk(prog, node_t, root, (1 << 64) - 1, out)
    for v in out:
        yield Object(prog, "struct vm_area_struct *", v)


def _mt_walk(prog, node_t, enode, nmax, out):
    """Append the entries under encoded maple node enode to out."""
    typ = (enode >> 3) & 0xf
    node = Object(prog, node_t, address=enode & ~0xff)
    if typ == 3:            # maple_arange_64
        piv, slots, n = node.ma64.pivot, node.ma64.slot, 10
    elif typ in (1, 2):     # maple_leaf_64, maple_range_64
        piv, slots, n = node.mr64.pivot, node.mr64.slot, 16
    else:
        raise UmkitError("maple node type %d: not a VMA tree" % typ)
    pivots = [piv[i].value_() for i in range(n - 1)]
    for i in range(n):
        if i < n - 1:
            if pivots[i] == 0 and i > 0:
                break
            last = pivots[i]
        else:
            last = nmax
        s = slots[i].value_()
        if s:
            if typ == 1:
                if s & 3 != 2 or s > 4096:
                    out.append(s)
            else:
                _mt_walk(prog, node_t, s, last, out)
        if last >= nmax:
            break


def _dentry_path(d):
    """A dentry's path from its file system's root."""
    parts = []
    while d and d.d_parent.value_() != d.value_():
        parts.append(d.d_name.name.string_().decode(errors="replace"))
        d = d.d_parent
    return "/" + "/".join(reversed(parts))


def _file_path(f):
    """The path of a struct file *, across mounts."""
    d = f.f_path.dentry
    mnt = container_of(f.f_path.mnt, "struct mount", "mnt")
    path = _dentry_path(d)
    for _ in range(32):
        parent = mnt.mnt_parent
        if parent.value_() == mnt.value_():
            break
        mp = _dentry_path(mnt.mnt_mountpoint)
        path = (mp.rstrip("/") + path) if path != "/" else mp
        mnt = parent
    return path


def vma_name(vma):
    """What a VMA maps: a file path, [heap], [stack] or [anon]."""
    if vma.vm_file:
        return _file_path(vma.vm_file)
    try:
        special = vma.prog_["special_mapping_vmops"].address_of_().value_()
    except LookupError:
        special = None
    if vma.vm_ops.value_() == special and vma.vm_private_data:
        return cast("struct vm_special_mapping *",
            vma.vm_private_data).name.string_().decode(errors="replace")
    mm = vma.vm_mm
    s, e = vma.vm_start.value_(), vma.vm_end.value_()
    if s <= mm.brk.value_() and e >= mm.start_brk.value_():
        return "[heap]"
    if s <= mm.start_stack.value_() < e:
        return "[stack]"
    return "[anon]"


def _perms(vma):
    """rwxp / rw-s of a VMA."""
    f = vma.vm_flags.value_()
    return ("r" if f & _VM_READ else "-") + ("w" if f & _VM_WRITE else "-") + \
        ("x" if f & _VM_EXEC else "-") + ("s" if f & _VM_SHARED else "p")


def ptes(prog, mm, start, end):
    """(address, pte value) for the page table entries of mm that exist
    in [start, end): UML's own 4-level tables, entries holding physical
    addresses (arch/um/include/asm/pgtable*.h)."""
    c = _cache(prog)
    base = c["physmem"]
    addr = start
    while addr < end:
        table = mm.pgd.value_()
        skip = 0
        for shift in _SHIFTS:
            e = prog.read_u64(table + ((addr >> shift) & 511) * 8)
            if not e & _PAGE_PRESENT:
                skip = shift
                break
            table = base + (e & _PAGE_MASK)
        if skip:
            addr = (addr >> skip) + 1 << skip
            continue
        i = (addr >> _PAGE_SHIFT) & 511
        n = min(_PTRS - i, (end - addr + _PAGE_SIZE - 1) >> _PAGE_SHIFT)
        vals = struct.unpack("<%dQ" % n, prog.read(table + i * 8, n * 8))
        for k, v in enumerate(vals):
            if v & ~_PAGE_NEEDSYNC:
                yield addr + k * _PAGE_SIZE, v
        addr += n * _PAGE_SIZE


# ---- owners (reverse map) -------------------------------------------------------

def folio_owners(prog, folio):
    """Who maps folio, as (owners, path): owners a list of (pid, comm,
    address), found through the reverse map (anon_vma or i_mmap) and
    checked in each page table; path the file of a page cache folio, or
    of the mapping VMA (an anonymous copy of a file's page), or None."""
    mapping = folio.mapping.value_()
    pfn = page_to_pfn(cast("struct page *", folio))
    index = folio.index.value_()
    owners, path = [], None
    if not mapping:
        return owners, path
    if mapping & _FOLIO_MAPPING_ANON:
        av = Object(prog, "struct anon_vma *", mapping & ~_FOLIO_MAPPING_FLAGS)
        vs = [a.vma for a in rbtree_inorder_for_each_entry(
            "struct anon_vma_chain", av.rb_root.rb_root.address_of_(), "rb")]
    else:
        m = Object(prog, "struct address_space *", mapping)
        vs = list(rbtree_inorder_for_each_entry("struct vm_area_struct",
            m.i_mmap.rb_root.address_of_(), "shared.rb"))
        host = m.host
        for d in _hlist(host.i_dentry, "struct dentry", "d_u.d_alias"):
            path = _dentry_path(d)
            break
    for v in vs:
        addr = v.vm_start.value_() + (index - v.vm_pgoff.value_() << _PAGE_SHIFT)
        if not v.vm_start.value_() <= addr < v.vm_end.value_():
            continue
        for a, pte in ptes(prog, v.vm_mm, addr, addr + _PAGE_SIZE):
            if pte & (_PAGE_PRESENT | _PAGE_PROTNONE) and pte >> _PAGE_SHIFT == pfn:
                o = v.vm_mm.owner
                owners.append((o.pid.value_(), o.comm.string_().decode(
                    errors="replace"), a))
        if v.vm_file and path is None:
            path = _file_path(v.vm_file)
    return owners, path


def _hlist(head, type_, member):
    """The entries of an hlist_head."""
    n = head.first
    while n:
        yield container_of(n, type_, member)
        n = n.next


# ---- a process's pages by generation ---------------------------------------------

def process_gens(prog, which):
    """Which generation each present page of a process is in: a dict with
    the task, its memcg, the lruvecs' seqs and, per (memcg, seq), pages
    and pages per VMA; pages not on a generation list and swap entries
    are counted apart.  Read from the process's page tables and each
    page's folio->flags (the gen in LRU_GEN_MASK, folio_lru_gen())."""
    c = _cache(prog)
    t = task(prog, which)
    mm = t.mm
    if not mm:
        raise UmkitError("process %d (%s) is a kernel thread: no pages"
            % (t.pid.value_(), t.comm.string_().decode()))
    own = task_memcg(prog, t)
    _check_layout(prog, lruvec(prog, own))
    seqs = {}       # memcg address -> (path, max_seq, [min anon, min file])

    def lru_of(mcg_addr):
        if mcg_addr not in seqs:
            m = Object(prog, "struct mem_cgroup *", mcg_addr)
            g = m.nodeinfo[0].lruvec.lrugen
            seqs[mcg_addr] = (memcg_path(m), g.max_seq.value_(),
                [g.min_seq[0].value_(), g.min_seq[1].value_()])
        return seqs[mcg_addr]

    root_mcg = prog["root_mem_cgroup"].value_()
    objcg_memcg = {}
    lru_of(own.value_())
    gens = {}       # (memcg, seq) -> {"pages": n, "vmas": {vma: n}}
    none = swap = total = 0
    none_vmas = {}
    vlist = []
    ps, ioff, moff = c["page_size"], c["off_info"], c["off_mcg"]
    gmask, gshift = c["lru_gen_mask"], c["lru_gen_pgoff"]
    for v in vmas(mm):
        key = (v.vm_start.value_(), v.vm_end.value_(), _perms(v), vma_name(v))
        vlist.append(key)
        for addr, pte in ptes(prog, mm, key[0], key[1]):
            if not pte & (_PAGE_PRESENT | _PAGE_PROTNONE):
                swap += 1
                continue
            pfn = pte >> _PAGE_SHIFT
            if pfn >= c["max_mapnr"]:
                continue
            total += 1
            page = c["mem_map"] + pfn * ps
            info = prog.read_u64(page + ioff)
            head = info - 1 if info & 1 else page
            fl = prog.read_u64(head)
            gen = ((fl & gmask) >> gshift) - 1
            if gen < 0:
                none += 1
                none_vmas[key] = none_vmas.get(key, 0) + 1
                continue
            objcg = prog.read_u64(head + moff) & ~c["objcg_mask"]
            if objcg == 0:
                mcg = root_mcg
            else:
                if objcg not in objcg_memcg:
                    objcg_memcg[objcg] = prog.read_u64(
                        objcg + c["off_objcg_memcg"])
                mcg = objcg_memcg[objcg]
            path, max_seq, min_seq = lru_of(mcg)
            typ = 0 if fl >> c["PG_swapbacked"] & 1 else 1
            seq = _seq_of(gen, typ, max_seq, min_seq)
            k = (mcg, seq)
            e = gens.setdefault(k, {"pages": 0, "vmas": {}})
            e["pages"] += 1
            e["vmas"][key] = e["vmas"].get(key, 0) + 1
    return {"pid": t.pid.value_(), "comm": t.comm.string_().decode(
        errors="replace"), "memcg": own.value_(), "lru": seqs,
        "gens": gens, "none": none, "none_vmas": none_vmas, "swap": swap,
        "pages": total, "vmas": vlist}


def _vma_line(key, n):
    """One VMA's short line."""
    s, e, perms, name = key
    return "    %012x-%012x %s %6d  %s" % (s, e, perms, n, name)


def format_gens(r, guest=""):
    """The text of process_gens: per generation its pages and a line per
    VMA, then one result line "gens: KEY=VALUE ..." (docs/drgn.md)."""
    lines = []
    own = r["memcg"]
    path, max_seq, min_seq = r["lru"][own]
    lines.append("%spid %d (%s), memcg %s: max_seq %d, min_seq anon %d "
        "file %d; %d pages mapped" % (guest and "guest %s: " % guest,
        r["pid"], r["comm"], path, max_seq, min_seq[0], min_seq[1],
        r["pages"]))
    ages = [0] * MAX_NR_GENS

    def order(k):
        m, seq = k
        return (m != own, -(seq if seq is not None else -1))
    for k in sorted(r["gens"], key=order):
        m, seq = k
        mpath, mmax, mmin = r["lru"][m]
        e = r["gens"][k]
        if seq is None:
            lines.append("generation ? (moved while read): %d pages"
                % e["pages"])
            continue
        age = mmax - seq
        if m == own and 0 <= age < MAX_NR_GENS:
            ages[age] += e["pages"]
        what = "youngest" if age == 0 else \
            "oldest" if seq == min(mmin) else ""
        lines.append("generation %d (age %d%s%s): %d pages" % (seq, age,
            what and ", " + what, "" if m == own else ", memcg " + mpath,
            e["pages"]))
        for key in r["vmas"]:
            if key in e["vmas"]:
                lines.append(_vma_line(key, e["vmas"][key]))
    if r["none"]:
        lines.append("on no generation list (unevictable, isolated, the "
            "zero page): %d pages" % r["none"])
        for key in r["vmas"]:
            if key in r["none_vmas"]:
                lines.append(_vma_line(key, r["none_vmas"][key]))
    if r["swap"]:
        lines.append("swapped out (or migrating): %d pages" % r["swap"])
    other = sum(e["pages"] for (m, _), e in r["gens"].items() if m != own)
    lines.append("gens: pid=%d max_seq=%d %s other=%d none=%d swap=%d "
        "pages=%d" % (r["pid"], max_seq, " ".join("age%d=%d" % (i, n)
        for i, n in enumerate(ages)), other, r["none"], r["swap"],
        r["pages"]))
    return "\n".join(lines)


# ---- the command ------------------------------------------------------------

def _globals(prog):
    """The names a script or the prompt gets: prog, drgn's and ours."""
    import importlib
    g = {"prog": prog, "drgn": drgn, "__name__": "__main__"}
    for mod in ("drgn", "drgn.helpers.common", "drgn.helpers.linux"):
        m = importlib.import_module(mod)
        for name in getattr(m, "__all__", []):
            g[name] = getattr(m, name)
    me = sys.modules[__name__]
    g["umkit"] = me
    for name in __all__:
        g[name] = getattr(me, name)
    return g


def _display(value):
    """The prompt's display: drgn objects and types as C, others repr."""
    import builtins
    if value is None:
        return
    builtins._ = None
    if isinstance(value, (drgn.Object, drgn.Type)):
        print(str(value))
    else:
        print(repr(value))
    builtins._ = value


def _interact(prog, banner):
    """drgn's kind of prompt, with prog set."""
    import code
    g = _globals(prog)
    sys.displayhook = _display
    try:
        import readline
        import rlcompleter
        readline.set_completer(rlcompleter.Completer(g).complete)
        readline.parse_and_bind("tab: complete")
    except ImportError:
        pass
    code.interact(banner=banner, exitmsg="", local=g)


def _usage():
    """The internal interface's usage (umkit drgn passes these)."""
    sys.stderr.write("usage: umkit_drgn.py --pid PID --vmlinux FILE "
        "[--name NAME] [-e EXPR | --gens PID|COMM | SCRIPT [ARGS...]]\n")
    return 125


def main(argv):
    """Attach to the guest and run what argv asks; the exit status."""
    pid, vmlinux, name, expr, gens, rest = None, None, "", None, None, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--pid", "--vmlinux", "--name", "-e", "--gens"):
            if i + 1 >= len(argv):
                return _usage()
            v = argv[i + 1]
            if a == "--pid":
                pid = int(v)
            elif a == "--vmlinux":
                vmlinux = v
            elif a == "--name":
                name = v
            elif a == "-e":
                expr = v
            else:
                gens = v
            i += 2
        elif a == "--":
            rest = argv[i + 1:]
            break
        else:
            rest = argv[i:]
            break
    if pid is None or vmlinux is None:
        return _usage()
    if drgn is None:
        sys.stderr.write("umkit: drgn: python3 %s has no drgn module: "
            "install Debian's python3-drgn (uml/install/deps.sh)\n"
            % sys.executable)
        return 125
    guest = name or "pid %d" % pid
    try:
        run = build_id("/proc/%d/exe" % pid)
        have = build_id(vmlinux)
    except OSError as e:
        sys.stderr.write("umkit: drgn: %s: %s\n" % (e.filename, e.strerror))
        return 125
    if run is not None and have is not None and run != have:
        sys.stderr.write("umkit: drgn: guest %s runs another build than %s "
            "(build id %s, the file's %s): the kernel was rebuilt after it "
            "booted; restart the guest\n" % (guest, vmlinux, run[:12],
            have[:12]))
        return 125
    t0 = time.monotonic()
    try:
        prog = attach(pid, vmlinux)
    except (drgn.MissingDebugInfoError, OSError, ValueError) as e:
        sys.stderr.write("umkit: drgn: guest %s: %s\n" % (guest, e))
        return 125
    if os.environ.get("UMKIT_DRGN_TIMING"):
        sys.stderr.write("umkit: drgn: attached in %.3f s\n"
            % (time.monotonic() - t0))
    try:
        if gens is not None:
            print(format_gens(process_gens(prog, gens), name))
        elif expr is not None:
            g = _globals(prog)
            try:
                code_ = compile(expr, "<-e>", "eval")
            except SyntaxError:
                exec(compile(expr, "<-e>", "exec"), g)
            else:
                v = eval(code_, g)
                if v is not None:
                    print(v)
        elif rest:
            import runpy
            sys.argv = rest
            runpy.run_path(rest[0], init_globals=_globals(prog),
                run_name="__main__")
        else:
            _interact(prog, "umkit drgn: guest %s (UML pid %d, %s); the "
                "guest runs on.\n>>> prog['init_task'].comm\n%s\n"
                "prog, drgn's helpers and umkit_drgn's (help(umkit)) are "
                "here; Ctrl-D leaves." % (guest, pid, vmlinux,
                prog["init_task"].comm))
    except UmkitError as e:
        sys.stderr.write("umkit: drgn: %s\n" % e)
        return 1
    except drgn.FaultError as e:
        sys.stderr.write("umkit: drgn: a read failed (the guest changed "
            "under it?): %s\n" % e)
        return 1
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.path[0:0] = [os.path.dirname(os.path.abspath(__file__))]
    import umkit_drgn
    sys.exit(umkit_drgn.main(sys.argv[1:]))
