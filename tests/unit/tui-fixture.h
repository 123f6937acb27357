/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tui-fixture.h - the values the parser tests expect from the fixture root
 * tests/fixtures/guest (see tests/fixtures/README for how it was made).
 * Re-capturing the fixtures means updating these numbers, read off the
 * files by hand.
 */
#ifndef UMKIT_TUI_FIXTURE_H
#define UMKIT_TUI_FIXTURE_H

#define FX_NCPUS		2

/* proc/vmstat */
#define FX_MIGRATE_SCANNED	10240
#define FX_FREE_SCANNED		15944

/* proc/meminfo, proc/pressure/memory */
#define FX_MEMTOTAL		250948
#define FX_MEMFREE		108376
#define FX_ACTIVE_ANON		13944
#define FX_PSI_SOME_TOTAL	0

/* sys/kernel/debug/lru_gen(_full) */
#define FX_LG_MEMCGS		1
#define FX_LG_MEMCG0_ID		1
#define FX_LG_MEMCG0_PATH	"/"
#define FX_LG_NGENS		4
#define FX_LG_MIN_SEQ		2
#define FX_LG_MAX_SEQ		5
#define FX_LG_ROW		2	/* a row checked field by field */
#define FX_LG_ROW_ANON		3487
#define FX_LG_ROW_FILE		0
#define FX_LG_ROW_AGE		150
#define FX_LGF_OLD_MARK		'r'	/* oldest gen, tier 1, file: "rep" */

/* proc/zoneinfo */
#define FX_ZI_NZONES		2
#define FX_ZI_POP		0	/* index of the populated zone */
#define FX_ZI_POP_NAME		"Normal"
#define FX_ZI_START		0
#define FX_ZI_SPANNED		65536
#define FX_ZI_PRESENT		65536
#define FX_ZI_MANAGED		62737
#define FX_ZI_FREE		27094
#define FX_ZI_MIN		498
#define FX_ZI_THRESHOLD		8

/* proc/buddyinfo, proc/pagetypeinfo, extfrag_index */
#define FX_BI_ORDER0		31
#define FX_BI_ORDER10		24
#define FX_PB_ORDER		10
#define FX_PT_NTYPES		4
#define FX_PT_MOVABLE_O0	31
#define FX_PT_BLOCKS_UNMOV	4
#define FX_PT_BLOCKS_MOV	59
#define FX_EF_ORDER0		-1000
#define FX_EF_ORDER10		-1000

/* sys/kernel/tracing/trace */
#define FX_TR_BEGINS		1
#define FX_TR_OTHER		21	/* kcompactd_sleep, finished */
#define FX_TR_ZONE_START	0x0
#define FX_TR_ZONE_END		0x10000
#define FX_TR_LAST_STATUS	"complete"

/* proc/kpageflags (a prefix) */
#define FX_KPF_FIRST_PFN	0
#define FX_KPF_FREE		1966
#define FX_KPF_MOVABLE		7565
#define FX_KPF_UNMOVABLE	6853
#define FX_KPF_HOLE		0

/* proc/1/status, statm */
#define FX_PID1_NAME		"init"
#define FX_PID1_ANON		56
#define FX_PID1_FILE		1732

#endif
