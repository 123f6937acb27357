/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * supervisor.h - the daemon that owns a named guest for its whole life.
 *
 * supervisor_start() forks it.  It boots UML, waits for the agent, mounts
 * the mirror at run/NAME/mnt and serves run/NAME/ctl.sock: the server side
 * of the control protocol whose client is ctl.c (the requests are listed
 * in ctl.h).  On a "stop" request, SIGTERM, SIGINT or SIGHUP it kills the
 * guest, unmounts the mirror and removes run/NAME.  When the guest dies
 * by itself the supervisor stays, so the mirror keeps answering EIO,
 * until it is stopped.  Its messages go to run/log/NAME.host.log once the
 * guest is up; until then to the caller's stderr.
 */
#ifndef UMKIT_SUPERVISOR_H
#define UMKIT_SUPERVISOR_H

struct guest_opts;

/*
 * Start the supervisor of guest name booted with o, after resolving (and
 * building) its kernel and the host preflight (preflight.h; these exit on
 * failure), and wait until the guest is up with its mirror mounted and
 * its control socket listening.  Returns 0 then, with "guest NAME
 * started ..." on stdout unless quiet; or EXIT_KIT after the
 * supervisor's error lines were printed on stderr and everything it had
 * made was removed.  With o->tied the supervisor stops the guest when
 * the caller dies (a lab runner).
 */
int	supervisor_start(const char *name, struct guest_opts *o, int quiet);

#endif
