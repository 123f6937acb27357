/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gdb.h - gdb on a guest's UML kernel.  A UML kernel is an ordinary host
 * process: gdb attaches to it with ptrace, no gdbstub needed.
 *
 * What this layer knows:
 *   - which files belong to the kernel a guest runs: the binary (its
 *     symbols), the build directory (vmlinux-gdb.py, .config) and the
 *     source tree (for scripts/decode_stacktrace.sh), and whether the
 *     kernel has DWARF (the VARIANT+debug kernels, uml/kernel/debug.config);
 *   - umkit's gdb set-up: the host signals UML uses internally pass
 *     through silently, the kernel's own gdb helpers are loaded;
 *   - how to run gdb on a live UML process and what to do afterwards
 *     (a process gdb left stopped is continued).
 *
 * Which thread to attach to: the UML kernel's main process (run/NAME/
 * uml.pid; in the sandbox a child of bwrap's init, in another pid
 * namespace, which gdb warns about and handles).  Its CPUs are threads of that
 * process and gdb stops and resumes all of them together; the guest's
 * user processes are separate host processes (seccomp stubs) gdb does
 * not trace.  docs/debugging.md has the details and the figures.
 */
#ifndef UMKIT_GDB_H
#define UMKIT_GDB_H

#include <sys/types.h>

struct gdb_kernel {
	char	*binary;	/* the kernel binary that runs (symbols) */
	char	*symbols;	/* the file gdb loads: obj/vmlinux (the same
				   file, the name lx-symbols looks for) */
	char	*obj;		/* its build directory, NULL if unknown */
	char	*src;		/* its source tree, NULL if unknown */
	char	*gdbpy;		/* obj/vmlinux-gdb.py, NULL without GDB_SCRIPTS
				   or when the tree is not trusted */
	int	 debuginfo;	/* built with CONFIG_DEBUG_INFO */
	/*
	 * The tree is one of the kit's own variants (build/k/VARIANT with a
	 * series in the kit's patches): its scripts may run here.  Any other
	 * tree (a smoke tree, an exercise) is a patch's: its gdb helpers
	 * are not loaded and its decode script runs in the sandbox.
	 */
	int	 trusted;
};

/*
 * The files of kernel binary path (build/k/VARIANT/linux, or any binary
 * beside an obj/ and src/ directory).  0, or -1 when path is unreadable.
 */
int	 gdb_kernel_find(const char *path, struct gdb_kernel *);
/* The same for a variant name (build/k/VARIANT/linux). */
int	 gdb_kernel_variant(const char *variant, struct gdb_kernel *);
void	 gdb_kernel_free(struct gdb_kernel *);

/* The one-line hint for a kernel without debug info (static text). */
const char *gdb_nodebug_hint(void);

/*
 * Write umkit's gdb set-up for kernel k to path: no pager, no questions,
 * UML's signals passed through silently, the kernel's helpers sourced
 * (when the kernel has them).  from_exec: the process is stopped just
 * before it execs the kernel (exec --gdb): catch that exec first, so
 * gdb stops at the kernel binary's first instruction.  0 or -1 (errno).
 */
int	 gdb_write_setup(const char *path, const struct gdb_kernel *k,
	    int from_exec);

/*
 * Run gdb on the UML process pid (attach), with the set-up file and, when
 * batch is not NULL, the commands of that file in batch mode (-batch -x).
 * extra: more gdb arguments (NULL-terminated) or NULL.  Waits for gdb;
 * SIGINT and SIGQUIT are gdb's while it runs.  Afterwards a UML process
 * that gdb left stopped (gdb killed while the kernel was stopped) is
 * continued.  Returns gdb's exit status (128+N for a signal), or -1 when
 * gdb could not be started.
 */
int	 gdb_run(pid_t pid, const struct gdb_kernel *k, const char *setup,
	    const char *batch, char *const extra[], int from_exec);

/*
 * The parts of gdb_run: start gdb (batch mode when batch is set) with
 * its stdout and stderr on out_fd (-1: ours, and our stdin), and wait
 * for it (what gdb_run does afterwards included).
 */
pid_t	 gdb_spawn(pid_t pid, const struct gdb_kernel *k, const char *setup,
	    const char *batch, char *const extra[], int from_exec, int out_fd);
int	 gdb_wait(pid_t child, pid_t pid);

/*
 * Continue the UML process pid and its threads if they are stopped
 * (group stop) and no tracer holds them; 1 if it had to, 0 if not.
 */
int	 gdb_resume_stopped(pid_t pid);

/*
 * Stop the UML process pid for the gdb attached to it (Ctrl-C): gdb's
 * own interrupt is a SIGINT, which UML's threads keep blocked; this
 * sends SIGUSR2, on which umkit's set-up makes gdb stop.
 */
void	 gdb_interrupt(pid_t pid);

/* 1 if pid is being traced (a debugger is attached), else 0. */
int	 gdb_traced(pid_t pid);

#endif
