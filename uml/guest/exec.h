/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exec.h - one command in a guest ('umkit exec'): a fresh one-shot guest,
 * booted, used and killed, or a named running one (its supervisor runs
 * the command).  A panic, oops or warning on the console is printed,
 * decoded when the kernel has debug info (oops.h).
 */
#ifndef UMKIT_EXEC_H
#define UMKIT_EXEC_H

struct guest_opts;

/*
 * Boot a guest with o, wait for its agent, run argv (stdin from in_fd,
 * or /dev/null when it is -1), kill the guest, remove its run directory.
 * With gdb, gdb attaches before the kernel's first instruction (gdb_batch:
 * its commands, or NULL for a prompt).  With timings_us > 0 (when the
 * command started, now_us()), where the time went is printed on stderr
 * once the command has run: stages from timings_us to the end (umkit
 * exec --timings).  The command's status, or EXIT_PANIC, EXIT_TIMEOUT,
 * EXIT_KIT, 128+N.
 */
int	exec_fresh(struct guest_opts *o, int timeout_s, int in_fd, char **argv,
	    int gdb, const char *gdb_batch, long long timings_us);
/* exec_fresh without stdin, gdb or our stdio: the command's stdout and
 * stderr both into out_fd (a file the caller reads afterwards). */
int	exec_fresh_to(struct guest_opts *o, int timeout_s, char **argv, int out_fd);
/* Run argv in the running guest name; its status, EXIT_PANIC or EXIT_KIT. */
int	exec_named(const char *name, int timeout_s, int in_fd, char **argv);

#endif
