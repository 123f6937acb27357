/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hello.c - umkit-hello, the tiny static program procbench's exec and
 * shell cases start (lmbench's lat_proc runs its own "hello" the same
 * way).  No C library: the exec measures the kernel's process set-up and
 * tear-down, not libc's start-up.  It exits 0 at once.
 */
void	_start(void) __attribute__((noreturn));

/* The entry point: exit(0). */
__attribute__((naked, noreturn)) void
_start(void)
{
	__asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
}
