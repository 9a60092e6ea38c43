/* SPDX-License-Identifier: ISC */
/*
 * Caller identity: for a TCP connection accepted from the sandbox, which
 * processes hold the client's socket and which binary they run (DESIGN.md §4,
 * SECURITY-CASES.md invariant 7). Owns the sock_diag socket, the cache of
 * sandbox processes and the /proc reading; leaves every decision (allow,
 * deny, hints, hashing of executables) to the policy and the session.
 */
#ifndef EGRESSD_IDENTITY_H
#define EGRESSD_IDENTITY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/*
 * Every lookup result. The names returned by identity_err_code() are stable
 * (they go into decision records); every error but INVALID means "deny" to
 * the caller (invariant 1: unknown, ambiguous or unreadable owner).
 */
enum identity_err {
	IDENTITY_OK = 0,
	IDENTITY_ERR_INVALID,   /* bad arguments (address families, pid) */
	IDENTITY_ERR_NETLINK,   /* sock_diag request failed */
	IDENTITY_ERR_NO_SOCKET, /* no such TCP socket in the sandbox netns */
	IDENTITY_ERR_NO_OWNER,  /* socket (or pid) found, no process holds it */
	IDENTITY_ERR_UNREADABLE, /* a possible owner's /proc entry is unreadable */
	IDENTITY_ERR_PID_REUSED, /* a process exited, exec'd or let go mid-way */
	IDENTITY_ERR_AMBIGUOUS,  /* holders run different executables */
	IDENTITY_ERR_PROC,       /* unexpected /proc failure (format, EMFILE) */
	IDENTITY_ERR__COUNT
};

#define IDENTITY_CMDLINE_MAX      1024 /* escaped cmdline, NUL included */
#define IDENTITY_ANCESTORS_MAX    8
#define IDENTITY_ANCESTOR_BUF_LEN 2048 /* packed ancestor exe paths */
#define IDENTITY_HOLDERS_MAX      4    /* distinct executables listed */
#define IDENTITY_HOLDER_BUF_LEN   2048 /* packed holder exe paths */

/*
 * What stat(2) says about the running executable through /proc/PID/exe,
 * which reaches the file even when it was deleted or replaced: the key under
 * which the daemon may cache a SHA-256 of the binary.
 */
struct identity_file {
	uint64_t dev;
	uint64_t ino;
	int64_t size;
	struct timespec mtime;
	struct timespec ctime;
	uint32_t nlink; /* 0: deleted */
};

/* An ancestor: exe is packed in identity.ancestor_buf at exe_off. */
struct identity_ancestor {
	pid_t pid;
	uint16_t exe_off;
	bool deleted;
	bool unreadable; /* exe could not be read: exe is "" */
};

/* One distinct executable among the socket's holders. */
struct identity_holder {
	pid_t pid;      /* lowest pid running it */
	unsigned count; /* holders running it */
	uint16_t exe_off;
	bool deleted;
};

/*
 * The answer, in a caller-provided struct (about 13 KiB; nothing is
 * allocated per lookup). Strings are NUL-terminated and capped. exe is the
 * only field a policy may grant on; cmdline and invoked_as come from argv,
 * which the caller controls: logs and hints only.
 */
struct identity {
	pid_t pid;  /* the reporting holder (most recently seen, else lowest) */
	pid_t ppid; /* egressd's pid namespace */
	uid_t uid, euid;
	gid_t gid, egid;
	uint64_t start_time; /* /proc/PID/stat field 22, clock ticks */
	uint64_t sock_ino;   /* 0 from identity_from_pid() */
	uid_t sock_uid;      /* socket owner per sock_diag; -1 from _from_pid */
	unsigned nholders;   /* processes holding the socket, all of them */
	bool deleted;        /* exe's path no longer names the running file */
	bool argv0_mismatch; /* argv[0] is a path to some other file */
	bool cmdline_truncated;
	bool ancestors_truncated; /* more ancestors than listed */
	bool holders_truncated;   /* more distinct exes than listed */
	struct identity_file exe_file;
	char exe[PATH_MAX];        /* kernel-resolved, " (deleted)" stripped */
	char invoked_as[PATH_MAX]; /* argv[0] naming exe another way, or "" */
	char cmdline[IDENTITY_CMDLINE_MAX]; /* NUL -> ' ', others \xHH, \\ */
	unsigned nancestors;                /* parent first */
	struct identity_ancestor ancestors[IDENTITY_ANCESTORS_MAX];
	char ancestor_buf[IDENTITY_ANCESTOR_BUF_LEN];
	unsigned nlisted; /* distinct executables listed in holders[] */
	struct identity_holder holders[IDENTITY_HOLDERS_MAX];
	char holder_buf[IDENTITY_HOLDER_BUF_LEN];
	pid_t err_pid; /* process an UNREADABLE/PID_REUSED error is about */
	int err_errno; /* errno behind NETLINK, UNREADABLE, PROC; else 0 */
};

static inline const char *
identity_ancestor_exe(const struct identity *id, unsigned i)
{
	return i < id->nancestors ?
	    id->ancestor_buf + id->ancestors[i].exe_off :
	    NULL;
}

static inline const char *
identity_holder_exe(const struct identity *id, unsigned i)
{
	return i < id->nlisted ? id->holder_buf + id->holders[i].exe_off : NULL;
}

/* Counters for the metrics endpoint; all monotonic except candidates. */
struct identity_stats {
	uint64_t lookups; /* identity_lookup + identity_from_* calls */
	uint64_t ok;
	uint64_t errors[IDENTITY_ERR__COUNT];
	uint64_t fast_hits;      /* owner found among cached candidates */
	uint64_t mru_hits;       /* ... and it was a recent caller */
	uint64_t refreshes;      /* incremental refreshes that listed pids */
	uint64_t refresh_pids;   /* new pids classified by them */
	uint64_t full_refreshes; /* complete /proc listings (start, wrap) */
	uint64_t full_scans;     /* whole-host fd scans (last resort) */
	uint64_t full_scans_skipped; /* ... refused by the rate limit */
	uint64_t holders_vanished;   /* secondary holders gone mid-lookup */
	uint64_t unclassified;       /* new pids whose netns we may not read */
	uint64_t candidates;         /* gauge: processes in the cache */
	/* 1: refreshes seek to the new pids in /proc; 0: they list all of it
	 * (the kernel changed its readdir positions?). */
	uint64_t proc_seek;
	uint64_t lookup_ns_total; /* time spent in identity_lookup */
	uint64_t lookup_ns_max;
};

struct identity_ctx;
struct sockaddr;

/*
 * Creates a context watching one sandbox. netns_fd is an open fd of the
 * sandbox's network namespace (/run/netns/NAME, /proc/PID/ns/net) or -1 for
 * egressd's own; the sock_diag socket is created inside it (setns there and
 * back) and the candidate cache holds the processes in it. Needs root
 * (CAP_SYS_ADMIN for setns, CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH for
 * /proc), and /proc must be that of egressd's pid namespace. Classifies
 * every host process once (90-180 ms at 5,000 processes). On failure
 * returns NULL with a message in err; if even the return to the original
 * namespace failed, the message says so and the caller must exit. The
 * context is not thread-safe: one per worker.
 */
struct identity_ctx *identity_new(int netns_fd, char *err, size_t errlen);
/* Closes everything; NULL is a no-op. */
void identity_free(struct identity_ctx *ctx);

/*
 * Who holds the client socket of a connection egressd accepted. client is
 * the peer (getpeername of the accepted socket), local the destination as
 * the client sees it: getsockname for the explicit listener, SO_ORIGINAL_DST
 * for the transparent one (a NATed client's socket is connected to the
 * original destination). Both AF_INET or AF_INET6; IPv4-mapped addresses
 * are looked up as IPv4. There must be no SNAT between client and egressd.
 *
 * All processes holding the socket are found: every cached sandbox process
 * is scanned (the cache is brought up to date first, from the pids created
 * since the last lookup); the whole host only as a rate limited last
 * resort, when no sandbox process holds it. The reporting holder is the
 * most recent caller among them, else the lowest pid; recent callers keep
 * their /proc files open. Returns IDENTITY_OK with out filled for the
 * reporting holder, or an error with out filled as far as known (holders[]
 * for AMBIGUOUS, err_pid for UNREADABLE and PID_REUSED). Synchronous; costs
 * ~45 us plus ~5 us per process in the sandbox (on a 2-core VM where a
 * syscall costs 1 us), plus ~2.5 us per fd of a process whose socket is not
 * next to the last one found there; independent of host processes.
 */
enum identity_err identity_lookup(struct identity_ctx *ctx,
    const struct sockaddr *client, const struct sockaddr *local,
    struct identity *out);

/*
 * The same /proc steps for a known pid (no sock_diag, nholders 1): for a
 * pid from SO_PEERCRED. The pid is read as of now; prefer
 * identity_from_unix_peer(), which is immune to pid reuse before the call.
 */
enum identity_err identity_from_pid(
    struct identity_ctx *ctx, pid_t pid, struct identity *out);

/*
 * The peer of a connected AF_UNIX socket, through SO_PEERPIDFD (Linux 6.5)
 * so that the process is the one that connected; falls back to SO_PEERCRED.
 * NO_OWNER when the peer already exited.
 */
enum identity_err identity_from_unix_peer(
    struct identity_ctx *ctx, int fd, struct identity *out);

/*
 * Refreshes the candidate cache now: incrementally, or (full) re-examining
 * every process on the host. Lookups refresh incrementally by themselves; a
 * full refresh from a timer bounds the cases an incremental one cannot see
 * (a process that entered the namespace long after it was created, more
 * than pid_max tasks created between two lookups). Returns false on a
 * /proc failure.
 */
bool identity_refresh(struct identity_ctx *ctx, bool full);

/*
 * Minimum interval between two whole-host scans (default 1000 ms); 0 allows
 * one per lookup, a negative value none. A scan costs ~40 us per host
 * process (~200 ms at 5,000) and blocks the caller, so an
 * attacker-triggerable scan is a denial of service unless rate limited.
 */
void identity_set_full_scan_interval(
    struct identity_ctx *ctx, long interval_ms);

void identity_stats_get(
    const struct identity_ctx *ctx, struct identity_stats *out);

/* Stable lowercase name ("identity_no_socket") and an English sentence. */
const char *identity_err_code(enum identity_err e);
const char *identity_strerror(enum identity_err e);

/*
 * Pure helpers, exposed for the tests. All take a byte span and never read
 * past it.
 *
 * identity_parse_stat: /proc/PID/stat -> ppid (field 4) and start time
 * (field 22); the comm field may hold any byte, ')' and spaces included.
 */
bool identity_parse_stat(
    const char *buf, size_t len, pid_t *ppid, uint64_t *start_time);
/* /proc/PID/status -> real and effective uid and gid (Uid:, Gid: lines). */
bool identity_parse_status(const char *buf, size_t len, uid_t *uid, uid_t *euid,
    gid_t *gid, gid_t *egid);
/*
 * /proc/PID/cmdline (raw, NUL-separated) -> one printable line in out
 * (outlen >= 1): separators become spaces, '\' becomes "\\", bytes outside
 * 0x20..0x7e become \xHH. Returns false when the output was cut short.
 */
bool identity_format_cmdline(
    const char *raw, size_t len, char *out, size_t outlen);

#endif
