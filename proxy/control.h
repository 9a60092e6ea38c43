/* SPDX-License-Identifier: ISC */
/*
 * The control socket egressctl talks to (docs/control.md): status, reload,
 * recent denial records, a live tail, and explain against the running
 * policy. A root-only Unix socket in egressd's own file system, never inside
 * a sandbox.
 */
#ifndef EGRESSD_CONTROL_H
#define EGRESSD_CONTROL_H

#include <stddef.h>

struct daemon;
struct control;
struct audit_record;

#define CONTROL_DEFAULT_PATH "/run/egressd/control.sock"
#define CONTROL_RECORDS_MAX  4096

struct control *control_new(
    struct daemon *d, const char *path, char *err, size_t errlen);
void control_free(struct control *c);

/* Every decision record (from the audit tap): kept when it is a denial,
 * streamed to tail clients. */
void control_record(
    struct control *c, const struct audit_record *r, const char *json);

#endif
