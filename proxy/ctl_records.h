/* SPDX-License-Identifier: ISC */
/*
 * Decision records as egressctl reads them back (the JSON lines of
 * docs/logging.md, from a --log-json file or the control socket), and the
 * aggregation of denials and would-be denials by binary, host, port and
 * reason. Writing records is the daemon's audit module's business.
 */
#ifndef EGRESSD_CTL_RECORDS_H
#define EGRESSD_CTL_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reason.h"

struct strbuf;

#define CTL_RECORDS_SAMPLES 3    /* distinct command lines per group */
#define CTL_RECORDS_IPS     8    /* distinct dialed addresses per group */
#define CTL_RECORDS_STR_MAX 8192 /* longest string field kept */

enum ctl_decision {
	CTL_DEC_ALLOWED,
	CTL_DEC_DENIED,
	CTL_DEC_WOULD_DENY,
	CTL_DEC_CLOSED,
};

/* One record's fields (strings owned, NULL when absent). */
struct ctl_record {
	int64_t time_ms;
	int64_t class_uid, activity_id;
	enum ctl_decision decision;
	char *reason;    /* the code as written */
	enum reason why; /* REASON__COUNT when this egressd does not know it */
	char *mode;      /* "enforce" / "audit" */
	bool overridden;
	char *exe, *cmdline, *invoked_as;
	int64_t pid;
	char *host, *dst_ip;
	int64_t port;
	char *src_ip;
	char *ingress, *policy, *endpoint, *reason_text, *hint, *detail;
	char *method, *path; /* HTTP request records */
	int64_t bytes_out, bytes_in, duration_ms;
};

enum ctl_record_err {
	CTL_RECORD_OK,
	CTL_RECORD_NOT_JSON,   /* the line is not one JSON object */
	CTL_RECORD_NOT_RECORD, /* JSON, but no egressd decision record */
};

/*
 * Parses one JSON line into r (which the caller frees with
 * ctl_record_free, whatever the result). A record needs an "egressd" object
 * with a known "decision" and a "reason"; every other field is optional.
 */
enum ctl_record_err ctl_record_parse(
    const char *line, size_t len, struct ctl_record *r);
void ctl_record_free(struct ctl_record *r);
const char *ctl_decision_name(enum ctl_decision d);

/* One (binary, host, port, reason) group. */
struct ctl_denial {
	char *binary; /* NULL: the caller was not identified */
	char *host;   /* NULL: no destination name */
	int64_t port;
	char *reason;
	enum reason why;
	size_t count, denied, would_deny;
	int64_t first_ms, last_ms;
	char *samples[CTL_RECORDS_SAMPLES]; /* most recent first */
	size_t nsamples;
	char *hint;                 /* of the most recent record that had one */
	char *ips[CTL_RECORDS_IPS]; /* dst_endpoint.ip values */
	size_t nips;
	bool raw; /* seen as raw TCP (transparent, neither TLS nor HTTP) */
	size_t hash_next; /* internal */
};

struct ctl_denials {
	struct ctl_denial *v;
	size_t n, cap;
	size_t *buckets; /* internal: hash index */
	size_t nbuckets;
	/* reading statistics */
	size_t lines;   /* non-empty lines seen */
	size_t bad;     /* lines that are not decision records */
	size_t too_old; /* denials before --since */
	size_t other;   /* allowed and close records */
};

void ctl_denials_init(struct ctl_denials *dn);
void ctl_denials_free(struct ctl_denials *dn);

/* Counts r into its group when it is a denial or would-be denial made at or
 * after since_ms (0: any time). */
void ctl_denials_add(
    struct ctl_denials *dn, const struct ctl_record *r, int64_t since_ms);
/* Parses one line and adds it, updating the statistics. */
void ctl_denials_add_line(
    struct ctl_denials *dn, const char *line, size_t len, int64_t since_ms);
/* Reads a JSON lines file; false with err when it cannot be read. */
bool ctl_denials_read_file(struct ctl_denials *dn, const char *path,
    int64_t since_ms, char *err, size_t errlen);
/* Asks egressd at path for `records SECONDS`; false with err on failure. */
bool ctl_denials_read_control(struct ctl_denials *dn, const char *path,
    uint64_t since_s, int64_t since_ms, char *err, size_t errlen);

/* Sorts by count (descending), then binary, host, port and reason. */
void ctl_denials_sort(struct ctl_denials *dn);

/* The `egressctl denials` outputs. */
void ctl_denials_format_text(const struct ctl_denials *dn, struct strbuf *out);
void ctl_denials_format_json(const struct ctl_denials *dn, struct strbuf *out);

/* Where denials come from: a log file, else the control socket. */
struct ctl_records_source {
	const char *log;     /* --log FILE ("-" for stdin), or NULL */
	const char *control; /* --control PATH, or NULL for the default */
	const char *since;   /* --since DUR, or NULL for everything */
};

/* True (and a message on stderr) when both --log and --control were
 * given to "egressctl cmd". */
bool ctl_records_source_conflict(
    const struct ctl_records_source *src, const char *cmd);
/* Reads the source into dn; prints what went wrong (and a warning about
 * skipped lines) on stderr. Returns 0, or 2 when the source failed. cmd
 * names the subcommand in messages. */
int ctl_denials_load(struct ctl_denials *dn,
    const struct ctl_records_source *src, const char *cmd);
/* "FILE" or "egressd at PATH", plus ", last DUR". */
void ctl_records_source_text(
    const struct ctl_records_source *src, struct strbuf *out);

/* `egressctl denials ARGS`: returns the exit status. */
int ctl_records_denials_main(int argc, char **argv);

#endif
